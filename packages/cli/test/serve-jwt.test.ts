// `baton serve --auth-jwks`: bearer JWTs verified against a JWKS file; the tenant comes from the
// token's claims. Tokens are signed here with node:crypto (ES256, JOSE signature encoding).
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, offlineEnv, runCli, startServe } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-jwt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const JWKS = join(dir, 'jwks.json');
writeFileSync(JWKS, JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }] }));
const ISSUER = 'https://id.example.test/';
const AUDIENCE = 'baton';

function jwt(claims: Record<string, unknown>): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64({ alg: 'ES256', kid: 'k1', typ: 'JWT' })}.${b64({ iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 300, ...claims })}`;
  return `${body}.${sign('sha256', Buffer.from(body), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('baton serve --auth-jwks', () => {
  it('runs for a verified token, keeps its thread from other tenants, refuses bad tokens', async () => {
    const args = [
      '--port',
      '0',
      '--agents',
      join(EXAMPLES, 'agents'),
      '--store',
      join(dir, 's.db'),
      '--auth-jwks',
      JWKS,
      '--auth-issuer',
      ISSUER,
      '--auth-audience',
      AUDIENCE,
      '--auth-tenant-claim',
      'org',
    ];
    const server = await startServe(args, { env: offlineEnv() });
    try {
      const url = server.url;
      const acme = jwt({ sub: 'agent-7', org: 'acme-retail', roles: ['support_agent'] });
      const res = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${acme}` },
        body: JSON.stringify({ agent_id: 'io.baton.examples.triage', input: 'Hello there.' }),
      });
      expect(res.status).toBe(200);
      const { thread_id } = (await res.json()) as { thread_id: string };
      const read = (token: string) => fetch(`${url}/v1/threads/${thread_id}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await read(acme)).status).toBe(200);
      expect((await read(jwt({ sub: 'x', org: 'globex', roles: ['support_agent'] }))).status).toBe(404);
      expect((await read(jwt({ sub: 'x', org: 'acme-retail', roles: ['r'], aud: 'other' }))).status).toBe(401);
      expect((await read(`${acme.slice(0, -4)}AAAA`)).status).toBe(401);
      expect(server.output().stderr).toMatch(/caller identity: JWTs from https:\/\/id\.example\.test\//);
      expect(await server.stop()).toBe(0);
    } finally {
      server.kill();
    }
  }, 180_000);

  it('refuses incomplete or contradictory JWT options with exit 2', async () => {
    const base = ['serve', '--port', '0', '--agents', join(EXAMPLES, 'agents')];
    const [noIssuer, both, orphan, notHttps] = await Promise.all([
      runCli([...base, '--store', join(dir, 'a.db'), '--auth-jwks', JWKS, '--auth-audience', AUDIENCE], { env: offlineEnv() }),
      runCli(
        [
          ...base,
          '--store',
          join(dir, 'b.db'),
          '--auth-jwks',
          JWKS,
          '--auth-issuer',
          ISSUER,
          '--auth-audience',
          AUDIENCE,
          '--trust-identity-headers',
        ],
        { env: offlineEnv() },
      ),
      runCli([...base, '--store', join(dir, 'c.db'), '--auth-issuer', ISSUER], { env: offlineEnv() }),
      runCli(
        [
          ...base,
          '--store',
          join(dir, 'd.db'),
          '--auth-jwks',
          'http://id.example.test/jwks',
          '--auth-issuer',
          ISSUER,
          '--auth-audience',
          AUDIENCE,
        ],
        { env: offlineEnv() },
      ),
    ]);
    expect([noIssuer.code, both.code, orphan.code, notHttps.code]).toEqual([2, 2, 2, 2]);
    expect(noIssuer.stderr).toMatch(/--auth-jwks needs --auth-issuer and --auth-audience/);
    expect(both.stderr).toMatch(/--auth-jwks and --trust-identity-headers are alternatives/);
    expect(orphan.stderr).toMatch(/--auth-issuer need --auth-jwks/);
    expect(notHttps.stderr).toMatch(/must use https/);
  }, 180_000);
});
