import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { createGuardrailServer, type GuardrailServer } from '@baton/guardrail-server/http';
import type { GuardrailRequest, GuardrailResponse, GuardrailValidator, GuardrailCallOptions, ActionType } from '@baton/manifest';
import {
  createGuardrailChecker,
  createGuardrailClient,
  createInProcessGuardrail,
  GuardrailCallError,
  GuardrailClientConfigError,
  GUARDRAIL_REASON_CODES as CLIENT_REASON_CODES,
} from '../src/index.js';
import { closedPort, rawServer, recordingValidator, toolCall, toolOutput } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function baton(token?: string): Promise<{ url: string; validator: ReturnType<typeof recordingValidator> }> {
  const validator = recordingValidator();
  const server: GuardrailServer = createGuardrailServer({ validator, port: 0, ...(token ? { token } : {}) });
  const { url } = await server.listen();
  cleanups.push(() => server.close());
  return { url, validator };
}

/** One decision through the checker (the one call path), in the response's shape, for `request`. */
async function decideWith(
  validator: GuardrailValidator,
  request: GuardrailRequest,
  options: { failOpen?: ActionType[]; timeoutMs?: number; call?: GuardrailCallOptions } = {},
): Promise<GuardrailResponse> {
  const checker = createGuardrailChecker({
    validator,
    timeoutMs: options.timeoutMs ?? 600_000,
    generateId: () => request.action_id,
    ...(options.failOpen ? { failOpen: options.failOpen } : {}),
  });
  const r = await checker.check({
    actionType: request.action_type,
    payload: request.payload,
    sourceAgentId: request.source_agent_id,
    threadId: request.thread_id,
    trace: request.trace,
    ...(options.call?.signal ? { signal: options.call.signal } : {}),
    ...(options.call?.traceparent
      ? { headers: { traceparent: options.call.traceparent, ...(options.call.tracestate ? { tracestate: options.call.tracestate } : {}) } }
      : {}),
  });
  return {
    action_id: r.actionId,
    decision: r.decision,
    reason_code: r.reasonCode,
    reason_message: r.reasonMessage,
    ...(r.decision === 'MODIFY' ? { modified_payload: r.payload } : {}),
  };
}

async function scripted(handle: Parameters<typeof rawServer>[0]) {
  const s = await rawServer(handle);
  cleanups.push(() => s.close());
  return s.url;
}

describe('createGuardrailClient against the Baton service', () => {
  it('passes ALLOW, BLOCK and a valid MODIFY through', async () => {
    const { url, validator } = await baton('tok-1-0123456789abcdef');
    const client = createGuardrailClient({ url, token: 'tok-1-0123456789abcdef' });
    expect(client.endpoint).toBe(`${url}/v1/validate`);
    const allow = toolCall({ to: 'a@example.com' });
    expect(await decideWith(client, allow)).toEqual({
      action_id: allow.action_id,
      decision: 'ALLOW',
      reason_code: 'OK',
      reason_message: 'no findings',
    });
    expect(validator.requests[0]).toEqual(allow);

    expect((await decideWith(client, toolCall({ body: 'BLOCKME' }))).decision).toBe('BLOCK');
    const modified = await decideWith(client, toolCall({ to: 'a@example.com', body: 'SSN 123-45-6789' }));
    expect(modified.decision).toBe('MODIFY');
    expect(JSON.parse((modified.modified_payload as any).function.arguments)).toEqual({ to: 'a@example.com', body: 'SSN [REDACTED:SSN]' });
  });

  it('fails closed on a wrong token (HTTP 401), naming the status', async () => {
    const { url } = await baton('right-0123456789abcdef');
    const r = await decideWith(createGuardrailClient({ url, token: 'wrong' }), toolCall({}));
    expect(r).toMatchObject({ decision: 'BLOCK', reason_code: CLIENT_REASON_CODES.httpError });
    expect(r.reason_message).toMatch(/HTTP 401: unauthorized/);
  });
});

describe('fails closed', () => {
  it('on an endless answer: stops reading at 4 MiB instead of buffering it all', async () => {
    let written = 0;
    let closed = false;
    const url = await scripted((_body, _headers, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.on('close', () => (closed = true));
      const pump = (): void => {
        while (!closed && written < 1024 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      res.write('{"action_id":"');
      pump();
    });
    // A generous deadline: the limit, not the clock, has to end this call.
    const r = await decideWith(createGuardrailClient({ url, timeoutMs: 120_000 }), toolCall({}));
    expect(r).toMatchObject({ decision: 'BLOCK', reason_code: CLIENT_REASON_CODES.badResponse });
    expect(r.reason_message).toMatch(/larger than 4 MiB/);
    // The server could only push what the socket buffers held past the client's 4 MiB.
    expect(written).toBeLessThan(256 * 1024 * 1024);
  });

  it('when the service is down', async () => {
    const port = await closedPort();
    const req = toolCall({});
    const r = await decideWith(createGuardrailClient({ url: `http://127.0.0.1:${port}` }), req);
    expect(r).toMatchObject({ action_id: req.action_id, decision: 'BLOCK', reason_code: 'GUARDRAIL_UNAVAILABLE' });
    expect(r.reason_message).toMatch(/unreachable \(ECONNREFUSED\)/);
  });

  it('when the service is slower than the timeout', async () => {
    // The service never answers (the cleanup closes the connection), so the client's timeout is
    // the only way out however slow this machine is.
    const url = await scripted(() => undefined);
    const r = await decideWith(createGuardrailClient({ url, timeoutMs: 150 }), toolCall({}));
    expect(r).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_TIMEOUT' });
    expect(r.reason_message).toMatch(/within 150 ms/);
  });

  it('when the caller aborts', async () => {
    // Aborted once the request has arrived, against a service that never answers and a timeout
    // no test run reaches: only the abort can end it.
    const controller = new AbortController();
    const url = await scripted(() => controller.abort());
    const pending = decideWith(createGuardrailClient({ url, timeoutMs: 600_000 }), toolCall({}), { call: { signal: controller.signal } });
    expect(await pending).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_ABORTED' });
  });

  it('on garbage, a wrong shape, or a 500', async () => {
    const garbage = await scripted((_b, _h, res) => res.end('<html>oops</html>'));
    expect(await decideWith(createGuardrailClient({ url: garbage }), toolCall({}))).toMatchObject({
      decision: 'BLOCK',
      reason_code: 'GUARDRAIL_BAD_RESPONSE',
    });

    const shape = await scripted((body, _h, res) =>
      res.end(JSON.stringify({ action_id: JSON.parse(body).action_id, decision: 'MAYBE', reason_code: 'X', reason_message: '' })),
    );
    const r2 = await decideWith(createGuardrailClient({ url: shape }), toolCall({}));
    expect(r2).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_BAD_RESPONSE' });
    expect(r2.reason_message).toMatch(/decision/);

    const fiveHundred = await scripted((_b, _h, res) => {
      res.statusCode = 500;
      res.end('{"error":{"code":"internal_error","message":"boom"}}');
    });
    const r3 = await decideWith(createGuardrailClient({ url: fiveHundred }), toolCall({}));
    expect(r3).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_HTTP_ERROR' });
    expect(r3.reason_message).toMatch(/HTTP 500: internal_error: boom/);
  });

  it('on an action_id mismatch', async () => {
    const url = await scripted((_b, _h, res) =>
      res.end(
        JSON.stringify({ action_id: '11111111-1111-4111-8111-111111111111', decision: 'ALLOW', reason_code: 'OK', reason_message: '' }),
      ),
    );
    const r = await decideWith(createGuardrailClient({ url }), toolCall({}));
    expect(r).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_ACTION_ID_MISMATCH' });
  });

  it('on a MODIFY whose payload is not a valid payload for the action', async () => {
    const modifies: Array<[string, (p: any) => unknown]> = [
      ['arguments not an object', (p) => ({ ...p, function: { ...p.function, arguments: '"just a string"' } })],
      ['arguments not JSON', (p) => ({ ...p, function: { ...p.function, arguments: '{nope' } })],
      ['tool renamed', (p) => ({ ...p, function: { ...p.function, name: 'delete_everything' } })],
      ['call id changed', (p) => ({ ...p, id: 'call_other' })],
      ['missing', () => undefined],
    ];
    for (const [label, change] of modifies) {
      const url = await scripted((body, _h, res) => {
        const req = JSON.parse(body);
        res.end(
          JSON.stringify({
            action_id: req.action_id,
            decision: 'MODIFY',
            reason_code: 'PII',
            reason_message: '',
            modified_payload: change(req.payload),
          }),
        );
      });
      const r = await decideWith(createGuardrailClient({ url }), toolCall({ a: 1 }), { failOpen: ['TOOL_CALL'] });
      expect(r, label).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_INVALID_MODIFY' });
    }
  });
});

describe('fail-open, only per action type when configured', () => {
  it('ALLOWs the configured type on an outage and still BLOCKs the others', async () => {
    const port = await closedPort();
    const client = createGuardrailClient({ url: `http://127.0.0.1:${port}` });
    const open = await decideWith(client, toolOutput('hello'), { failOpen: ['TOOL_OUTPUT'] });
    // One code per failure: the outage's own code, whether it then blocks or fails open.
    expect(open).toMatchObject({ decision: 'ALLOW', reason_code: 'GUARDRAIL_UNAVAILABLE' });
    expect(open.reason_message).toMatch(/unreachable.*allowed because fail-open is configured for TOOL_OUTPUT/);
    expect(await decideWith(client, toolCall({}), { failOpen: ['TOOL_OUTPUT'] })).toMatchObject({
      decision: 'BLOCK',
      reason_code: 'GUARDRAIL_UNAVAILABLE',
    });
  });
});

describe('the transports throw typed errors (the checker decides)', () => {
  it('the HTTP client throws GuardrailCallError with the reason code instead of deciding', async () => {
    const port = await closedPort();
    const down = await createGuardrailClient({ url: `http://127.0.0.1:${port}` })
      .validate(toolCall({}))
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(GuardrailCallError);
    expect(down).toMatchObject({ code: 'GUARDRAIL_UNAVAILABLE' });
    const fiveHundred = await scripted((_b, _h, res) => {
      res.statusCode = 503;
      res.end('{}');
    });
    expect(
      await createGuardrailClient({ url: fiveHundred })
        .validate(toolCall({}))
        .catch((e: unknown) => e),
    ).toMatchObject({ code: 'GUARDRAIL_HTTP_ERROR' });
  });

  it('the in-process wrapper keeps the engine error as cause', async () => {
    const boom = new TypeError('engine broke');
    const err = await createInProcessGuardrail({ validate: async () => Promise.reject(boom) })
      .validate(toolCall({}))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardrailCallError);
    expect(err).toMatchObject({ code: 'GUARDRAIL_ENGINE_ERROR', cause: boom });
  });

  it("failMode is refused on the transports: fail-open is the checker's policy", () => {
    expect(() => createGuardrailClient({ url: 'http://x', failMode: { TOOL_CALL: 'open' } } as never)).toThrow(/checker/);
    expect(() => createInProcessGuardrail(recordingValidator(), { failMode: { TOOL_CALL: 'open' } } as never)).toThrow(/checker/);
  });
});

describe('createGuardrailChecker', () => {
  it('records one reason code per failure, verifies once, and times out a transport that ignores aborts', async () => {
    let calls = 0;
    const hanging: GuardrailValidator = {
      validate: () => {
        calls += 1;
        return new Promise<never>(() => undefined);
      },
    };
    const r = await decideWith(hanging, toolCall({}), { timeoutMs: 50 });
    expect(r).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_TIMEOUT' });
    expect(calls).toBe(1);
    const plainThrow: GuardrailValidator = {
      validate: async () => {
        throw new RangeError('nope');
      },
    };
    expect(await decideWith(plainThrow, toolCall({}), { failOpen: ['TOOL_CALL'] })).toMatchObject({
      decision: 'ALLOW',
      reason_code: 'GUARDRAIL_ENGINE_ERROR',
    });
    // Never fail open on a wrong answer: the original could carry what the service meant to redact.
    const wrongId: GuardrailValidator = {
      validate: async () => ({
        action_id: '11111111-1111-4111-8111-111111111111',
        decision: 'ALLOW',
        reason_code: 'OK',
        reason_message: '',
      }),
    };
    expect(await decideWith(wrongId, toolCall({}), { failOpen: ['TOOL_CALL'] })).toMatchObject({
      decision: 'BLOCK',
      reason_code: 'GUARDRAIL_ACTION_ID_MISMATCH',
    });
  });

  it('refuses to exist without a validator', () => {
    expect(() => createGuardrailChecker({} as never)).toThrow(GuardrailClientConfigError);
    expect(() => createGuardrailChecker({ validator: recordingValidator(), timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});

describe('keep-alive', () => {
  it('reuses one connection for consecutive checks, and reconnects when the service closed it while idle', async () => {
    const s = await rawServer((body, _h, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ action_id: JSON.parse(body).action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: '' }));
    });
    cleanups.push(() => s.close());
    let connections = 0;
    s.server.on('connection', () => (connections += 1));
    const client = createGuardrailClient({ url: s.url });
    for (let i = 0; i < 5; i++) expect((await decideWith(client, toolCall({ i }))).decision).toBe('ALLOW');
    expect(connections).toBe(1);
    // The service drops its idle connections (a restart, its keep-alive timeout): the next check connects again.
    s.server.closeIdleConnections();
    expect((await decideWith(client, toolCall({ after: 'close' }))).decision).toBe('ALLOW');
    expect(connections).toBe(2);
  });
});

describe('headers', () => {
  it('sends traceparent, tracestate, bearer token and JSON content type', async () => {
    let seen: IncomingHttpHeaders = {};
    const url = await scripted((body, headers, res) => {
      seen = headers;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ action_id: JSON.parse(body).action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: '' }));
    });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await decideWith(createGuardrailClient({ url, token: 'abc' }), toolCall({}), {
      call: { traceparent, tracestate: 'baton=1' },
    });
    expect(r.decision).toBe('ALLOW');
    expect(seen['traceparent']).toBe(traceparent);
    expect(seen['tracestate']).toBe('baton=1');
    expect(seen['authorization']).toBe('Bearer abc');
    expect(seen['content-type']).toBe('application/json');
  });
});

describe('configuration errors', () => {
  it('throws GuardrailClientConfigError for bad options', () => {
    expect(() => createGuardrailClient({ url: 'not a url' })).toThrow(GuardrailClientConfigError);
    expect(() => createGuardrailClient({ url: 'ftp://x' })).toThrow(/http: or https:/);
    expect(() => createGuardrailClient({ url: 'http://u:p@x' })).toThrow(/credentials/);
    expect(() => createGuardrailClient({ url: 'http://x', timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createGuardrailClient({ url: 'http://x', retries: 2 as 0 })).toThrow(/retries/);
    expect(createGuardrailClient({ url: 'http://x:1/base/' }).endpoint).toBe('http://x:1/base/v1/validate');
  });
});

describe('createInProcessGuardrail', () => {
  it('passes decisions through; throws and bad answers are a BLOCK through the checker', async () => {
    const ok = createInProcessGuardrail(recordingValidator());
    expect((await decideWith(ok, toolCall({ body: 'SSN 123-45-6789' }))).decision).toBe('MODIFY');

    const throwing = createInProcessGuardrail({
      validate: async () => {
        throw new TypeError('secret detail');
      },
    });
    const r = await decideWith(throwing, toolCall({}));
    expect(r).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_ENGINE_ERROR' });
    expect(r.reason_message).not.toContain('secret detail');

    const wrongId = createInProcessGuardrail({
      validate: async () => ({
        action_id: '11111111-1111-4111-8111-111111111111',
        decision: 'ALLOW',
        reason_code: 'OK',
        reason_message: '',
      }),
    });
    expect((await decideWith(wrongId, toolCall({}))).reason_code).toBe('GUARDRAIL_ACTION_ID_MISMATCH');

    const aborted = new AbortController();
    aborted.abort();
    expect((await decideWith(ok, toolCall({}), { call: { signal: aborted.signal } })).reason_code).toBe('GUARDRAIL_ABORTED');
    expect(() => createInProcessGuardrail({} as never)).toThrow(GuardrailClientConfigError);
  });
});

describe('fail-open never passes what the service refused to inspect', () => {
  it('BLOCKs a request the service answered 413 or 400 (too large, malformed) even where fail-open is configured', async () => {
    for (const [status, code] of [
      [413, 'payload_too_large'],
      [400, 'invalid_request'],
      [422, 'unprocessable'],
    ] as const) {
      const url = await scripted((_b, _h, res) => {
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: { code, message: 'refused' } }));
      });
      const r = await decideWith(createGuardrailClient({ url }), toolOutput('x'.repeat(1000)), { failOpen: ['TOOL_OUTPUT'] });
      expect(r, String(status)).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_HTTP_ERROR' });
    }
  });

  it('still fails open on a service that is down or overloaded (5xx, 429, 408)', async () => {
    for (const status of [503, 500, 429, 408]) {
      const url = await scripted((_b, _h, res) => {
        res.statusCode = status;
        res.end('{}');
      });
      const r = await decideWith(createGuardrailClient({ url }), toolOutput('hello'), { failOpen: ['TOOL_OUTPUT'] });
      expect(r, String(status)).toMatchObject({ decision: 'ALLOW', reason_code: 'GUARDRAIL_HTTP_ERROR' });
    }
  });
});

describe('fail-open never passes what an in-process engine refused', () => {
  it("BLOCKs on the engine's REQUEST_INVALID, directly or through createInProcessGuardrail, and fails open on other engine errors", async () => {
    const refusing: GuardrailValidator = {
      validate: () =>
        Promise.reject(Object.assign(new Error('guardrail request: payload.output must be a string'), { code: 'REQUEST_INVALID' })),
    };
    const broken: GuardrailValidator = { validate: () => Promise.reject(new Error('detector crashed')) };
    for (const v of [refusing, createInProcessGuardrail(refusing)]) {
      expect(await decideWith(v, toolOutput('x'), { failOpen: ['TOOL_OUTPUT'] })).toMatchObject({ decision: 'BLOCK' });
    }
    for (const v of [broken, createInProcessGuardrail(broken)]) {
      expect(await decideWith(v, toolOutput('x'), { failOpen: ['TOOL_OUTPUT'] })).toMatchObject({ decision: 'ALLOW' });
    }
  });
});
