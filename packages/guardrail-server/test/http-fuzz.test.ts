import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { createGuardrailServer } from '../src/http/index.js';
import { testValidator, toolCallRequest, inputRequest } from './http-helpers.js';
import { FAKE } from './helpers.js';
import { makeCanary } from '../src/index.js';

// A fixed seed keeps CI deterministic; change it locally to explore (failures print their seed).
fc.configureGlobal({ seed: 20261129 });

// Property: whatever the body, the service answers 200 or a 4xx with a JSON body, never a 5xx,
// and it still answers /healthz afterwards.
const server = createGuardrailServer({ validator: testValidator(), port: 0, bodyLimitBytes: 64 * 1024 });
// The same service around the real detector engine: a valid request must never make it throw.
const engineServer = createGuardrailServer({
  validator: createGuardrailEngine(),
  port: 0,
  bodyLimitBytes: 64 * 1024,
  queueTimeoutMs: 120_000,
});
// The engine on its worker pool, as `baton guardrail serve` runs it, with the canary below planted.
const CANARY = makeCanary('fedcba98765432100123');
// Generous budgets, so a saturated machine can't turn the last check's ALLOW into PAYLOAD_TOO_COMPLEX.
const pooledServer = createGuardrailServer({
  validator: createGuardrailEngine({ canaries: [CANARY], budget: { timeMs: 120_000 } }),
  port: 0,
  bodyLimitBytes: 64 * 1024,
  workers: 2,
  queueTimeoutMs: 120_000,
});
afterAll(async () => {
  await server.close();
  await engineServer.close();
  await pooledServer.close();
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
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.constant(undefined),
          fc.string({ unit: 'grapheme', maxLength: 200 }),
          fc.string({ unit: 'binary', maxLength: 200 }),
        ),
        async (valid, path, value) =>
          assertWellFormed(await send(JSON.stringify(mutate(valid, path, value) ?? null), 'application/json', engineServer)),
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
          fc
            .tuple(fc.nat(valid.length), fc.uint8Array({ minLength: 1, maxLength: 8 }))
            .map(([n, b]) => Buffer.concat([Buffer.from(valid.slice(0, n)), Buffer.from(b), Buffer.from(valid.slice(n))])),
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
      fc.asyncProperty(
        fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        async (ct) => {
          const r = await send(valid, ct);
          assertWellFormed(r);
        },
      ),
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

// Red-team shapes (issue 14) against the pooled engine: long keys, prototype-named members,
// invisible characters inside sensitive values, deep and large bodies. Besides the well-formed
// answer: a planted secret, canary or card number - as a key or inside a value, however obfuscated -
// is never ALLOWed and never echoed.
const SENSITIVE = [FAKE.awsKeyId, FAKE.githubToken, FAKE.stripe, CANARY, '4111111111111111', '5500 0000 0000 0004'];
const INVISIBLES = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u00ad',
  '\ufeff',
  '\u200e',
  '\u202e',
  '\u2066',
  '\u{e0020}',
  '\ufe0f',
  '\u{e0100}',
  '\u034f',
];
const fullWidth = (s: string) => [...s].map((c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');

const obfuscated = fc
  .tuple(fc.constantFrom(...SENSITIVE), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLES)), { maxLength: 4 }), fc.boolean())
  .map(([value, inserts, wide]) => {
    let out = wide && !value.startsWith('BATON') ? fullWidth(value) : value;
    for (const [at, ch] of inserts) {
      const i = 1 + (at % (out.length - 1));
      out = out.slice(0, i) + ch + out.slice(i);
    }
    return { value, out };
  });
const plainText = fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((t) => t.replace(/[0-9]/g, 'n'));
const memberName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: 16_390, max: 20_000 }).map((n) => 'k'.repeat(n)),
);

type Planted = { state: Record<string, unknown>; secrets: string[] };
const planted: fc.Arbitrary<Planted> = fc
  .tuple(fc.array(fc.tuple(memberName, plainText), { maxLength: 6 }), obfuscated, fc.boolean(), memberName, fc.nat(3))
  .map(([members, secret, asKey, wrapper, depth]) => {
    const inner: Record<string, unknown> = {};
    for (const [k, v] of members) Object.defineProperty(inner, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (asKey) Object.defineProperty(inner, secret.out, { value: 'v', enumerable: true, writable: true, configurable: true });
    else Object.defineProperty(inner, 'note', { value: `see ${secret.out} here`, enumerable: true, writable: true, configurable: true });
    let node: Record<string, unknown> = inner;
    for (let d = 0; d < depth; d++) {
      const outer: Record<string, unknown> = {};
      Object.defineProperty(outer, d === depth - 1 ? wrapper : `l${d}`, {
        value: node,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      node = outer;
    }
    return { state: node, secrets: [secret.value, secret.out] };
  });

describe('fuzzing the pooled engine with red-team shapes', { timeout: 300_000 }, () => {
  async function sendPooled(body: string) {
    const r = await send(body, 'application/json', pooledServer);
    assertWellFormed(r);
    return r;
  }

  it('planted values in handoff state and tool arguments are never allowed or echoed', async () => {
    await fc.assert(
      fc.asyncProperty(planted, fc.boolean(), async ({ state, secrets }, asToolCall) => {
        const base = toolCallRequest() as unknown as { payload: Record<string, unknown> };
        const req = asToolCall
          ? { ...base, payload: { ...base.payload, function: { name: 'lookup', arguments: JSON.stringify(state) } } }
          : { ...inputRequest('x'), action_type: 'AGENT_HANDOFF', payload: { target_agent_id: 'io.a.b', input: 'go', state } };
        const body = JSON.stringify(req);
        const r = await sendPooled(body);
        if (body.length > 64 * 1024) {
          expect(r.status).toBe(413);
          return;
        }
        expect(r.status, r.body.slice(0, 300)).toBe(200);
        const decision = JSON.parse(r.body) as { decision: string };
        expect(decision.decision, r.body.slice(0, 400)).not.toBe('ALLOW');
        for (const s of secrets) expect(r.body).not.toContain(s);
      }),
      { numRuns: 700 },
    );
  });

  it('deep, wide and large bodies get a decision or a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1, max: 200 }).map((d) => '{"a":'.repeat(d) + '"x"' + '}'.repeat(d)),
          fc
            .integer({ min: 1, max: 4000 })
            .map((n) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `u${i}@example.com`])))),
          fc.integer({ min: 1, max: 70_000 }).map((n) => JSON.stringify({ big: 'a '.repeat(n) })),
          fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify({ v })),
        ),
        fc.boolean(),
        async (state, asToolCall) => {
          const base = toolCallRequest() as unknown as { payload: Record<string, unknown> };
          const body = asToolCall
            ? JSON.stringify({ ...base, payload: { ...base.payload, function: { name: 'lookup', arguments: state } } })
            : JSON.stringify({
                ...inputRequest('x'),
                action_type: 'AGENT_HANDOFF',
                payload: { target_agent_id: 'io.a.b', input: 'go', state: '__STATE__' },
              }).replace('"__STATE__"', state);
          const r = await sendPooled(body);
          if (body.length > 64 * 1024) expect(r.status).toBe(413);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('the pooled service still answers /healthz and an ordinary request afterwards', async () => {
    expect((await pooledServer.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const r = await sendPooled(JSON.stringify(inputRequest('What is the status of ticket 54321?')));
    expect(JSON.parse(r.body)).toMatchObject({ decision: 'ALLOW' });
  });
});
