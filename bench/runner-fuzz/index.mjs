// Long fuzz of the runner HTTP service (issue 14): ≥ 100,000 generated hostile requests over
// loopback against `server.mjs` in a child process, judged by the same fuzzer as the bounded
// test (@baton/runner/testing runRunnerFuzz). Reports crashes (child exits), 5xx, hangs, broken
// promises, the server's RSS before/after, and req/s next to GET /healthz at the same concurrency.
// BATON_FUZZ_COUNT (default 100000) and BATON_FUZZ_SEED change the run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { runRunnerFuzz } from '@baton/runner/testing';
import { REPO_ROOT, printTable, round, writeResult } from '../lib.mjs';

const COUNT = Number(process.env.BATON_FUZZ_COUNT ?? 100_000);
const SEED = Number(process.env.BATON_FUZZ_SEED ?? 14);
const CONCURRENCY = 16;
const VICTIM = 'victim-token-0123456789abcdef';
const ATTACKER = 'attacker-token-0123456789abcdef';

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? round(Number(m[1]) / 1024) : NaN;
};

function get(url, path, token) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function healthzRate(url, n) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) await get(url, '/healthz');
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

export default async function run() {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bench', 'runner-fuzz', 'server.mjs'), VICTIM, ATTACKER], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: '1' },
  });
  let crashed = null;
  child.on('exit', (code, signal) => (crashed = { code, signal }));
  try {
    const info = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
      });
      child.on('exit', (code) => reject(new Error(`fuzz server exited early (${code})`)));
    });
    const victimBefore = (await get(info.url, `/v1/threads/${info.victimThreadId}`, VICTIM)).body;
    const baseline = await healthzRate(info.url, 5_000);
    const rssBefore = rssMb(info.pid);
    let rssPeak = rssBefore;
    const started = performance.now();
    const report = await runRunnerFuzz({
      target: {
        url: info.url,
        token: ATTACKER,
        agentId: 'bench.agents.triage',
        victimThreadId: info.victimThreadId,
        victimMarkers: info.markers,
      },
      count: COUNT,
      seed: SEED,
      concurrency: CONCURRENCY,
      timeoutMs: 30_000,
      progressEvery: 10_000,
      onProgress: (done) => {
        if (!crashed) rssPeak = Math.max(rssPeak, rssMb(info.pid));
        process.stdout.write(`  ${done} requests, server RSS ${rssMb(info.pid)} MB\n`);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const alive =
      !crashed &&
      (await get(info.url, '/healthz').then(
        (r) => r.status === 200,
        () => false,
      ));
    const rssAfter = crashed ? NaN : rssMb(info.pid);
    const victimAfter = crashed ? '' : (await get(info.url, `/v1/threads/${info.victimThreadId}`, VICTIM)).body;
    const rate = report.requests / seconds;
    const rows = [
      { metric: 'requests', value: report.requests },
      { metric: 'crashes (server exits)', value: crashed ? 1 : 0 },
      { metric: '5xx answers', value: report.serverErrors },
      { metric: 'hangs (> 30 s)', value: report.hangs },
      { metric: 'dropped without answer (not allowed)', value: report.dropped },
      { metric: 'broken promises', value: report.problemCount },
      { metric: 'victim thread unchanged', value: victimAfter === victimBefore ? 'yes' : 'NO' },
      { metric: 'server alive after', value: alive ? 'yes' : 'NO' },
      { metric: 'server RSS before / peak / after (MB)', value: `${rssBefore} / ${rssPeak} / ${rssAfter}` },
      { metric: 'fuzz req/s', value: round(rate) },
      { metric: 'GET /healthz req/s (baseline)', value: round(baseline) },
      { metric: 'fuzz / baseline', value: round(rate / baseline) },
    ];
    printTable(rows, { title: `runner service fuzz, seed ${SEED}, concurrency ${CONCURRENCY}` });
    if (report.problems.length > 0) process.stdout.write(`first problems:\n  ${report.problems.slice(0, 10).join('\n  ')}\n`);
    await writeResult('runner-fuzz', {
      seed: SEED,
      seconds: round(seconds),
      crashed,
      alive,
      rssBefore,
      rssPeak,
      rssAfter,
      baselineHealthzPerSecond: round(baseline),
      victimUnchanged: victimAfter === victimBefore,
      ...report,
    });
  } finally {
    if (!crashed) child.kill('SIGTERM');
  }
}
