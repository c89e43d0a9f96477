import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createSqliteThreadStore } from '@baton/runner';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Runs the BUILT demo exactly as `npm run demo` does (turbo builds before `test`), once, and checks
// what it printed and left behind; then opens the generated report in real headless Chromium.
const here = path.dirname(fileURLToPath(import.meta.url));
const demoDir = path.resolve(here, '..');
const repoRoot = path.resolve(demoDir, '..', '..');
const mainJs = path.join(demoDir, 'dist', 'main.js');
const CHROMIUM = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';
const REFUNDS = 'io.baton.examples.refunds';

let out: string;
let run: { status: number | null; stdout: string; stderr: string };

function printed(label: string): string {
  const m = new RegExp(`^\\s+${label}: (\\S+)$`, 'm').exec(run.stdout);
  if (!m) throw new Error(`the demo did not print "${label}:"\n${run.stdout}`);
  return m[1] as string;
}

beforeAll(() => {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: build the demo first (npx turbo run build --filter=@baton/demo...)`);
  out = mkdtempSync(path.join(tmpdir(), 'baton-demo-'));
  // No model credentials: the demo must run offline, whatever the caller's environment holds.
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const r = spawnSync(process.execPath, [mainJs, '--out', out], { cwd: repoRoot, env, encoding: 'utf8', timeout: 110_000 });
  run = { status: r.status, stdout: r.stdout, stderr: r.stderr };
}, 120_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('npm run demo (built, as a subprocess)', () => {
  it('exits 0 and prints every key boundary decision', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('offline model');
    expect(run.stdout).toMatch(/GUARDRAIL\s+triage: TOOL_OUTPUT get_case BLOCK — PROMPT_INJECTION/);
    expect(run.stdout).toMatch(
      /GUARDRAIL\s+triage: TOOL_CALL send_customer_email MODIFY — PII_REDACTED \[pii\/CREDIT_CARD@\d+-\d+, pii\/PHONE_NUMBER@\d+-\d+\]/,
    );
    expect(run.stdout).toMatch(/HANDOFF\s+triage: system::handoff → refunds through packet pkt_[0-9a-f]+ ALLOWED/);
    expect(run.stdout).toMatch(/packet pkt_[0-9a-f]+ reconciled with captured request reconciled/);
    expect(run.stdout).toMatch(/DELEGATION coder: coder yielded SUCCESS/);
    expect(run.stdout).toMatch(/DELEGATION reviewer: reviewer yielded SUCCESS/);
    // The subagents' boundary checks are the run's decisions, narrated under their delegation.
    // ALLOW, possibly with a low-severity grey-band finding (reported, never blocking).
    expect(run.stdout).toMatch(/^\s*\+[\d.]+s {3}GUARDRAIL {2}coder: AGENT_INPUT ALLOW(?: \[[^\]\n]*\])?$/m);
    expect(run.stdout).toMatch(/^\s*\+[\d.]+s {3}GUARDRAIL {2}reviewer: AGENT_RESPONSE ALLOW$/m);
    expect(run.stdout).toMatch(/✔ Fix approved by the reviewer \(JSON Schema\): reviewer → SUCCESS, verdict approve/);
    expect(run.stdout).toMatch(/APPROVAL\s+cleaner: cleaner needs file_delete: denied by the default approval policy DENIED/);
    expect(run.stdout).toMatch(/GUARDRAIL\s+refunds: AGENT_RESPONSE MODIFY — EXFILTRATION_LINK_REMOVED/);
    expect(run.stdout).toContain('![refund status]([REMOVED:LINK])');
    expect(run.stdout).not.toContain('refund-check.example');
    expect(run.stdout).not.toMatch(/^\s+✘/m);
    // Turn 2 on the same thread is answered from the replayed history of turn 1.
    expect(run.stdout).toContain(
      'triage: turn 2 answer, as the user sees it — [offline model] A moment ago you asked me to handle a refund for CASE-1001 and then to look at CASE-1002.',
    );
    expect(run.stdout).toMatch(/✔ Two-turn conversation on the thread: turn 2 completed; its model request replays turn 1: yes/);
    expect(printed('report')).toBe(path.join(out, 'report.html'));
  });

  it('leaves audit records in the SQLite store', async () => {
    const store = createSqliteThreadStore({ file: path.join(out, 'baton.db') });
    try {
      const records = await store.listAudit(printed('thread id'));
      const kinds = records.map((r) => r.kind);
      expect(kinds).toContain('guardrail_decision');
      // Delegation's subagent checks are recorded like the runner's own, on the delegating run.
      const delegated = records.filter((r) => r.kind === 'guardrail_decision' && r.data['baton.boundary'] === 'delegation');
      expect(delegated.map((r) => [r.data['baton.subagent'], r.data.action_type])).toEqual(
        expect.arrayContaining([
          ['coder', 'AGENT_INPUT'],
          ['coder', 'AGENT_RESPONSE'],
          ['reviewer', 'AGENT_INPUT'],
          ['reviewer', 'AGENT_RESPONSE'],
        ]),
      );
      expect(kinds).toContain('handoff_decision');
      expect(kinds).toContain('packet_boundary');
    } finally {
      await store.close();
    }
  });

  it('exports spans carrying the printed trace id', () => {
    const traceId = printed('trace id');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = readFileSync(path.join(out, 'spans.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { trace_id: string; name: string });
    expect(spans.filter((s) => s.trace_id === traceId).length).toBeGreaterThanOrEqual(1);
  });

  it('never sends a canary from the cases to the refunds agent', () => {
    const cases = readFileSync(path.join(repoRoot, 'examples', 'data', 'cases.json'), 'utf8');
    const canaries = [...new Set(cases.match(/CANARY-[A-Z]+-[0-9a-f]+/g) ?? [])];
    expect(canaries.length).toBeGreaterThan(0);
    const dir = path.join(out, 'captures');
    const toRefunds = readdirSync(dir).filter((f) => f.endsWith(`-${REFUNDS}.json`));
    expect(toRefunds.length).toBeGreaterThan(0);
    for (const file of toRefunds) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      for (const c of canaries) expect(text, `${file} carries ${c}`).not.toContain(c);
    }
    // The triage agent did read them: the check above is not vacuous.
    const toTriage = readdirSync(dir).filter((f) => f.endsWith('-io.baton.examples.triage.json'));
    expect(toTriage.some((f) => canaries.some((c) => readFileSync(path.join(dir, f), 'utf8').includes(c)))).toBe(true);
  });

  it('applied the reviewed fix to the workspace and kept the file it was not allowed to delete', () => {
    const ws = path.join(out, 'workspace');
    expect(readFileSync(path.join(ws, 'src', 'refund-window.mjs'), 'utf8')).toContain('return days <= windowDays;');
    expect(existsSync(path.join(ws, 'tmp', 'refunds-export-2026-10.csv'))).toBe(true);
  });
});

// CI installs Debian's chromium (.ci/run); elsewhere the browser test is skipped when it is absent.
describe('the generated report in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
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
  });

  it('renders with no console errors and shows trace, handoff, delegation depth, findings and digests', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(path.join(out, 'report.html')).href);

    expect(await page.locator('#trace-id').innerText()).toContain(printed('trace id'));
    expect(await page.locator('#model').innerText()).toBe('offline model');
    expect(await page.locator('#timeline .event[data-kind="handoff"]').count()).toBeGreaterThanOrEqual(1);
    const depths = await page
      .locator('#timeline .event[data-kind="delegation"]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-depth'))));
    expect(depths.some((d) => d >= 1)).toBe(true);
    expect(await page.locator('#timeline .decision .findings li').count()).toBeGreaterThanOrEqual(1);
    const digests = await page.locator('.packet .digest').allInnerTexts();
    expect(digests.length).toBeGreaterThanOrEqual(1);
    for (const d of digests) expect(d.trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator('#summary li.bad').count()).toBe(0);

    const shots = path.join(demoDir, 'test-output');
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, 'report.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);
});
