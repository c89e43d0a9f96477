// JWT callers checked against a JWKS (issue 14): only a token signed by a listed key, for this
// issuer and audience, unexpired, with identity claims, names a caller; tenancy as for tokens.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtAuthenticator, createRunnerServer, type RunnerServer } from '../../src/http/index.js';
import { createMemoryThreadStore, type RunRequest, type RunResult } from '../../src/index.js';

const ISSUER = 'https://id.example.test/';
const AUDIENCE = 'baton-runner';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let privateKey: SigningKey;
let otherKey: SigningKey;
let jwk: JWK;
let jwksServer: Server;
let jwksUrl: string;
let server: RunnerServer;
let url: string;
const store = createMemoryThreadStore();
const seen: RunRequest[] = [];

const sign = (
  claims: Record<string, unknown>,
  opts: { key?: SigningKey; kid?: string; iss?: string; aud?: string; exp?: string | number } = {},
) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: opts.kid ?? 'k1' })
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(opts.key ?? privateKey);

const identity = { sub: 'alice', tenant: 'acme', roles: ['support_agent'], cases: ['CASE-1'] };

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('ES256')).privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwksServer = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', () => r()));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
  const runner = {
    run: async (request: RunRequest): Promise<RunResult> => {
      seen.push(request);
      const thread = await store.createThread({ ...(request.auth?.tenant ? { tenant: request.auth.tenant } : {}) });
      return {
        thread_id: thread.id,
        runs: [],
        run_id: '',
        agent_id: request.agentId,
        status: 'completed',
        response: 'ok',
        state: {},
        guardrail_decisions: [],
        trace_id: '0'.repeat(32),
        model: 'none',
      };
    },
  };
  server = createRunnerServer({
    runner,
    store,
    port: 0,
    authenticator: createJwtAuthenticator({ jwks: new URL(jwksUrl), issuer: ISSUER, audience: AUDIENCE }),
  });
  url = (await server.listen()).url;
});
afterAll(async () => {
  await server.close();
  await new Promise((r) => jwksServer.close(r));
});

const post = (token: string) =>
  fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ agent_id: 'a.b', input: 'x' }),
  });

describe('JWT caller identity (--auth-jwks)', () => {
  it('takes tenant, subject, roles and cases from a verified token', async () => {
    const res = await post(await sign(identity));
    expect(res.status).toBe(200);
    expect(seen.at(-1)?.auth).toEqual({ tenant: 'acme', subject: 'alice', roles: ['support_agent'], allowedCases: ['CASE-1'] });
    // Space-separated roles (an OAuth scope-style claim) work too.
    expect((await post(await sign({ ...identity, roles: 'a b' }))).status).toBe(200);
    expect(seen.at(-1)?.auth?.roles).toEqual(['a', 'b']);
  });

  it('refuses every token that does not verify with 401, and never runs', async () => {
    const before = seen.length;
    const good = await sign(identity);
    const [h, p] = good.split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    const bad = [
      await sign(identity, { key: otherKey }),
      await sign(identity, { iss: 'https://evil.example/' }),
      await sign(identity, { aud: 'someone-else' }),
      await sign(identity, { exp: Math.floor(Date.now() / 1000) - 3600 }),
      await sign(identity, { kid: 'unknown' }),
      await sign({ sub: 'alice', roles: ['r'] }),
      await sign({ ...identity, tenant: 'a b' }),
      await sign({ ...identity, roles: [] }),
      unsigned,
      `${h}.${p}.${'A'.repeat(86)}`,
      'not-a-jwt',
    ];
    for (const token of bad) {
      const res = await post(token);
      expect(res.status, token.slice(0, 30)).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(seen.length).toBe(before);
  });

  it('keeps threads per tenant: another tenant’s token reads a 404', async () => {
    const res = (await (await post(await sign(identity))).json()) as { thread_id: string };
    const read = async (claims: Record<string, unknown>) =>
      (await fetch(`${url}/v1/threads/${res.thread_id}`, { headers: { authorization: `Bearer ${await sign(claims)}` } })).status;
    expect(await read(identity)).toBe(200);
    expect(await read({ ...identity, tenant: 'globex' })).toBe(404);
  });

  it('fails closed when the keys cannot be fetched', async () => {
    const s = createRunnerServer({
      runner: { run: async () => ({}) as never },
      store,
      port: 0,
      authenticator: createJwtAuthenticator({
        jwks: new URL('http://127.0.0.1:1/jwks.json'),
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksTimeoutMs: 2_000,
      }),
    });
    const { url: u } = await s.listen();
    const res = await fetch(`${u}/v1/threads/x`, { headers: { authorization: `Bearer ${await sign(identity)}` } });
    expect(res.status).toBe(401);
    await s.close();
  });

  it('refuses unsafe configurations', () => {
    expect(() => createJwtAuthenticator({ jwks: new URL('http://id.example.test/jwks'), issuer: ISSUER, audience: AUDIENCE })).toThrow(
      /must use https/,
    );
    expect(() => createJwtAuthenticator({ jwks: { keys: [jwk] }, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })).toThrow(
      /asymmetric/,
    );
    expect(() => createJwtAuthenticator({ jwks: { keys: [jwk] }, issuer: '', audience: AUDIENCE })).toThrow(/issuer is required/);
    expect(() => createJwtAuthenticator({ jwks: { keys: [jwk] }, issuer: ISSUER, audience: '' })).toThrow(/audience is required/);
  });
});
