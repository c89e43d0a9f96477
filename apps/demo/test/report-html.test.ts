import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { renderReportHtml } from '../src/report-html.js';
import type { ReportModel } from '../src/report-model.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';

function sampleModel(): ReportModel {
  return {
    title: 'Baton demo <run report>',
    traceId: '0af7651916cd43dd8448eb211c80319c',
    startedAt: '2026-11-29T18:00:00.000Z',
    durationMs: 1234,
    model: 'offline model',
    events: [
      { atMs: 1, kind: 'run', actor: 'io.baton.examples.triage', depth: 0, title: 'run started', outcome: 'in_progress' },
      {
        atMs: 5,
        kind: 'guardrail',
        actor: 'io.baton.examples.triage',
        depth: 0,
        title: 'TOOL_CALL send_customer_email',
        outcome: 'MODIFY',
        findings: [{ detector: 'pii', type: 'EMAIL', severity: 'medium', start: 3, end: 20 }],
      },
      {
        atMs: 9,
        kind: 'delegation',
        actor: 'coder',
        depth: 1,
        title: 'delegate_task coder',
        outcome: 'SUCCESS',
        detail: '<script>alert(1)</script>',
      },
    ],
    packets: [
      {
        packetId: 'pkt_123',
        destination: 'io.baton.examples.refunds',
        purpose: 'refund_eligibility_review',
        contractVersion: '2026-11-01',
        fields: [{ name: 'order_id', dataClass: 'identifier' }],
        digest: 'ab'.repeat(32),
        reconciled: true,
      },
    ],
    summary: [{ label: 'Packets reconciled', value: '1/1', ok: true }],
    artifacts: [{ label: 'SQLite store', path: '.baton/baton.db' }],
  };
}

describe('renderReportHtml', () => {
  it('escapes everything it is given', () => {
    const html = renderReportHtml(sampleModel());
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('Baton demo &lt;run report&gt;');
  });

  it('is self-contained: no external resources', () => {
    const html = renderReportHtml(sampleModel());
    expect(html).not.toMatch(/<(script|link)\b/i);
    expect(html).not.toMatch(/(src|href)="https?:/i);
  });
});

// CI installs Debian's chromium (.ci/run); elsewhere the browser test is skipped when it is absent.
describe('report in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'baton-report-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders with no console errors and shows the key elements', async () => {
    const file = path.join(dir, 'report.html');
    writeFileSync(file, renderReportHtml(sampleModel()));
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    expect(await page.locator('#trace-id').innerText()).toContain('0af7651916cd43dd8448eb211c80319c');
    expect(await page.locator('#timeline .event').count()).toBe(3);
    expect(await page.locator('#timeline .decision').count()).toBe(1);
    expect(await page.locator('.packet .digest').innerText()).toBe('ab'.repeat(32));
    const out = path.join(here, '..', 'test-output');
    mkdirSync(out, { recursive: true });
    await page.screenshot({ path: path.join(out, 'report-fixture.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);
});
