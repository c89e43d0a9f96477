import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, offlineEnv, runCli, startServe } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';
const TOKENS = join(dir, 'tokens.yml');
writeFileSync(
  TOKENS,
  `tokens:
  - token: ${ACME}
    tenant: acme-retail
    subject: agent-7
    roles: [support_agent]
  - token: ${GLOBEX}
    tenant: globex
    subject: agent-9
    roles: [support_agent]
`,
);

describe('baton serve', () => {
  it('serves runs over HTTP and shuts down cleanly on SIGTERM', async () => {
    const server = await startServe(
      ['--port', '0', '--agents', join(EXAMPLES, 'agents'), '--store', join(dir, 's.db'), '--auth-tokens', TOKENS],
      { env: offlineEnv() },
    );
    try {
      const url = server.url;
      expect(server.output().stdout).toContain('(model: offline model)');
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
      const res = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
          // The examples hand off through purpose-bound packets, which need an authenticated caller.
          authorization: `Bearer ${ACME}`,
        },
        body: JSON.stringify({ agent_id: 'io.baton.examples.triage', input: 'Refund for case CASE-1001, please.' }),
      });
      expect(res.status).toBe(200);
      const result = (await res.json()) as { agent_id: string; thread_id: string; trace_id: string };
      expect(result.agent_id).toBe('io.baton.examples.refunds');
      expect(result.trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      const read = (token: string) => fetch(`${url}/v1/threads/${result.thread_id}`, { headers: { authorization: `Bearer ${token}` } });
      const thread = (await (await read(ACME)).json()) as { runs: unknown[]; state: Record<string, unknown> };
      expect(thread.runs).toHaveLength(2);
      expect(thread.state).toMatchObject({ order_id: 'ORD-73914' });
      // Another tenant's token sees no such thread; no token is refused.
      const other = await read(GLOBEX);
      expect(other.status).toBe(404);
      expect(await other.text()).not.toContain('ORD-73914');
      expect((await fetch(`${url}/v1/threads/${result.thread_id}`)).status).toBe(401);
      expect(server.output().stderr).toMatch(/caller identity: per-caller bearer tokens/);
      expect(await server.stop()).toBe(0);
    } finally {
      server.kill();
    }
  }, 180_000);

  it('refuses a non-loopback host without a token, a bad port and bad auth options, with exit 2', async () => {
    const agents = ['--agents', join(EXAMPLES, 'agents')];
    writeFileSync(join(dir, 'bad-tokens.yml'), 'tokens:\n  - token: short\n    tenant: a\n    subject: b\n    roles: [r]\n');
    const [open, port, both, badFile, missingFile, headersOff, lease] = await Promise.all([
      runCli(['serve', '--host', '0.0.0.0', '--port', '0', ...agents, '--store', join(dir, 't.db')], { env: offlineEnv() }),
      runCli(['serve', '--port', 'eighty'], { env: offlineEnv() }),
      runCli(['serve', '--port', '0', ...agents, '--store', join(dir, 'u.db'), '--auth-tokens', TOKENS, '--trust-identity-headers'], {
        env: offlineEnv(),
      }),
      runCli(['serve', '--port', '0', ...agents, '--store', join(dir, 'v.db'), '--auth-tokens', join(dir, 'bad-tokens.yml')], {
        env: offlineEnv(),
      }),
      runCli(['serve', '--port', '0', ...agents, '--store', join(dir, 'w.db'), '--auth-tokens', join(dir, 'none.yml')], {
        env: offlineEnv(),
      }),
      runCli(['serve', '--host', '0.0.0.0', '--port', '0', ...agents, '--store', join(dir, 'x.db'), '--trust-identity-headers'], {
        env: offlineEnv(),
      }),
      runCli(['serve', '--port', '0', ...agents, '--queue', 'redis://127.0.0.1:1', '--lock-lease', '0'], { env: offlineEnv() }),
    ]);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/set a bearer token/);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be an integer/);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--auth-tokens and --trust-identity-headers are alternatives/);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toMatch(/bad-tokens\.yml: tokens\[0\]: "token" must be at least 16 characters/);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/none\.yml: no such file/);
    // Identity headers off loopback need the proxy's token.
    expect(headersOff.code).toBe(2);
    expect(headersOff.stderr).toMatch(/set a bearer token/);
    // The producer's view of the workers' lease (approvals retries wait it) is checked before Redis is.
    expect(lease.code).toBe(2);
    expect(lease.stderr).toMatch(/--lock-lease must be a positive integer; got "0"/);
  }, 180_000);
});
