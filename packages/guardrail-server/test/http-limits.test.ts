/**
 * The service's limits over a real socket (issue 14, low findings): header overflow and malformed
 * HTTP in the JSON error shape, a trickled body cut off by the configured deadline, the token
 * minimum, and the worker pool's hard deadline and queue bound.
 */
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { createGuardrailServer, GuardrailHttpConfigError, type GuardrailServer } from '../src/http/index.js';
import { handoff, toolCall } from './helpers.js';
import { testValidator } from './http-helpers.js';

const servers: GuardrailServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function started(options: Partial<Parameters<typeof createGuardrailServer>[0]> = {}) {
  const server = createGuardrailServer({ validator: testValidator(), port: 0, ...options });
  servers.push(server);
  const { port } = await server.listen();
  return { server, port };
}

/** Sends raw bytes and resolves with everything the server answered before closing. */
function raw(port: number, chunks: Array<string | Buffer>, options: { keepOpen?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    for (const c of chunks) socket.write(c);
    if (!options.keepOpen) socket.end();
  });
}

function parseAnswer(answer: string): { status: number; body: { error: { code: string; message: string } } } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head ?? '')?.[1]), body: JSON.parse(body ?? '') as never };
}

describe('client errors in the JSON error shape', () => {
  it('431 for headers over the limit', async () => {
    const { port } = await started();
    const answer = parseAnswer(await raw(port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]));
    expect(answer.status).toBe(431);
    expect(answer.body.error.code).toBe('header_too_large');
  });

  it('400 bad_request for malformed HTTP', async () => {
    const { port } = await started();
    const answer = parseAnswer(await raw(port, ['NOT HTTP AT ALL\r\n\r\n']));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('bad_request');
  });
});

describe('a trickling body', () => {
  it('is answered 408 request_timeout once bodyTimeoutMs passes, and the connection closed', async () => {
    const { port } = await started({ bodyTimeoutMs: 300 });
    const head = 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a';
    // The socket stays open from our side: only the server can end this exchange.
    const answer = parseAnswer(await raw(port, [head], { keepOpen: true }));
    expect(answer.status).toBe(408);
    expect(answer.body.error).toMatchObject({ code: 'request_timeout', message: 'request body did not arrive within 300 ms' });
  });

  it('a declared Content-Length over the limit is refused before the body is read', async () => {
    const { port } = await started({ bodyLimitBytes: 100 });
    const answer = parseAnswer(
      await raw(port, ['POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n'], {
        keepOpen: true,
      }),
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('payload_too_large');
  });
});

describe('the bearer token', () => {
  it('must be at least 16 characters, on loopback and off it', () => {
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      expect(() => createGuardrailServer({ validator: testValidator(), host, token: 'x' })).toThrow(GuardrailHttpConfigError);
      expect(() => createGuardrailServer({ validator: testValidator(), host, token: '0123456789abcde' })).toThrow(
        /at least 16 characters; got 15/,
      );
    }
    servers.push(createGuardrailServer({ validator: testValidator(), host: '0.0.0.0', token: '0123456789abcdef' }));
  });

  it('rejects bad pool and timeout options', () => {
    expect(() => createGuardrailServer({ validator: testValidator(), workers: -1 })).toThrow(/workers must be an integer from 0 to 64/);
    expect(() => createGuardrailServer({ validator: testValidator(), bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs/);
    expect(() => createGuardrailServer({ validator: testValidator(), maxQueue: 0 })).toThrow(/maxQueue/);
  });
});

describe('the worker pool', { timeout: 60_000 }, () => {
  const heavy = () =>
    handoff('go', {
      list: Array.from({ length: 1500 }, (_, i) => `mail user${i}@example.com and call +1 415 555 ${String(1000 + (i % 9000))}`),
    });

  it('past the budget or the hard deadline (the worker is terminated): BLOCK PAYLOAD_TOO_COMPLEX, and it keeps serving', async () => {
    // An engine budget and grace of 1 ms each: the work below can't finish inside them. A long
    // queue wait: replacing a terminated worker can take seconds on a loaded machine.
    const server = createGuardrailServer({
      validator: createGuardrailEngine({ budget: { timeMs: 1 } }),
      port: 0,
      workers: 1,
      workerGraceMs: 1,
      queueTimeoutMs: 120_000,
    });
    servers.push(server);
    for (let i = 0; i < 3; i++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/validate',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(heavy()),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ decision: 'BLOCK', reason_code: 'PAYLOAD_TOO_COMPLEX', findings: [] });
    }
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('terminates a worker stuck in one detector call past the hard deadline, and replaces it', async () => {
    // Budget 1 ms + grace 1 ms: the first detector call over 500 KB of text outlasts the 2 ms hard
    // deadline before the engine can check its own budget, so only the pool can end it. Its
    // answer says "more than 2 ms" (the engine's own would say "more than 1 ms of inspection").
    const server = createGuardrailServer({
      validator: createGuardrailEngine({ budget: { timeMs: 1 } }),
      port: 0,
      workers: 1,
      workerGraceMs: 1,
      queueTimeoutMs: 120_000,
    });
    servers.push(server);
    const text = Array.from({ length: 25_000 }, (_, i) => `user${i}@example.com`).join(' ');
    const byPool = "Blocked: the payload could not be inspected within the guardrail's budget (more than 2 ms).";
    // On a loaded machine the pool's 2 ms timer can fire late enough for the engine's own budget
    // check to answer first (also a BLOCK, "more than 1 ms of inspection"): every answer must be
    // one of these, and the pool must have terminated a worker at least twice in 20 tries.
    let terminated = 0;
    for (let i = 0; i < 20 && terminated < 2; i++) {
      const req = toolCall('lookup', { body: text });
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/validate',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(req),
      });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ reason_message: string }>();
      expect(body).toMatchObject({ action_id: req.action_id, decision: 'BLOCK', reason_code: 'PAYLOAD_TOO_COMPLEX', findings: [] });
      expect([
        byPool,
        "Blocked: the payload could not be inspected within the guardrail's budget (more than 1 ms of inspection).",
        // Where the budget is CPU time, the engine's wall-clock ceiling (4 × timeMs) may answer first.
        "Blocked: the payload could not be inspected within the guardrail's budget (more than 4 ms of wall-clock time).",
      ]).toContain(body.reason_message);
      if (body.reason_message === byPool) terminated++;
    }
    // A terminated worker was replaced each time: the next request was answered.
    expect(terminated).toBe(2);
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('starts however long its workers take to boot: the queue timeout is for requests, not the start-up', async () => {
    // Seen in CI under load: `baton guardrail serve` (default 5 s queue timeout) exited 1 before
    // listening because a worker took longer than that to load the detectors. A 1 ms queue timeout
    // stands in for a machine slower than any default.
    const { port } = await started({ validator: createGuardrailEngine(), workers: 2, queueTimeoutMs: 1 });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // Not asserted: that a request is then answered within the 1 ms queue timeout. Handing a task
    // to an idle worker takes longer than 1 ms on a busy machine (this suite answered 503 there),
    // and the rule is no timed assertions; the start-up is what this test is about.
  });

  it('answers 503 service_unavailable when every worker is busy and the queue is full', async () => {
    const server = createGuardrailServer({ validator: createGuardrailEngine(), port: 0, workers: 1, maxQueue: 1 });
    servers.push(server);
    const body = JSON.stringify(heavy());
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        server.app.inject({ method: 'POST', url: '/v1/validate', headers: { 'content-type': 'application/json' }, payload: body }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses).toContain(503);
    expect(statuses.filter((s) => s !== 503 && s !== 200)).toEqual([]);
    const busy = answers.find((a) => a.statusCode === 503)!;
    expect(busy.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    expect(busy.headers['retry-after']).toBe('1');
  });

  it('keeps tool-policy taint across workers: it lives on the main thread', async () => {
    const server = createGuardrailServer({
      validator: createGuardrailEngine({ budget: { timeMs: 120_000 } }),
      port: 0,
      workers: 2,
      inlineMaxBytes: 0,
      queueTimeoutMs: 120_000,
    });
    servers.push(server);
    const send = (req: unknown) =>
      server.app.inject({
        method: 'POST',
        url: '/v1/validate',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(req),
      });
    const output = {
      ...toolCall('x', {}, 'thread-taint'),
      action_type: 'TOOL_OUTPUT',
      payload: { tool_call_id: 'c1', name: 'fetch_url', output: 'some page' },
    };
    expect((await send(output)).json()).toMatchObject({ decision: 'ALLOW' });
    for (let i = 0; i < 4; i++) {
      expect((await send(toolCall('send_email', { to: 'x' }, 'thread-taint'))).json()).toMatchObject({
        decision: 'BLOCK',
        reason_code: 'TOOL_POLICY_VIOLATION',
      });
    }
    expect((await send(toolCall('send_email', { to: 'x' }, 'thread-clean'))).json()).toMatchObject({ decision: 'ALLOW' });
  });
});
