// The heaviest requests the guardrail service can be sent (issue 14): the red-team shapes up to the
// 1 MiB body limit, each timed on its own, then /healthz latency while two clients send them back
// to back - next to /healthz latency on the idle service in the same run (the baseline).
//
//   node bench/guardrail-load/heavy.mjs [--seconds 20] [--workers N]
//
// Targets (issue 14): every request answered within 1 s; /healthz p99 < 50 ms under this load.
// Needs built packages. Writes bench/results/guardrail-heavy.json.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { printTable, round, summarize, writeResult } from '../lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const SECONDS = arg('seconds', 20);
const WORKERS = arg('workers', undefined);
const LIMIT = 1024 * 1024;

function startServer() {
  const env = { ...process.env, ...(WORKERS === undefined ? {} : { GUARDRAIL_LOAD_WORKERS: String(WORKERS) }) };
  const child = spawn(process.execPath, [join(here, 'server.mjs'), 'engine'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with code ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ url: line.trim(), child }));
  });
}

const trace = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' };
let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const handoff = (state) => ({
  action_id: id(),
  action_type: 'AGENT_HANDOFF',
  source_agent_id: 'io.bench.a',
  thread_id: 't',
  trace,
  payload: { target_agent_id: 'io.bench.b', input: 'go', state },
});
const toolCall = (args) => ({
  action_id: id(),
  action_type: 'TOOL_CALL',
  source_agent_id: 'io.bench.a',
  thread_id: 't',
  trace,
  payload: { id: 'c1', type: 'function', function: { name: 'send_email', arguments: JSON.stringify(args) } },
});
const emails = (count) => Array.from({ length: count }, (_, i) => `user${i}@example.com`);

/** Largest count for which build(count) stays under `bytes` (binary search). */
function fit(build, bytes) {
  let lo = 1;
  let hi = 1;
  const size = (c) => Buffer.byteLength(JSON.stringify(build(c)));
  while (size(hi) < bytes) hi *= 2;
  while (lo < hi - 1) {
    const mid = (lo + hi) >> 1;
    if (size(mid) < bytes) lo = mid;
    else hi = mid;
  }
  return JSON.stringify(build(lo));
}

const longKey = 'k'.repeat(16_400);
const SHAPES = {
  'long key over e-mails, 40 KB (9 s before)': fit((c) => handoff({ [longKey]: emails(c) }), 40_000),
  'long key over e-mails, 640 KB (> 8 min before)': fit((c) => handoff({ [longKey]: emails(c) }), 640_000),
  'long key over e-mails, ~1 MiB': fit((c) => handoff({ [longKey]: emails(c) }), LIMIT - 200),
  'tool call, long keys and e-mails, ~1 MiB': fit(
    (c) => toolCall({ [longKey]: Array.from({ length: c }, (_, i) => ({ [`${longKey}${i}`]: `user${i}@example.com` })) }),
    LIMIT - 200,
  ),
  'tool call, one 1 MiB string of e-mails': fit((c) => toolCall({ body: emails(c).join(' ') }), LIMIT - 200),
  'tool call, ~60,000 small members': fit(
    (c) => toolCall(Object.fromEntries(Array.from({ length: c }, (_, i) => [`k${i}`, `v${i}`]))),
    LIMIT - 200,
  ),
  'handoff, invisible characters everywhere, ~1 MiB': fit((c) => handoff({ text: 'a\u200bb\u00adc\u{e0041}d '.repeat(c) }), LIMIT - 200),
  'agent input, 1 MiB of prose': fit(
    (c) => ({
      action_id: id(),
      action_type: 'AGENT_INPUT',
      source_agent_id: 'io.bench.a',
      thread_id: 't',
      trace,
      payload: 'Please summarise the quarterly report for me. '.repeat(c),
    }),
    LIMIT - 200,
  ),
};

async function post(url, body) {
  const start = performance.now();
  const res = await fetch(`${url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  const ms = performance.now() - start;
  let decision = `HTTP ${res.status}`;
  try {
    const j = JSON.parse(text);
    decision = j.decision ? `${j.decision} ${j.reason_code}` : `HTTP ${res.status} ${j.error?.code}`;
  } catch {}
  return { ms, decision, answerBytes: Buffer.byteLength(text) };
}

/** /healthz latency sampled every 10 ms for `ms` milliseconds. */
async function healthLatency(url, ms) {
  const samples = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const start = performance.now();
    await (await fetch(`${url}/healthz`)).text();
    samples.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 10));
  }
  return summarize(samples);
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? round(Number(m[1]) / 1024) : undefined;
}

export default async function run() {
  const { url, child } = await startServer();
  try {
    for (const body of Object.values(SHAPES)) await post(url, body); // warm-up: worker start, JIT
    const single = [];
    for (const [name, body] of Object.entries(SHAPES)) {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await post(url, body));
      const worst = runs.reduce((a, b) => (b.ms > a.ms ? b : a));
      single.push({
        shape: name,
        request_kb: round(Buffer.byteLength(body) / 1024),
        answer_kb: round(worst.answerBytes / 1024),
        worst_ms: round(worst.ms),
        decision: worst.decision,
      });
    }
    printTable(single, { title: 'heaviest requests, one at a time (worst of 3)' });

    const idle = await healthLatency(url, 3000);
    const bodies = Object.values(SHAPES);
    let stop = false;
    const heavyTimes = [];
    const sender = async (offset) => {
      for (let i = offset; !stop; i++) heavyTimes.push((await post(url, bodies[i % bodies.length])).ms);
    };
    const senders = [sender(0), sender(3)];
    const loaded = await healthLatency(url, SECONDS * 1000);
    stop = true;
    await Promise.all(senders);
    const heavy = summarize(heavyTimes);
    const rows = [
      {
        state: 'idle',
        healthz_p50_ms: round(idle.median),
        healthz_p99_ms: round(idle.p99),
        healthz_max_ms: round(idle.max),
        samples: idle.n,
      },
      {
        state: '2 clients sending the shapes above',
        healthz_p50_ms: round(loaded.median),
        healthz_p99_ms: round(loaded.p99),
        healthz_max_ms: round(loaded.max),
        samples: loaded.n,
      },
    ];
    printTable(rows, { title: '/healthz latency' });
    process.stdout.write(
      `heavy requests under load: ${heavy.n}, p50 ${round(heavy.median)} ms, p99 ${round(heavy.p99)} ms, max ${round(heavy.max)} ms; server RSS ${rssMiB(child.pid)} MiB\n`,
    );
    await writeResult('guardrail-heavy', {
      machine: { cpus: cpus().length, loadavg: loadavg() },
      workers: WORKERS ?? 'default',
      single,
      healthz: { idle, loaded },
      heavy_under_load: heavy,
    });
  } finally {
    child.kill('SIGTERM');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
