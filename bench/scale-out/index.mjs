// Bench: scale-out on BullMQ + Redis. A fixed batch of runs of the scale-out example (offline model
// with 200 ms simulated latency per model call; each run delegates one subtask to a skill process
// and hands off once) is queued through @baton/queue and executed by 1, 2 and 4 `baton worker`
// processes on this machine. Reports throughput and its ratio to 1 worker (measured in this same
// process, one after the other). Needs Debian's redis-server (or REDIS_URL).
// Run after building: `node bench/scale-out/index.mjs`. Writes bench/results/scale-out.json.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { printTable, round, summarize, writeResult, REPO_ROOT } from '../lib.mjs';

const dist = (p) => pathToFileURL(path.join(REPO_ROOT, p)).href;
const { createQueueRunner } = await import(dist('packages/queue/dist/index.js'));
const { startRedisServer } = await import(dist('packages/queue/dist/testing/index.js'));
const BIN = path.join(REPO_ROOT, 'packages/cli/dist/bin.js');
const AGENTS = path.join(REPO_ROOT, 'examples/scale-out/agents');

const BATCH = Number(process.env.BENCH_BATCH ?? 48);
const CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 4);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);

function startWorker(url, prefix, workspace, concurrency = CONCURRENCY) {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'worker',
      '--queue',
      url,
      '--queue-prefix',
      prefix,
      '--agents',
      AGENTS,
      '--workspace',
      workspace,
      '--apply-edits',
      '--concurrency',
      String(concurrency),
      '--task-concurrency',
      String(concurrency),
    ],
    {
      env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_AGENTS_DISABLE_TRACING: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const exited = new Promise((resolve) => child.on('close', resolve));
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c.toString();
      if (out.includes('baton worker: ready')) resolve();
    });
    void exited.then((code) => reject(new Error(`worker exited early (${code})`)));
  });
  return { child, ready, exited };
}

async function measureWorkers(url, count, concurrency = CONCURRENCY) {
  const prefix = `bench${count}x${Date.now().toString(36)}`;
  const workspace = mkdtempSync(path.join(tmpdir(), 'baton-bench-scale-'));
  mkdirSync(path.join(workspace, 'ledger'));
  for (let i = 1; i <= BATCH; i++) writeFileSync(path.join(workspace, 'ledger', `T-${i}.txt`), 'END\n');
  const workers = Array.from({ length: count }, () => startWorker(url, prefix, workspace, concurrency));
  const queue = createQueueRunner({ connection: url, prefix });
  try {
    await Promise.all(workers.map((w) => w.ready));
    const started = performance.now();
    const latencies = [];
    const results = await Promise.all(
      Array.from({ length: BATCH }, async (_, i) => {
        const t0 = performance.now();
        const r = await queue.run({ agentId: 'io.baton.scaleout.coordinator', input: `Please record ticket T-${i + 1}.` });
        latencies.push(performance.now() - t0);
        return r;
      }),
    );
    const wallMs = performance.now() - started;
    const completed = results.filter((r) => r.status === 'completed').length;
    return {
      workers: count,
      concurrency,
      runs: BATCH,
      completed,
      wallMs,
      throughput: (completed / wallMs) * 1000,
      latency: summarize(latencies),
    };
  } finally {
    await queue.close();
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    rmSync(workspace, { recursive: true, force: true });
  }
}

export default async function run() {
  const redis = process.env.REDIS_URL ? { url: process.env.REDIS_URL, stop: async () => undefined } : await startRedisServer();
  try {
    const rows = [];
    for (const count of WORKER_COUNTS) rows.push(await measureWorkers(redis.url, count));
    // Same total concurrency as the largest worker count, in one process: separates what more
    // processes add from what more concurrent runs add (on one machine they share its cores).
    const most = Math.max(...WORKER_COUNTS);
    if (most > 1) rows.push(await measureWorkers(redis.url, 1, CONCURRENCY * most));
    const base = rows.find((r) => r.workers === 1 && r.concurrency === CONCURRENCY) ?? rows[0];
    const table = rows.map((r) => ({
      workers: r.workers,
      'runs at once': r.workers * r.concurrency,
      'runs done': `${r.completed}/${r.runs}`,
      'wall s': r.wallMs / 1000,
      'runs/s': r.throughput,
      'vs 1 worker': r.throughput / base.throughput,
      'run p50 ms': r.latency.median,
      'run p99 ms': r.latency.p99,
    }));
    printTable(table, {
      title: `Scale-out: ${BATCH} runs, each 3 model calls x 200 ms + 1 skill subprocess (300 ms) + 1 handoff; ${cpus().length} cores`,
    });
    const file = await writeResult('scale-out', {
      batch: BATCH,
      concurrency_per_worker: CONCURRENCY,
      rows: rows.map((r) => ({ ...r, throughput: round(r.throughput), ratio_vs_1: round(r.throughput / base.throughput) })),
    });
    process.stdout.write(`\nwritten: ${path.relative(REPO_ROOT, file)}\n`);
  } finally {
    await redis.stop();
  }
}
