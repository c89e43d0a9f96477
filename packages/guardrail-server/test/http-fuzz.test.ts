import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { createGuardrailServer } from '../src/http/index.js';
import { testValidator, toolCallRequest, inputRequest } from './http-helpers.js';

// A fixed seed keeps CI deterministic; change it locally to explore (failures print their seed).
fc.configureGlobal({ seed: 20261129 });

// Property: whatever the body, the service answers 200 or a 4xx with a JSON body, never a 5xx,
// and it still answers /healthz afterwards.
const server = createGuardrailServer({ validator: testValidator(), port: 0, bodyLimitBytes: 64 * 1024 });
// The same service around the real detector engine: a valid request must never make it throw.
const engineServer = createGuardrailServer({ validator: createGuardrailEngine(), port: 0, bodyLimitBytes: 64 * 1024 });
afterAll(async () => {
  await server.close();
  await engineServer.close();
});

async function send(body: string | Buffer, contentType = 'application/json', target = server) {
  const res = await target.app.inject({ method: 'POST', url: '/v1/validate', headers: { 'content-type': contentType }, payload: body });
  return { status: res.statusCode, body: res.body };
}

function assertWellFormed(r: { status: number; body: string }): void {
  expect(r.status === 200 || (r.status >= 400 && r.status < 500), `status ${r.status}: ${r.body.slice(0, 200)}`).toBe(true);
  const parsed = JSON.parse(r.body) as Record<string, any>;
  if (r.status === 200) expect(['ALLOW', 'BLOCK', 'MODIFY']).toContain(parsed['decision']);
  else {
    expect(typeof parsed['error']?.code).toBe('string');
    expect(typeof parsed['error']?.message).toBe('string');
  }
}

/** Sets `value` at a random path of a copy of `obj` (or deletes the key when value is undefined). */
function mutate(obj: unknown, path: number[], value: unknown): unknown {
  if (typeof obj !== 'object' || obj === null || path.length === 0) return value;
  const copy: any = Array.isArray(obj) ? [...obj] : { ...obj };
  const keys = Object.keys(copy);
  if (keys.length === 0) return copy;
  const key = keys[path[0]! % keys.length]!;
  if (path.length === 1 && value === undefined) delete copy[key];
  else copy[key] = mutate(copy[key], path.slice(1), value);
  return copy;
}

const validBodies = fc.constantFrom(
  toolCallRequest(),
  toolCallRequest({ body: 'SSN 123-45-6789' }),
  inputRequest('hello'),
  { ...inputRequest('x'), action_type: 'AGENT_HANDOFF', payload: { target_agent_id: 'io.a.b', input: 'go', state: { k: 1 } } },
  { ...inputRequest('x'), action_type: 'TOOL_OUTPUT', payload: { tool_call_id: 'c1', name: 'read', output: 'text' } },
);

// Hundreds of requests per property: generous timeouts for a loaded machine.
describe('fuzzing POST /v1/validate', { timeout: 120_000 }, () => {
  it('random JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => assertWellFormed(await send(JSON.stringify(value)))),
      { numRuns: 300 },
    );
  });

  it('random mutations of valid requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        validBodies,
        fc.array(fc.nat(10), { minLength: 1, maxLength: 4 }),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined), fc.string(), fc.uuid()),
        async (valid, path, value) => assertWellFormed(await send(JSON.stringify(mutate(valid, path, value) ?? null))),
      ),
      { numRuns: 400 },
    );
  });

  it('random mutations and random text payloads against the real engine', async () => {
    await fc.assert(
      fc.asyncProperty(
        validBodies,
        fc.array(fc.nat(10), { minLength: 1, maxLength: 4 }),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 })),
        async (valid, path, value) => assertWellFormed(await send(JSON.stringify(mutate(valid, path, value) ?? null), 'application/json', engineServer)),
      ),
      { numRuns: 300 },
    );
  });

  it('random bytes, truncations, invalid UTF-8 and deep nesting', async () => {
    const valid = JSON.stringify(toolCallRequest());
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
          fc.nat(valid.length).map((n) => valid.slice(0, n)),
          fc.tuple(fc.nat(valid.length), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([n, b]) =>
            Buffer.concat([Buffer.from(valid.slice(0, n)), Buffer.from(b), Buffer.from(valid.slice(n))]),
          ),
          fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([d, open, closeIt]) => {
            const close = open === '[' ? ']' : '}';
            return open.repeat(d) + (open === '[' ? '1' : '1') + (closeIt ? close.repeat(d) : '');
          }),
          fc.string({ unit: 'binary', maxLength: 300 }),
        ),
        async (body) => assertWellFormed(await send(body)),
      ),
      { numRuns: 400 },
    );
  });

  it('random content types', async () => {
    const valid = JSON.stringify(toolCallRequest());
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)), async (ct) => {
        const r = await send(valid, ct);
        assertWellFormed(r);
      }),
      { numRuns: 200 },
    );
  });

  it('still serves after all that, over a real socket too', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const { url } = await server.listen();
    const res = await fetch(`${url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{{{{' });
    expect(res.status).toBe(400);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
