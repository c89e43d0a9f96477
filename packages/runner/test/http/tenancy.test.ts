// Identity and tenancy on the runner HTTP service (issue 14): identity from a verified credential,
// threads owned by the tenant that created them, no existence oracle across tenants.
import { createHash } from 'node:crypto';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CHOOSE_THREAD_ID_ROLE,
  createRunnerServer,
  createTokenAuthenticator,
  createTrustedHeaderAuthenticator,
  parseTokensFile,
  type RunnerLike,
  type RunnerServer,
} from '../../src/http/index.js';
import {
  createMemoryThreadStore,
  loadAgentRegistry,
  Runner,
  ThreadNotFoundError,
  type RunRequest,
  type ThreadStore,
} from '../../src/index.js';
import { OfflineModelProvider } from '../../src/models/offline-model.js';
import { parseScenario } from '../../src/models/scenario-loader.js';
import { testTools, writeTwoAgents } from '../wire/fixtures.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const SCENARIO = parseScenario(`
version: 1
name: tenancy
agents:
  io.test.triage:
    rules:
      - message: 'Noted.'
  io.test.refunds:
    rules:
      - message: 'ok'
`);

const TOKEN_A = 'tenant-a-token-0123456789';
const TOKEN_B = 'tenant-b-token-0123456789';
const TOKEN_C = 'tenant-c-token-0123456789';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

const TOKENS_FILE = `
tokens:
  - token_sha256: ${sha(TOKEN_A)}
    tenant: acme
    subject: alice
    roles: [support_agent]
    cases: [CASE-1, CASE-2]
  - token: ${TOKEN_B}
    tenant: globex
    subject: bob
    roles: [support_agent]
  - token: ${TOKEN_C}
    tenant: initech
    subject: carol
    roles: [support_agent, "${CHOOSE_THREAD_ID_ROLE}"]
`;

interface Started {
  server: RunnerServer;
  url: string;
  store: ThreadStore;
  seen: RunRequest[];
  close(): Promise<void>;
}

async function start(options: Partial<Parameters<typeof createRunnerServer>[0]> = {}): Promise<Started> {
  const agents = writeTwoAgents();
  const store = createMemoryThreadStore();
  const inner = new Runner({
    registry: await loadAgentRegistry({ dir: agents.dir }),
    tools: testTools,
    guardrails: createGuardrailEngine(),
    store,
    modelProvider: new OfflineModelProvider(SCENARIO),
  });
  const seen: RunRequest[] = [];
  // Records what the service hands the runner (the caller's RunAuth), then runs it for real.
  const runner: RunnerLike = { run: (request) => (seen.push(request), inner.run(request)) };
  const server = createRunnerServer({ runner, store, port: 0, ...options });
  const { url } = await server.listen();
  return {
    server,
    url,
    store,
    seen,
    close: async () => {
      await server.close();
      agents.cleanup();
    },
  };
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });

describe('runner service with per-caller tokens (--auth-tokens)', () => {
  let s: Started;
  const post = (token: string | undefined, body: unknown) =>
    fetch(`${s.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const get = (token: string | undefined, id: string) =>
    fetch(`${s.url}/v1/threads/${id}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    s = await start({ authenticator: createTokenAuthenticator({ tokens: parseTokensFile(TOKENS_FILE, 'tokens.yml') }) });
  });
  afterAll(() => s.close());

  it('gives each run the identity of its token, cases as RunAuth.allowedCases', async () => {
    const res = await json(await post(TOKEN_A, { agent_id: 'io.test.triage', input: 'hello' }));
    expect(res.status).toBe(200);
    expect(s.seen.at(-1)?.auth).toEqual({ tenant: 'acme', subject: 'alice', roles: ['support_agent'], allowedCases: ['CASE-1', 'CASE-2'] });
    expect((await s.store.getThread(res.body.thread_id as string))?.tenant).toBe('acme');
    await post(TOKEN_B, { agent_id: 'io.test.triage', input: 'hello' });
    expect(s.seen.at(-1)?.auth).toEqual({ tenant: 'globex', subject: 'bob', roles: ['support_agent'] });
  });

  it('refuses a missing or unknown token with 401 and never runs', async () => {
    const before = s.seen.length;
    for (const token of [undefined, 'not-a-known-token-at-all', `${TOKEN_A}x`, TOKEN_A.slice(0, -1)]) {
      const res = await json(await post(token, { agent_id: 'io.test.triage', input: 'x' }));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      expect((await get(token, 'thread_x')).status).toBe(401);
    }
    expect(s.seen.length).toBe(before);
  });

  it("answers another tenant's thread exactly as a thread that does not exist, for reads and runs", async () => {
    const mine = await json(await post(TOKEN_A, { agent_id: 'io.test.triage', input: 'my customer data' }));
    const id = mine.body.thread_id as string;
    expect((await get(TOKEN_A, id)).status).toBe(200);

    const theirs = await json(await get(TOKEN_B, id));
    const missing = await json(await get(TOKEN_B, 'thread_00000000000000000000000000000000'));
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(theirs.body)).not.toContain('customer');
    // Same code, same message shape: only the id differs.
    expect(theirs.body).toEqual({ error: { code: 'thread_not_found', message: `thread ${JSON.stringify(id)} does not exist` } });
    expect(missing.body).toEqual({
      error: { code: 'thread_not_found', message: 'thread "thread_00000000000000000000000000000000" does not exist' },
    });

    const before = s.seen.length;
    const run = await json(await post(TOKEN_B, { agent_id: 'io.test.triage', input: 'let me in', thread_id: id }));
    expect(run).toEqual({
      status: 404,
      body: { error: { code: 'thread_not_found', message: `thread ${JSON.stringify(id)} does not exist` } },
    });
    expect(s.seen.length).toBe(before);
    // Nothing was added to the owner's thread.
    const items = await s.store.listItems(id);
    expect(items.some((i) => JSON.stringify(i.item).includes('let me in'))).toBe(false);
  });

  it('generates thread ids unless the caller holds the choose-thread-id role', async () => {
    const refused = await json(await post(TOKEN_A, { agent_id: 'io.test.triage', input: 'x', thread_id: 'customer-42' }));
    expect(refused).toEqual({ status: 404, body: { error: { code: 'thread_not_found', message: 'thread "customer-42" does not exist' } } });
    expect(await s.store.getThread('customer-42')).toBeUndefined();

    const chosen = await json(await post(TOKEN_C, { agent_id: 'io.test.triage', input: 'x', thread_id: 'customer-42' }));
    expect(chosen.status).toBe(200);
    expect(chosen.body.thread_id).toBe('customer-42');
    expect((await s.store.getThread('customer-42'))?.tenant).toBe('initech');
    // Choosing an id never reaches into another tenant's thread.
    const squat = await json(await post(TOKEN_A, { agent_id: 'io.test.triage', input: 'x', thread_id: 'customer-42' }));
    expect(squat.status).toBe(404);
    // A caller without the role continues its own threads by id.
    const own = await json(await post(TOKEN_A, { agent_id: 'io.test.triage', input: 'x' }));
    const again = await json(await post(TOKEN_A, { agent_id: 'io.test.triage', input: 'y', thread_id: own.body.thread_id }));
    expect(again.status).toBe(200);
    expect(again.body.thread_id).toBe(own.body.thread_id);
  });

  it('answers GET /v1/threads/ (empty id) and odd ids with 4xx JSON errors, never 500', async () => {
    const cases: Array<[string, number, string]> = [
      ['/v1/threads/', 404, 'thread_not_found'],
      ['/v1/threads/%00', 404, 'thread_not_found'],
      [`/v1/threads/${'a'.repeat(250)}`, 404, 'thread_not_found'],
      [`/v1/threads/${'a'.repeat(300)}`, 400, 'bad_request'],
      ['/v1/threads/%E0%A4%A', 400, 'bad_request'],
    ];
    for (const [path, status, code] of cases) {
      const res = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN_A}` } });
      expect(res.status, path).toBe(status);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    // A 200-character id (the longest a thread may have) is readable.
    const long = 'L'.repeat(200);
    await s.store.createThread({ id: long, tenant: 'acme' });
    expect((await fetch(`${s.url}/v1/threads/${long}`, { headers: { authorization: `Bearer ${TOKEN_A}` } })).status).toBe(200);
  });

  it('refuses X-Baton-* headers as a way to change tenant (the token decides)', async () => {
    const res = await fetch(`${s.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN_A}`, 'x-baton-tenant': 'globex' },
      body: JSON.stringify({ agent_id: 'io.test.triage', input: 'x' }),
    });
    // The tokens authenticator ignores the header: the run is acme's.
    expect(res.status).toBe(200);
    const body = (await res.json()) as { thread_id: string };
    expect((await s.store.getThread(body.thread_id))?.tenant).toBe('acme');
  });
});

describe('runner service without an identity source (single-tenant default)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(() => s.close());

  it('refuses identity headers with 400 instead of letting a caller pick a tenant', async () => {
    const res = await json(
      await fetch(`${s.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-baton-tenant': 'acme', 'x-baton-subject': 'a', 'x-baton-roles': 'r' },
        body: JSON.stringify({ agent_id: 'io.test.triage', input: 'x' }),
      }),
    );
    expect(res.status).toBe(400);
    expect((res.body.error as { code: string }).code).toBe('invalid_auth');
    expect(s.seen).toHaveLength(0);
    const get = await fetch(`${s.url}/v1/threads/t1`, { headers: { 'x-baton-tenant': 'acme' } });
    expect(get.status).toBe(400);
  });

  it('runs as the anonymous caller: no tenant on the thread, client-chosen ids allowed', async () => {
    const res = await json(
      await fetch(`${s.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: 'io.test.triage', input: 'x', thread_id: 'my-thread' }),
      }),
    );
    expect(res.status).toBe(200);
    expect(s.seen.at(-1)?.auth).toBeUndefined();
    const thread = await s.store.getThread('my-thread');
    expect(thread?.tenant).toBeUndefined();
    expect((await fetch(`${s.url}/v1/threads/my-thread`)).status).toBe(200);
    // A tenant's thread in the same store is invisible to the anonymous caller.
    await s.store.createThread({ id: 'owned-elsewhere', tenant: 'acme', state: { secret: 1 } });
    expect((await fetch(`${s.url}/v1/threads/owned-elsewhere`)).status).toBe(404);
  });
});

describe('runner service behind an authenticating proxy (--trust-identity-headers)', () => {
  let s: Started;
  const PROXY = 'proxy-token-0123456789abcdef';
  beforeAll(async () => {
    s = await start({ authenticator: createTrustedHeaderAuthenticator(), token: PROXY });
  });
  afterAll(() => s.close());
  const post = (headers: Record<string, string>) =>
    fetch(`${s.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${PROXY}`, ...headers },
      body: JSON.stringify({ agent_id: 'io.test.triage', input: 'x' }),
    });

  it('takes the identity from the headers the proxy sets', async () => {
    const res = await post({ 'x-baton-tenant': 'acme', 'x-baton-subject': 'alice', 'x-baton-roles': 'a, b', 'x-baton-cases': 'CASE-1' });
    expect(res.status).toBe(200);
    expect(s.seen.at(-1)?.auth).toEqual({ tenant: 'acme', subject: 'alice', roles: ['a', 'b'], allowedCases: ['CASE-1'] });
  });

  it('refuses a missing identity (401), a partial or malformed one (400)', async () => {
    expect((await post({})).status).toBe(401);
    const partial = await json(await post({ 'x-baton-tenant': 'acme' }));
    expect(partial).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_auth',
          message: 'X-Baton-Tenant, X-Baton-Subject and X-Baton-Roles go together; missing X-Baton-Subject, X-Baton-Roles',
        },
      },
    });
    const bad = await json(await post({ 'x-baton-tenant': 'ac me', 'x-baton-subject': 'a', 'x-baton-roles': 'r' }));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain('ac me');
  });

  it('still needs the proxy token', async () => {
    const res = await fetch(`${s.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-baton-tenant': 'acme', 'x-baton-subject': 'alice', 'x-baton-roles': 'a' },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });

  it('refuses to listen off loopback without the proxy token', () => {
    const store = createMemoryThreadStore();
    expect(() =>
      createRunnerServer({
        runner: { run: async () => ({}) as never },
        store,
        host: '0.0.0.0',
        authenticator: createTrustedHeaderAuthenticator(),
      }),
    ).toThrow(/set a bearer token/);
    // Per-caller tokens are a credential: no shared token needed (and none allowed beside them).
    const tokens = createTokenAuthenticator({ tokens: parseTokensFile(TOKENS_FILE, 'tokens.yml') });
    expect(() =>
      createRunnerServer({ runner: { run: async () => ({}) as never }, store, host: '0.0.0.0', authenticator: tokens }),
    ).not.toThrow();
    expect(() => createRunnerServer({ runner: { run: async () => ({}) as never }, store, token: PROXY, authenticator: tokens })).toThrow(
      /cannot be combined/,
    );
  });
});

describe('tokens file', () => {
  it('names the entry and field of every problem, never the token', () => {
    const bad: Array<[string, RegExp]> = [
      ['tokens: []', /"tokens" is empty/],
      ['nope: 1', /expected an object with a "tokens" list/],
      ['tokens:\n  - token: short\n    tenant: a\n    subject: b\n    roles: [r]', /tokens\[0\]: "token" must be at least 16/],
      [
        `tokens:\n  - token: ${TOKEN_A}\n    token_sha256: ${sha(TOKEN_A)}\n    tenant: a\n    subject: b\n    roles: [r]`,
        /exactly one of/,
      ],
      [
        `tokens:\n  - token: ${TOKEN_A}\n    tenant: a\n    subject: b\n    roles: [r]\n  - token_sha256: ${sha(TOKEN_A)}\n    tenant: c\n    subject: d\n    roles: [r]`,
        /tokens\[1\]: the same token is listed twice/,
      ],
      [`tokens:\n  - token: ${TOKEN_A}\n    tenant: "a b"\n    subject: b\n    roles: [r]`, /tokens\[0\]: tenant must be/],
      [`tokens:\n  - token: ${TOKEN_A}\n    tenant: a\n    subject: b\n    roles: []`, /roles must list at least one/],
      [`tokens:\n  - token: ${TOKEN_A}\n    tenant: a\n    subject: b\n    roles: [r]\n    admin: true`, /unknown key "admin"/],
      [`tokens:\n  - token: ${TOKEN_A}\n    tenant: a\n    subject: b\n    roles: [r]\n    cases: CASE-1`, /cases must be a list/],
      ['{"tokens": [1]}', /tokens\[0\] must be an object/],
      ['a: &x [1]\nb: *x', /not valid YAML or JSON|expected an object/],
    ];
    for (const [text, message] of bad) {
      expect(() => parseTokensFile(text, 'tokens.yml'), text).toThrow(message);
      try {
        parseTokensFile(text, 'tokens.yml');
      } catch (error) {
        expect((error as Error).message).not.toContain(TOKEN_A);
        expect((error as { code?: string }).code).toBe('RUNNER_HTTP_CONFIG');
      }
    }
  });

  it('accepts JSON too', () => {
    const parsed = parseTokensFile(JSON.stringify({ tokens: [{ token: TOKEN_A, tenant: 'a', subject: 'b', roles: ['r'] }] }), 't.json');
    expect(parsed[0]?.identity).toEqual({ tenant: 'a', subject: 'b', roles: ['r'] });
    expect(parsed[0]?.digest.toString('hex')).toBe(sha(TOKEN_A));
  });
});

describe('Runner: a thread belongs to the tenant that created it', () => {
  it('refuses a run on another tenant’s thread with ThreadNotFoundError and changes nothing', async () => {
    const agents = writeTwoAgents();
    const store = createMemoryThreadStore();
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: new OfflineModelProvider(SCENARIO),
    });
    const first = await runner.run({ agentId: 'io.test.triage', input: 'hi', auth: { tenant: 'acme', subject: 'a', roles: ['r'] } });
    expect((await store.getThread(first.thread_id))?.tenant).toBe('acme');
    const runsBefore = (await store.listRuns(first.thread_id)).length;
    for (const auth of [{ tenant: 'globex', subject: 'b', roles: ['r'] }, undefined]) {
      await expect(
        runner.run({ agentId: 'io.test.triage', input: 'x', threadId: first.thread_id, ...(auth ? { auth } : {}) }),
      ).rejects.toBeInstanceOf(ThreadNotFoundError);
    }
    expect((await store.listRuns(first.thread_id)).length).toBe(runsBefore);
    // An unowned thread is refused to a tenant too.
    const anon = await runner.run({ agentId: 'io.test.triage', input: 'hi' });
    await expect(
      runner.run({ agentId: 'io.test.triage', input: 'x', threadId: anon.thread_id, auth: { tenant: 'acme' } }),
    ).rejects.toMatchObject({ code: 'STORE_THREAD_NOT_FOUND' });
    agents.cleanup();
  });
});

describe('runner service: a trickling request body', () => {
  it('is cut off with 408 request_timeout in the service’s JSON shape', async () => {
    const { connect } = await import('node:net');
    const store = createMemoryThreadStore();
    const server = createRunnerServer({ runner: { run: async () => ({}) as never }, store, port: 0, requestTimeoutMs: 1_000 });
    const { port } = await server.listen();
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"agent_id":');
      });
      let text = '';
      // Keep trickling a byte now and then; the server must end it, not the client.
      const drip = setInterval(() => socket.writable && socket.write(' '), 200);
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(drip);
        resolve(text);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'request_timeout', message: 'the request was not received in time' },
    });
    await server.close();
  });
});
