// GET /v1/runs/:run_id (red team): another tenant's run and a missing one take the same path
// through the store (the same reads, in the same order), so neither the answer nor the work
// done tells them apart; odd ids (encoded, reserved words, very long, unicode, `..`) are a
// plain run_not_found; HEAD and OPTIONS do not open another way in.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunnerServer, createTokenAuthenticator, parseTokensFile, type RunnerServer } from '../../src/http/index.js';
import { createMemoryThreadStore, type ThreadStore } from '../../src/index.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN_A = 'tenant-a-token-0123456789';
const TOKEN_B = 'tenant-b-token-0123456789';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKENS = `
tokens:
  - token_sha256: ${sha(TOKEN_A)}
    tenant: acme
    subject: alice
    roles: [support_agent]
  - token_sha256: ${sha(TOKEN_B)}
    tenant: globex
    subject: bob
    roles: [support_agent]
`;

/** The store's read calls, by method name, in order (arguments left out). */
function recording(store: ThreadStore): { store: ThreadStore; calls: string[] } {
  const calls: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push(key);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, calls };
}

describe('GET /v1/runs/:run_id lookups', () => {
  let server: RunnerServer;
  let url: string;
  let calls: string[];
  let runId: string;
  beforeAll(async () => {
    const base = createMemoryThreadStore();
    const thread = await base.createThread({ tenant: 'acme' });
    runId = (await base.createRun(thread.id, { agentId: 'io.test.triage', agentVersion: '1.0.0', status: 'completed' })).id;
    const rec = recording(base);
    calls = rec.calls;
    server = createRunnerServer({
      runner: { run: () => Promise.reject(new Error('not used')) },
      store: rec.store,
      port: 0,
      authenticator: createTokenAuthenticator({ tokens: parseTokensFile(TOKENS, 'tokens.yml') }),
    });
    url = (await server.listen()).url;
  });
  afterAll(() => server?.close());

  const get = async (path: string, token = TOKEN_A, method = 'GET') => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as { error?: { code: string; message: string } }) : undefined };
  };

  it("reads the store the same way for another tenant's run as for a missing one", async () => {
    expect((await get(`/v1/runs/${runId}`)).status).toBe(200);
    calls.length = 0;
    const foreign = await get(`/v1/runs/${runId}`, TOKEN_B);
    const foreignCalls = calls.splice(0);
    const missing = await get(`/v1/runs/run_${'0'.repeat(32)}`, TOKEN_B);
    const missingCalls = calls.splice(0);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body?.error?.code).toBe('run_not_found');
    expect(missing.body?.error?.code).toBe('run_not_found');
    expect(foreignCalls).toEqual(missingCalls);
  });

  it('answers odd ids with run_not_found, never a 5xx or another shape', async () => {
    for (const id of [
      '__proto__',
      'constructor',
      // (`..` and `%2E%2E` are resolved away by the client's URL parser before sending.)
      '..%2F..',
      '%00',
      encodeURIComponent('run/../x'),
      encodeURIComponent('ран_🙂'),
      'r'.repeat(200),
      'r'.repeat(201),
      encodeURIComponent(' '),
    ]) {
      const res = await get(`/v1/runs/${id}`);
      expect(res.status, id.slice(0, 40)).toBe(404);
      expect(res.body?.error?.code, id.slice(0, 40)).toBe('run_not_found');
    }
  });

  it("answers an id past the router's limit or a broken escape with a short 400, before and without auth", async () => {
    for (const [id, token] of [
      ['r'.repeat(300), TOKEN_A],
      ['r'.repeat(12_000), TOKEN_A],
      ['r'.repeat(12_000), 'wrong-token-0123456789'],
      ['%ZZ', TOKEN_A],
    ] as const) {
      const res = await get(`/v1/runs/${id}`, token);
      expect(res.status).toBe(400);
      expect(res.body?.error?.code).toBe('bad_request');
      // The request line is not echoed whole.
      expect(res.body!.error!.message.length).toBeLessThan(400);
    }
  });

  it('HEAD and OPTIONS open no other way in', async () => {
    expect((await get(`/v1/runs/${runId}`, 'wrong-token-0123456789', 'HEAD')).status).toBe(401);
    expect((await get(`/v1/runs/${runId}`, TOKEN_B, 'HEAD')).status).toBe(404);
    expect((await get(`/v1/runs/${runId}`, TOKEN_A, 'HEAD')).status).toBe(200);
    const options = await get(`/v1/runs/${runId}`, TOKEN_B, 'OPTIONS');
    expect(options.status).toBe(404);
    expect(JSON.stringify(options.body)).not.toContain('io.test.triage');
  });
});
