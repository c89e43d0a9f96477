import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcessInput } from '@baton/manifest';
import { defineAgentProcess } from '../../src/agent-process/index.js';
import { runAgentProcess, spawnJsonProcess } from '../../src/process/index.js';
import { writeScripts } from './fixtures.js';

const EXAMPLE = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../examples/agents/process/order-status-agent.mjs');
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';

function inputFor(content: string, extra: Partial<AgentProcessInput> = {}): AgentProcessInput {
  return {
    thread_id: 'thread_1',
    run_id: 'run_1',
    input_message: { role: 'user', content },
    state: {},
    config: {},
    trace: { trace_id: TRACE_ID, parent_span_id: PARENT_SPAN_ID },
    ...extra,
  };
}

const runExample = (input: AgentProcessInput) => runAgentProcess({ command: process.execPath, args: [EXAMPLE], input, timeoutMs: 45_000 });

function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the example order-status agent, run as a subprocess', { timeout: 90_000 }, () => {
  let server: Server;
  let baseUrl: string;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      const id = /\/orders\/(\d+)$/.exec(req.url ?? '')?.[1];
      if (id === '77777') {
        res.writeHead(500).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: `in the warehouse (${id})` }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers an order-status question, updates state and logs with the trace ids', async () => {
    const result = await runExample(inputFor('Where is order 10042?', { state: { lookups: 2, keep: 'me' } }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.output).toEqual({
      response: 'Order 10042 is shipped on 2026-03-02, arriving in 2 days.',
      state: { lookups: 3, keep: 'me', last_order_id: '10042' },
      tool_calls: [],
    });
    const [log] = logLines(result.stderr);
    expect(log).toMatchObject({ level: 'info', msg: 'received a message', trace_id: TRACE_ID, thread_id: 'thread_1', run_id: 'run_1' });
    expect(log!.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(log!.span_id).not.toBe(PARENT_SPAN_ID);
  });

  it('requests a system::handoff for a refund', async () => {
    const result = await runExample(
      inputFor('I want a refund for order 10043', { config: { refunds_agent_id: 'io.baton.examples.refunds' } }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.output.response).toBeNull();
    const [call] = result.output.tool_calls;
    expect(call?.function.name).toBe('system::handoff');
    expect(JSON.parse(call!.function.arguments)).toEqual({
      target_agent_id: 'io.baton.examples.refunds',
      input: 'The customer wants a refund for order 10043.',
      state: { order_id: '10043' },
    });
  });

  it('sends traceparent for the agent span on its outbound HTTP calls', async () => {
    seen.length = 0;
    const result = await runExample(inputFor('status of 12345 please', { config: { status_api_url: baseUrl } }));
    expect(result.ok && result.output.response).toBe('Order 12345 is in the warehouse (12345).');
    expect(seen).toHaveLength(1);
    const traceparent = String(seen[0]!.traceparent);
    expect(traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const spanId = traceparent.split('-')[2];
    expect(spanId).not.toBe(PARENT_SPAN_ID);
    expect(logLines(result.ok ? result.stderr : '')[0]!.span_id).toBe(spanId);
  });

  it('keeps an unsampled or random trace as received and sends the tracestate on (trace_flags, tracestate on stdin)', async () => {
    for (const flags of ['00', '02']) {
      seen.length = 0;
      const result = await runExample(
        inputFor('status of 12345 please', {
          config: { status_api_url: baseUrl },
          trace: { trace_id: TRACE_ID, parent_span_id: PARENT_SPAN_ID, trace_flags: flags, tracestate: 'congo=t61rcWkgMzE' },
        }),
      );
      expect(result.ok).toBe(true);
      expect(String(seen[0]!.traceparent)).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-${flags}$`));
      expect(String(seen[0]!.traceparent).split('-')[2]).not.toBe(PARENT_SPAN_ID);
      expect(seen[0]!.tracestate).toBe('congo=t61rcWkgMzE');
    }
  });

  it('fails the run with the handler error when the agent throws', async () => {
    const result = await runExample(inputFor('status of 77777', { config: { status_api_url: baseUrl } }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('NON_ZERO_EXIT');
    expect(result.exitCode).toBe(1);
    const last = logLines(result.stderr).at(-1);
    expect(last).toMatchObject({
      level: 'error',
      msg: 'agent handler failed',
      trace_id: TRACE_ID,
      error: { message: 'order status service answered HTTP 500' },
    });
    expect(result.stderr).not.toContain('    at ');
  });

  it('exits 2 with a JSON error line on stderr for input off the contract', async () => {
    const result = await spawnJsonProcess({ command: process.execPath, args: [EXAMPLE], input: { thread_id: 5 }, timeoutMs: 45_000 });
    expect(result.failure?.code).toBe('NON_ZERO_EXIT');
    expect(result.exitCode).toBe(2);
    const [line] = logLines(result.stderr);
    expect(line).toMatchObject({ level: 'error', error: { code: 'INVALID_INPUT' } });
    expect(String((line!.error as { message: string }).message)).toContain('thread_id');
  });
});

describe('runAgentProcess contract checks', { timeout: 60_000 }, () => {
  let scripts: Awaited<ReturnType<typeof writeScripts>>;
  beforeAll(async () => {
    scripts = await writeScripts();
  });
  afterAll(() => scripts.cleanup());

  it('refuses input off the contract before starting anything', async () => {
    const result = await runAgentProcess({
      command: '/nonexistent/never-started',
      input: { ...inputFor('x'), trace: { trace_id: 'nothex', parent_span_id: PARENT_SPAN_ID } },
      timeoutMs: 1_000,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_INPUT');
      expect(result.error.message).toContain('.trace.trace_id');
    }
  });

  it('turns output off the contract into BAD_OUTPUT without echoing it', async () => {
    // The echo script answers { echo: <input> }: valid JSON, but not the agent output contract.
    const result = await runAgentProcess({
      command: process.execPath,
      args: [scripts.path('echo')],
      input: inputFor('secret-ish text'),
      timeoutMs: 15_000,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('BAD_OUTPUT');
      expect(result.error.message).toContain('.state');
      expect(result.error.message).not.toContain('secret-ish');
    }
  });

  it('passes process failures through with their codes', async () => {
    const result = await runAgentProcess({
      command: process.execPath,
      args: [scripts.path('crash')],
      input: inputFor('x'),
      timeoutMs: 15_000,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'NON_ZERO_EXIT' });
  });
});

describe('defineAgentProcess in-process (stream seams)', () => {
  async function drive(stdinText: string, handler: Parameters<typeof defineAgentProcess>[0]) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    let exitCode: number | undefined;
    stdin.end(stdinText);
    const returned = await defineAgentProcess(handler, { stdin, stdout, stderr, tracing: false, exit: (code) => (exitCode = code) });
    return { out, err, exitCode, returned };
  }

  it('writes exactly one JSON object and exits 0', async () => {
    const run = await drive(JSON.stringify(inputFor('hi')), (input) => ({
      response: `got ${input.input_message.content}`,
      state: { n: 1 },
    }));
    expect(run.exitCode).toBe(0);
    expect(run.returned).toBe(0);
    expect(run.out).toBe('{"response":"got hi","state":{"n":1},"tool_calls":[]}\n');
  });

  it('exits 1 and writes nothing to stdout when the handler answers off the contract or throws', async () => {
    const bad = await drive(JSON.stringify(inputFor('hi')), () => ({ response: 'no state' }) as never);
    expect(bad.exitCode).toBe(1);
    expect(bad.out).toBe('');
    expect(JSON.parse(bad.err.trim())).toMatchObject({ msg: 'agent handler failed', error: { code: 'BAD_OUTPUT' } });

    const thrown = await drive(JSON.stringify(inputFor('hi')), () => {
      throw new TypeError('kaput');
    });
    expect(thrown.exitCode).toBe(1);
    expect(JSON.parse(thrown.err.trim())).toMatchObject({ error: { name: 'TypeError', message: 'kaput' } });
  });

  it('exits 2 for empty or non-JSON stdin', async () => {
    const empty = await drive('', () => ({ state: {} }));
    expect(empty.exitCode).toBe(2);
    expect(JSON.parse(empty.err.trim()).error.message).toBe('stdin was empty; expected one JSON object');
    const garbage = await drive('{nope', () => ({ state: {} }));
    expect(JSON.parse(garbage.err.trim()).error.message).toBe('stdin is not valid JSON');
  });
});

describe('defineAgentProcess under termination', { timeout: 90_000 }, () => {
  it('aborts the handler signal on SIGTERM and exits 143 without writing output', async () => {
    const { mkdtemp, writeFile, rm, access } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { pathToFileURL } = await import('node:url');
    const dir = await mkdtemp(join(tmpdir(), 'baton-agent-term-'));
    try {
      const helper = pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/agent-process/index.js')).href;
      const ready = join(dir, 'ready');
      await writeFile(
        join(dir, 'slow-agent.mjs'),
        `import { writeFileSync } from 'node:fs';
         import { defineAgentProcess } from ${JSON.stringify(helper)};
         await defineAgentProcess(async (input, { signal, logger }) => {
           writeFileSync(${JSON.stringify(ready)}, 'x');
           const busy = setInterval(() => {}, 1000); // stands in for a slow model call
           await new Promise((resolve) => signal.addEventListener('abort', resolve));
           clearInterval(busy);
           logger.warn('stopping', { reason: String(signal.reason?.message) });
           return { response: 'too late', state: {} };
         }, { name: 'slow' });`,
      );
      const controller = new AbortController();
      const pending = spawnJsonProcess({
        command: process.execPath,
        args: [join(dir, 'slow-agent.mjs')],
        input: inputFor('hello'),
        timeoutMs: 60_000,
        killGraceMs: 30_000,
        signal: controller.signal,
      });
      for (;;) {
        const exists = await access(ready).then(
          () => true,
          () => false,
        );
        if (exists) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      controller.abort();
      const result = await pending;
      expect(result.failure?.code).toBe('ABORTED');
      expect(result.exitCode).toBe(143);
      expect(result.signal).toBeNull();
      expect(logLines(result.stderr).at(-1)).toMatchObject({
        msg: 'stopping',
        reason: 'terminated by the runner (SIGTERM)',
        trace_id: TRACE_ID,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
