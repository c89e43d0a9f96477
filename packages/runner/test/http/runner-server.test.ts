import { request as httpRequest } from 'node:http';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunnerServer } from '../../src/http/index.js';
import type { RunnerServer } from '../../src/http/index.js';
import { createMemoryThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import { OfflineModelProvider } from '../../src/models/offline-model.js';
import { parseScenario } from '../../src/models/scenario-loader.js';
import { testTools, writeTwoAgents } from '../wire/fixtures.js';

// Real servers, subprocess-free but SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const SCENARIO = parseScenario(`
version: 1
name: http
agents:
  io.test.triage:
    rules:
      - when: { turn: 1, input_matches: '(CASE-\\d+)' }
        call: { name: get_case, arguments: { case_id: '{{input_match.1}}' } }
      - when: { tool: get_case, input_matches: refund }
        handoff: { target: refunds, input: 'Refund order {{last_tool_output.json.order_id}}', state: { order_id: '{{last_tool_output.json.order_id}}' } }
      - message: 'No refund needed.'
  io.test.refunds:
    rules:
      - message: 'Refund reviewed: {{input}}'
`);

const TOKEN = 'test-token-0123456789abcdef';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('runner HTTP service', () => {
  let server: RunnerServer;
  let url: string;
  let cleanup: () => void;

  beforeAll(async () => {
    const agents = writeTwoAgents();
    cleanup = agents.cleanup;
    const store = createMemoryThreadStore();
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: new OfflineModelProvider(SCENARIO),
      modelLabel: 'offline model',
    });
    server = createRunnerServer({ runner, store, port: 0, token: TOKEN });
    url = (await server.listen()).url;
  });
  afterAll(async () => {
    await server.close();
    cleanup();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('runs through a handoff, honours traceparent, and shows the thread', async () => {
    const res = await post({ agent_id: 'io.test.triage', input: 'refund please, case CASE-9' }, { traceparent: TRACEPARENT });
    expect(res.status).toBe(200);
    const result = (await res.json()) as {
      thread_id: string;
      status: string;
      agent_id: string;
      response: string;
      trace_id: string;
      model: string;
      runs: unknown[];
    };
    expect(result).toMatchObject({
      status: 'completed',
      agent_id: 'io.test.refunds',
      response: '[offline model] Refund reviewed: Refund order ORD-1',
      model: 'offline model',
    });
    expect(result.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');

    const thread = await fetch(`${url}/v1/threads/${result.thread_id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(thread.status).toBe(200);
    const view = (await thread.json()) as {
      thread: { id: string };
      state: Record<string, unknown>;
      runs: Array<{ run_id: string; id: string; agent_id: string; status: string }>;
      items: unknown[];
    };
    expect(view.thread.id).toBe(result.thread_id);
    expect(view.state).toMatchObject({ order_id: 'ORD-1' });
    expect(view.runs.map((r) => [r.agent_id, r.status])).toEqual([
      ['io.test.triage', 'cancelled'],
      ['io.test.refunds', 'completed'],
    ]);
    expect(view.items.length).toBeGreaterThan(0);
    // Runs carry `run_id` as run results do (and `id`, the same value, for older clients).
    expect(view.runs.map((r) => r.run_id)).toEqual((result.runs as Array<{ run_id: string }>).map((r) => r.run_id));
    for (const r of view.runs) expect(r.id).toBe(r.run_id);

    // A second run continues the same thread.
    const again = await post({ agent_id: 'io.test.triage', input: 'thanks', thread_id: result.thread_id });
    expect(((await again.json()) as { thread_id: string }).thread_id).toBe(result.thread_id);
  });

  it('requires the bearer token on /v1/* but not on /healthz', async () => {
    const res = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${url}/v1/threads/x`)).status).toBe(401);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it('answers bad requests with 4xx JSON errors that say what is wrong', async () => {
    const cases: Array<[unknown, Record<string, string>, number, RegExp]> = [
      ['{}', { 'content-type': 'text/plain' }, 415, /application\/json/],
      ['{nope', {}, 400, /not valid JSON/],
      [{ agent_id: 'io.test.triage' }, {}, 400, /input/],
      [{ agent_id: 'io.test.triage', input: 'x', extra: 1 }, {}, 400, /extra/],
      [{ agent_id: 'io.test.nobody', input: 'x' }, {}, 404, /io\.test\.nobody/],
      ['['.repeat(100) + ']'.repeat(100), {}, 400, /deeper than 64/],
    ];
    for (const [body, headers, status, message] of cases) {
      const res = await post(body, headers);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(status);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.message).toMatch(message);
    }
    const big = await post({ agent_id: 'io.test.triage', input: 'x'.repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    const missing = await fetch(`${url}/v1/threads/thread_nope`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(missing.status).toBe(404);
    expect((await fetch(`${url}/v2/other`)).status).toBe(404);
  });

  it('refuses to listen off loopback without a token', () => {
    expect(() =>
      createRunnerServer({ runner: { run: async () => ({}) as never }, store: createMemoryThreadStore(), host: '0.0.0.0' }),
    ).toThrow(/set a bearer token/);
  });

  it('lets an in-flight run finish on close (graceful shutdown)', async () => {
    const agents = writeTwoAgents();
    const store = createMemoryThreadStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let entered: () => void = () => undefined;
    const inTool = new Promise<void>((r) => (entered = r));
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: { ...testTools, get_case: async (args: Record<string, unknown>) => (entered(), await gate, testTools.get_case(args)) },
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: new OfflineModelProvider(SCENARIO),
    });
    const s = createRunnerServer({ runner, store, port: 0 });
    const { port } = await s.listen();
    const pending = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/v1/runs', method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ agent_id: 'io.test.triage', input: 'case CASE-1' }));
    });
    // Wait until the run is inside the tool, then close while it is in flight.
    await inTool;
    const closing = s.close();
    release();
    const done = await pending;
    await closing;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toMatchObject({ status: 'completed' });
    agents.cleanup();
  });
});
