// Resumable approvals at scale-out, through the commands a user types: `baton serve --queue`
// takes a run that pauses for a human on a `baton worker`, and POST /v1/runs/:run_id/approvals on
// the same serve process resumes it on a worker (the paused state lives in the shared Redis store).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '@baton/queue/testing';
import { BIN, EXAMPLES, offlineEnv, startServe } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-worker-approvals-'));
let redis: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  redis = process.env.REDIS_URL ? { url: process.env.REDIS_URL, stop: async () => undefined } : await startRedisServer();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The scale-out example with the coordinator's delegate_task waiting for a human. */
function scaleOutNeedingApproval(): { agents: string; workspace: string } {
  const root = join(dir, 'scale-out');
  cpSync(join(EXAMPLES, 'scale-out'), root, { recursive: true });
  const yml = join(root, 'agents', 'baton.yml');
  const text = readFileSync(yml, 'utf8');
  const patched = text.replace(
    '    system_tools: [delegate_task]\n',
    '    system_tools: [delegate_task]\n    approval_required_tools: [delegate_task]\n',
  );
  expect(patched).not.toBe(text);
  writeFileSync(yml, patched);
  // The worker.test.ts workspace: one ledger file per ticket, holding only the END marker.
  const workspace = join(dir, 'workspace');
  mkdirSync(join(workspace, 'ledger'), { recursive: true });
  writeFileSync(join(workspace, 'ledger', 'T-1.txt'), 'END\n');
  return { agents: join(root, 'agents'), workspace };
}

describe('baton serve --queue resumes a run paused on a worker', () => {
  it('answers requires_action, then completes the run on a worker once approved, and refuses a second decision', async () => {
    const { agents, workspace } = scaleOutNeedingApproval();
    const queueArgs = ['--queue', redis.url, '--queue-prefix', `appr${Date.now().toString(36)}`];
    const worker = spawn(process.execPath, [BIN, 'worker', ...queueArgs, '--agents', agents, '--workspace', workspace, '--apply-edits'], {
      env: offlineEnv({ OPENAI_AGENTS_DISABLE_TRACING: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let workerOut = '';
    let workerErr = '';
    worker.stdout.on('data', (c: Buffer) => (workerOut += c.toString()));
    worker.stderr.on('data', (c: Buffer) => (workerErr += c.toString()));
    const workerExited = new Promise<number | null>((resolve) => worker.on('close', (code) => resolve(code)));
    const serve = await startServe([...queueArgs, '--port', '0', '--agents', agents]);
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${serve.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
          async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }),
        );
      const paused = await post('/v1/runs', { agent_id: 'io.baton.scaleout.coordinator', input: 'Please record ticket T-1.' });
      expect(paused.status, JSON.stringify(paused.body)).toBe(200);
      expect(paused.body.status, JSON.stringify(paused.body)).toBe('requires_action');
      const action = paused.body.required_action as { run_id: string; approvals: Array<{ id: string; tool_name: string }> };
      expect(action.approvals.map((a) => a.tool_name)).toEqual(['delegate_task']);
      const ledger = join(workspace, 'ledger', 'T-1.txt');
      const before = readFileSync(ledger, 'utf8');
      expect(before).not.toContain('recorded T-1');

      const decisions = action.approvals.map((a) => ({ id: a.id, approve: true }));
      const done = await post(`/v1/runs/${action.run_id}/approvals`, { decisions });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
      expect(done.body.agent_id).toBe('io.baton.scaleout.closer');
      expect(readFileSync(ledger, 'utf8')).toBe(`recorded T-1\n${before}`);
      // The worker did it: its job events name the approvals job.
      expect(workerErr).toMatch(/"kind":"approvals"[^\n]*"event":"completed"/);

      const again = await post(`/v1/runs/${action.run_id}/approvals`, { decisions });
      expect(again.status, JSON.stringify(again.body)).toBe(409);
      expect((again.body.error as { code: string }).code).toBe('APPROVAL_CONFLICT');
      const unknown = await post('/v1/runs/run_nope/approvals', { decisions: [] });
      expect(unknown.status).toBe(404);
      expect(await serve.stop()).toBe(0);
    } finally {
      serve.kill();
      worker.kill('SIGTERM');
      await workerExited;
      expect(workerOut).toMatch(/baton worker: ready as/);
    }
  }, 300_000);
});
