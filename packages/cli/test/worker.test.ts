// `baton worker` + `baton serve --queue` against a real Redis server: several worker processes,
// one killed with SIGKILL while it holds jobs. Its jobs complete on the others, and nothing is
// lost or applied twice (every ticket is recorded in its ledger file exactly once).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '@baton/queue/testing';
import { BIN, EXAMPLES, offlineEnv, runCli } from './run-helpers.js';

const AGENTS = join(EXAMPLES, 'scale-out', 'agents');
const TICKETS = 10;

let redis: { url: string; stop(): Promise<void> };
const dir = mkdtempSync(join(tmpdir(), 'baton-cli-worker-'));
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  redis = process.env.REDIS_URL ? { url: process.env.REDIS_URL, stop: async () => undefined } : await startRedisServer();
}, 60_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Proc {
  child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function start(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: offlineEnv({ OPENAI_AGENTS_DISABLE_TRACING: '1' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const proc: Proc = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) };
  child.stdout.on('data', (c: Buffer) => (proc.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (proc.stderr += c.toString()));
  return proc;
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface JobEvent {
  message: string;
  kind: 'run' | 'task';
  jobId: string;
  attempt: number;
  event: string;
  status?: string;
  parentJobId?: string;
}

function events(proc: Proc): JobEvent[] {
  return proc.stderr
    .split('\n')
    .filter((l) => l.includes('"jobId"'))
    .map((l) => JSON.parse(l) as JobEvent);
}

/** Jobs a worker started and has not finished. */
function inFlight(proc: Proc): JobEvent[] {
  const all = events(proc);
  const done = new Set(all.filter((e) => e.event !== 'started').map((e) => `${e.jobId}/${e.attempt}`));
  return all.filter((e) => e.event === 'started' && !done.has(`${e.jobId}/${e.attempt}`));
}

describe('baton worker and baton serve --queue', () => {
  it('completes every queued run when a worker is SIGKILLed mid-job, applying each edit exactly once', async () => {
    const prefix = `cli${Date.now().toString(36)}`;
    const workspace = join(dir, 'workspace');
    mkdirSync(join(workspace, 'ledger'), { recursive: true });
    for (let i = 1; i <= TICKETS; i++) writeFileSync(join(workspace, 'ledger', `T-${i}.txt`), 'END\n');
    const queueArgs = ['--queue', redis.url, '--queue-prefix', prefix];
    const workers = [0, 1, 2].map(() =>
      start([
        'worker',
        ...queueArgs,
        '--agents',
        AGENTS,
        '--workspace',
        workspace,
        '--apply-edits',
        '--concurrency',
        '3',
        '--task-concurrency',
        '2',
        '--lock-duration',
        '3000',
        '--stalled-interval',
        '1000',
        '--lock-lease',
        '4000',
      ]),
    );
    for (const w of workers) await waitFor('a worker to be ready', () => (/baton worker: ready as/.test(w.stdout) ? true : undefined));
    const serve = start(['serve', ...queueArgs, '--port', '0', '--agents', AGENTS]);
    const url = await waitFor('serve to listen', () => /listening on (http:\/\/\S+)/.exec(serve.stdout)?.[1]);
    expect(serve.stdout).toMatch(/queued on redis:\/\//);

    const responses = Array.from({ length: TICKETS }, (_, i) =>
      fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${'ab'.repeat(16)}-${'0123456789abcdef'}-01` },
        body: JSON.stringify({ agent_id: 'io.baton.scaleout.coordinator', input: `Please record ticket T-${i + 1}.` }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })),
    );

    // Kill a worker at the worst moment: it holds a run whose subtask already applied its edit on
    // a worker (the run then waits for the model's next turn). Its holds expire, another worker
    // retries the run from the start, and the retry must not record that ticket again.
    const victim = await waitFor('a worker holding a run whose subtask finished', () => {
      const finishedParents = new Set(
        workers
          .flatMap(events)
          .filter((e) => e.kind === 'task' && e.event === 'completed')
          .map((e) => e.parentJobId),
      );
      return workers.find((w) => inFlight(w).some((e) => e.kind === 'run' && finishedParents.has(e.jobId)));
    });
    const lost = inFlight(victim);
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBe(null);

    const results = await Promise.all(responses);
    for (const r of results) {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.status).toBe('completed');
      expect(r.body.agent_id).toBe('io.baton.scaleout.closer');
      expect(r.body.trace_id).toBe('ab'.repeat(16));
    }
    // Each ticket's thread state holds that ticket; the subtask reported SUCCESS.
    const tickets = results.map((r) => (r.body.state as Record<string, unknown>).ticket).sort();
    expect(tickets).toEqual(Array.from({ length: TICKETS }, (_, i) => `T-${i + 1}`).sort());
    for (const r of results) expect((r.body.state as Record<string, unknown>).recorded).toBe('SUCCESS');

    // Nothing applied twice: every ledger file has its line exactly once.
    for (let i = 1; i <= TICKETS; i++) expect(readFileSync(join(workspace, 'ledger', `T-${i}.txt`), 'utf8')).toBe(`recorded T-${i}\nEND\n`);
    expect(readdirSync(join(workspace, 'invocations')).length).toBe(TICKETS);

    // The killed worker's jobs were taken over: each finished on a survivor with a later attempt.
    const survivors = workers.filter((w) => w !== victim).flatMap(events);
    for (const job of lost) {
      const finished = survivors.find((e) => e.jobId === job.jobId && e.event === 'completed');
      expect(finished, `job ${job.jobId} (${job.kind}) completed elsewhere`).toBeDefined();
      expect(finished!.attempt).toBeGreaterThan(job.attempt);
    }
    // The run that died mid-run left a crashed run record, visible through the unchanged API.
    expect(lost.some((e) => e.kind === 'run')).toBe(true);
    {
      const threads = await Promise.all(
        results.map(
          async (r) =>
            (await (await fetch(`${url}/v1/threads/${String(r.body.thread_id)}`)).json()) as {
              runs: Array<{ status: string; error: { code: string } | null }>;
            },
        ),
      );
      const crashed = threads.flatMap((t) => t.runs).filter((run) => run.error?.code === 'RUNNER_CRASHED');
      expect(crashed.length).toBeGreaterThanOrEqual(1);
    }

    serve.child.kill('SIGTERM');
    for (const w of workers) if (w !== victim) w.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    for (const w of workers) if (w !== victim) expect(await w.exited).toBe(0);
  }, 180_000);

  it('refuses a worker without --queue, or with a bad Redis URL, with exit 2', async () => {
    const [missing, bad] = await Promise.all([
      runCli(['worker', '--agents', AGENTS]),
      runCli(['worker', '--agents', AGENTS, '--queue', 'http://localhost:6379']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--queue/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/scheme http: is not supported/);
  }, 60_000);
});
