// Load test for the guardrail HTTP service (issue #3): the service runs in a child process, this
// process drives it over loopback with autocannon, at a fixed rate and flat out, with ~1 KB
// bodies of every action type. A bare Fastify route under the same load gives the baseline.
//
//   node bench/guardrail-load/index.mjs [--duration 8] [--rate 1000] [--connections 32]
//
// Needs built packages (`npm run build`). Writes bench/results/guardrail-load.json.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadPayloads } from './payloads.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, '..', 'results', 'guardrail-load.json');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const DURATION = arg('duration', 8);
const RATE = arg('rate', 1000);
const CONNECTIONS = arg('connections', 32);

/** Starts server.mjs in `mode` as a child process; resolves once it prints its URL. */
function startServer(mode) {
  const child = spawn(process.execPath, [join(here, 'server.mjs'), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start within 20 s`)), 20_000);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with code ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve({
        url: line.trim(),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

function load(url, { rate, connections, duration }) {
  const bodies = loadPayloads(1024);
  return autocannon({
    url,
    connections,
    duration,
    ...(rate ? { overallRate: rate } : {}),
    requests: bodies.map((body) => ({ method: 'POST', path: '/v1/validate', headers: { 'content-type': 'application/json' }, body })),
  });
}

function summarise(name, r) {
  return {
    name,
    requests_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    total: r.requests.total,
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    duration_s: r.duration,
    connections: r.connections,
  };
}

async function scenario(mode, runs) {
  const server = await startServer(mode);
  try {
    await load(server.url, { connections: 8, duration: 2 }); // warm-up: JIT, connection pool
    const out = [];
    for (const [name, opts] of runs) out.push(summarise(name, await load(server.url, opts)));
    return out;
  } finally {
    await server.stop();
  }
}

const loadBefore = loadavg()[0];
const results = [
  ...(await scenario('engine', [
    [`service @ ${RATE} req/s`, { rate: RATE, connections: 10, duration: DURATION }],
    ['service flat out', { connections: CONNECTIONS, duration: DURATION }],
  ])),
  ...(await scenario('baseline', [
    [`bare fastify @ ${RATE} req/s`, { rate: RATE, connections: 10, duration: DURATION }],
    ['bare fastify flat out', { connections: CONNECTIONS, duration: DURATION }],
  ])),
];

const flatOut = results.find((r) => r.name === 'service flat out');
const baseline = results.find((r) => r.name === 'bare fastify flat out');
const fixed = results.find((r) => r.name.startsWith('service @'));
const report = {
  bench: 'guardrail-load',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadavg_1m_before: loadBefore, loadavg_1m_after: loadavg()[0] },
  setup: { body_bytes: '~1 KB', action_types: 'AGENT_INPUT x2, TOOL_CALL, TOOL_OUTPUT, AGENT_RESPONSE, AGENT_HANDOFF', duration_s: DURATION, loopback: true, logs: 'off', driver: 'autocannon 8 in a separate process' },
  results,
  service_vs_bare_fastify_throughput: flatOut && baseline ? Number((flatOut.requests_per_s / baseline.requests_per_s).toFixed(3)) : null,
  targets: {
    flat_out_at_least_5000_rps: flatOut ? flatOut.requests_per_s >= 5000 : null,
    p99_under_5ms_at_1000_rps: fixed ? fixed.p99_ms < 5 : null,
  },
};

console.log('\nguardrail-load (loopback, ~1 KB bodies, autocannon in another process)\n');
console.log('| run | req/s | p50 ms | p99 ms | max ms | non-2xx | errors |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of results) console.log(`| ${r.name} | ${r.requests_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.max_ms} | ${r.non_2xx} | ${r.errors} |`);
console.log(`\nservice / bare fastify throughput: ${report.service_vs_bare_fastify_throughput}`);
console.log(`targets: ${JSON.stringify(report.targets)}`);
console.log(`1-minute load average before/after: ${loadBefore.toFixed(2)} / ${loadavg()[0].toFixed(2)} on ${cpus().length} CPUs (other work on the machine skews every number)`);
await mkdir(dirname(resultsFile), { recursive: true });
await writeFile(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${resultsFile}`);
