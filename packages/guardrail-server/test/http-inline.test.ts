/**
 * Routing between the event loop and the worker pool by body size (`inlineMaxBytes`). Which path
 * answered is read from the request log line's `engine` field.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { createGuardrailServer, GuardrailHttpConfigError, type GuardrailServer } from '../src/http/index.js';
import { toolCall } from './helpers.js';

const servers: GuardrailServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function serve(
  options: Partial<Parameters<typeof createGuardrailServer>[0]> & { validator: Parameters<typeof createGuardrailServer>[0]['validator'] },
) {
  const lines: Record<string, unknown>[] = [];
  const server = createGuardrailServer({
    port: 0,
    workers: 1,
    queueTimeoutMs: 120_000,
    logger: { destination: { write: (l) => void lines.push(JSON.parse(l)) } },
    ...options,
  });
  servers.push(server);
  const send = (body: unknown) =>
    server.app.inject({
      method: 'POST',
      url: '/v1/validate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const engines = () => lines.filter((l) => l.msg === 'request completed' && l.route === '/v1/validate').map((l) => l.engine);
  return { server, send, engines };
}

describe('inline routing', { timeout: 120_000 }, () => {
  it('answers a small request in the event loop and a large one through the pool, with the same decisions', async () => {
    const { send, engines } = serve({ validator: createGuardrailEngine({ budget: { timeMs: 120_000 } }), inlineMaxBytes: 4096 });
    const small = toolCall('send_email', { to: 'jane.doe@example.com', body: 'SSN 123-45-6789' });
    const large = toolCall('send_email', { to: 'jane.doe@example.com', body: `SSN 123-45-6789 ${'filler text '.repeat(600)}` });
    expect(JSON.stringify(small).length).toBeLessThanOrEqual(4096);
    expect(JSON.stringify(large).length).toBeGreaterThan(4096);
    const a = await send(small);
    const b = await send(large);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(engines()).toEqual(['inline', 'worker']);
    // Both detect the SSN the same way.
    expect(a.json().decision).toBe(b.json().decision);
    expect(a.json().reason_code).toBe(b.json().reason_code);
    expect(a.json().findings.map((f: { type: string }) => f.type)).toEqual(b.json().findings.map((f: { type: string }) => f.type));
  });

  it('a body exactly at the limit is inline; one byte over goes to the pool; 0 sends everything to the pool', async () => {
    const req = toolCall('lookup', { q: 'hello' });
    const size = Buffer.byteLength(JSON.stringify(req));
    const at = serve({ validator: createGuardrailEngine(), inlineMaxBytes: size });
    await at.send(req);
    expect(at.engines()).toEqual(['inline']);
    const over = serve({ validator: createGuardrailEngine(), inlineMaxBytes: size - 1 });
    await over.send(req);
    expect(over.engines()).toEqual(['worker']);
    const none = serve({ validator: createGuardrailEngine(), inlineMaxBytes: 0 });
    expect((await none.send(req)).json()).toMatchObject({ decision: 'ALLOW' });
    expect(none.engines()).toEqual(['worker']);
  });

  it('a slow inline request is still bounded by the engine budget: BLOCK PAYLOAD_TOO_COMPLEX', async () => {
    // A clock that jumps a second per reading: the first budget check is past the 500 ms budget.
    let t = 0;
    const { send, engines } = serve({ validator: createGuardrailEngine({ now: () => (t += 1000) }) });
    const req = toolCall('lookup', { body: 'mail user@example.com or call +1 415 555 1000' });
    const res = await send(req);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ action_id: req.action_id, decision: 'BLOCK', reason_code: 'PAYLOAD_TOO_COMPLEX', findings: [] });
    expect(engines()).toEqual(['inline']);
  });

  it('bad JSON and invalid requests get the same 400s inline as through the pool', async () => {
    const inline = serve({ validator: createGuardrailEngine() });
    const pooled = serve({ validator: createGuardrailEngine(), inlineMaxBytes: 0 });
    for (const payload of ['{"a":', '{"action_id": 1}', `${'['.repeat(100)}${']'.repeat(100)}`]) {
      const [a, b] = await Promise.all(
        [inline, pooled].map((s) =>
          s.server.app.inject({ method: 'POST', url: '/v1/validate', headers: { 'content-type': 'application/json' }, payload }),
        ),
      );
      expect(a!.statusCode).toBe(400);
      expect(a!.json()).toEqual(b!.json());
    }
  });

  it('rejects a bad inlineMaxBytes', () => {
    expect(() => createGuardrailServer({ validator: createGuardrailEngine(), inlineMaxBytes: -1 })).toThrow(GuardrailHttpConfigError);
    expect(() => createGuardrailServer({ validator: createGuardrailEngine(), inlineMaxBytes: 1.5 })).toThrow(
      /inlineMaxBytes must be an integer from 0 to 1048576/,
    );
  });
});
