import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, EXAMPLES, offlineEnv, runCli } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('baton serve', () => {
  it('serves runs over HTTP and shuts down cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--agents', join(EXAMPLES, 'agents'), '--store', join(dir, 's.db')], {
      env: offlineEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          const m = /listening on (http:\/\/\S+)/.exec(stdout);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
      });
      expect(stdout).toContain('(model: offline model)');
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
      const res = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
          // The examples hand off through purpose-bound packets, which need an authenticated caller.
          'x-baton-tenant': 'acme-retail',
          'x-baton-subject': 'agent-7',
          'x-baton-roles': 'support_agent',
        },
        body: JSON.stringify({ agent_id: 'io.baton.examples.triage', input: 'Refund for case CASE-1001, please.' }),
      });
      expect(res.status).toBe(200);
      const result = (await res.json()) as { agent_id: string; thread_id: string; trace_id: string };
      expect(result.agent_id).toBe('io.baton.examples.refunds');
      expect(result.trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      const thread = (await (await fetch(`${url}/v1/threads/${result.thread_id}`)).json()) as { runs: unknown[]; state: Record<string, unknown> };
      expect(thread.runs).toHaveLength(2);
      expect(thread.state).toMatchObject({ order_id: 'ORD-73914' });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  }, 180_000);

  it('refuses a non-loopback host without a token, and a bad port, with exit 2', async () => {
    const [open, port] = await Promise.all([
      runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--agents', join(EXAMPLES, 'agents'), '--store', join(dir, 't.db')], { env: offlineEnv() }),
      runCli(['serve', '--port', 'eighty'], { env: offlineEnv() }),
    ]);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/set a bearer token/);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be an integer/);
  }, 180_000);
});
