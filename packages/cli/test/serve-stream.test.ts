import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, startServe } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-serve-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'acme-token-0123456789abcdef';
const TOKENS = join(dir, 'tokens.yml');
writeFileSync(TOKENS, `tokens:\n  - token: ${TOKEN}\n    tenant: acme-retail\n    subject: agent-7\n    roles: [support_agent]\n`);

describe('baton serve with a streamed run', () => {
  it('answers server-sent events through the packet-reporting runner; done carries the packets', async () => {
    const serve = await startServe([
      '--port',
      '0',
      '--agents',
      join(EXAMPLES, 'agents'),
      '--store',
      join(dir, 's.db'),
      '--auth-tokens',
      TOKENS,
    ]);
    try {
      const url = serve.url;
      const res = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ agent_id: 'io.baton.examples.triage', input: 'Refund for case CASE-1001, please.' }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frames = (await res.text()).split('\n\n').filter((f) => f.startsWith('event: '));
      const events = frames.map((f) => ({
        event: f.slice(7, f.indexOf('\n')),
        data: JSON.parse(f.slice(f.indexOf('\ndata: ') + 7)) as Record<string, unknown>,
      }));
      expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['run_start', 'tool_start', 'handoff', 'text_delta', 'run_end']));
      const done = events.at(-1);
      expect(done?.event).toBe('done');
      const result = done?.data as { status: string; response: string; packets?: unknown[] };
      expect(result.status).toBe('completed');
      expect(result.packets).toHaveLength(1);
      expect(
        events
          .filter((e) => e.event === 'text_delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe(result.response);
      expect(await serve.stop()).toBe(0);
    } finally {
      serve.kill();
    }
  }, 180_000);
});
