// Load test for the guardrail HTTP service (issue #3): the service runs in a child process, this
// process drives it over loopback, at a fixed rate and flat out, with ~1 KB bodies of every
// action type. A bare Fastify route under the same load gives the baseline.
//
// Flat out: autocannon (closed loop, `--connections` connections, no pipelining).
// Fixed rate: paced.mjs, an open-loop driver that spaces requests evenly and measures latency
// from each request's scheduled slot. autocannon's `overallRate` is not used for it: it sends
// each connection's share of a second back to back at the start of the second (a 1,000-request
// burst every second) and applies a 1 ms coordinated-omission correction, so its p99 measured
// the burst's queue (~200 ms for the service, ~30 ms for bare Fastify), not a 1,000 req/s load.
//
//   node bench/guardrail-load/index.mjs [--duration 8] [--rate 1000] [--connections 32]
//
// Needs built packages (`npm run build`). Writes bench/results/guardrail-load.json.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { measure, printTable, writeResult } from '../lib.mjs';
import { pacedLoad } from './paced.mjs';
import { loadPayloads } from './payloads.mjs';

const here = dirname(fileURLToPath(import.meta.url));

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
  const requests = bodies.map((body) => ({ method: 'POST', path: '/v1/validate', headers: { 'content-type': 'application/json' }, body }));
  if (rate) return pacedLoad(url, { rate, duration, connections, requests });
  return autocannon({ url, connections, duration, requests });
}

function summarise(name, r) {
  return {
    name,
    requests_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    ...(r.serviceLatency ? { service_p50_ms: r.serviceLatency.p50, service_p99_ms: r.serviceLatency.p99 } : {}),
    total: r.requests.total,
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    duration_s: r.duration,
    connections: r.connections,
  };
}

/**
 * Starts every server first, warms each up, then runs the loads interleaved (service, baseline,
 * service, baseline) so that neither side always gets the colder driver or the busier minute.
 */
async function interleaved(plan) {
  const servers = {};
  for (const mode of new Set(plan.map(([mode]) => mode))) servers[mode] = await startServer(mode);
  try {
    // JIT, pools: flat out, then a short paced run, so the first measured run (the fixed-rate one)
    // doesn't pay for the switch from a few busy connections to many mostly idle ones.
    for (const server of Object.values(servers)) {
      await load(server.url, { connections: 8, duration: 4 });
      await load(server.url, { rate: RATE, connections: 64, duration: 2 });
    }
    const out = [];
    for (const [mode, name, opts] of plan) out.push(summarise(name, await load(servers[mode].url, opts)));
    return out;
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
}

/** The engine alone, in this process: median ms per validateSync of each body (for context). */
async function engineAlone() {
  const { createGuardrailEngine } = await import('../../packages/guardrail-server/dist/index.js');
  const out = {};
  const requests = loadPayloads(1024).map((body) => JSON.parse(body));
  // Warm the code on every body first (otherwise the first one measured pays for the JIT), on a
  // throwaway engine: the measured one must not have seen the TOOL_OUTPUT that taints the thread.
  const warm = createGuardrailEngine();
  for (let i = 0; i < 3000; i++) warm.validateSync(requests[i % requests.length]);
  const engine = createGuardrailEngine();
  for (const request of requests) {
    const { median } = await measure(() => engine.validateSync(request), { warmup: 50, iterations: 300 });
    out[`${request.action_type}:${engine.validateSync(request).decision}`] = Number(median.toFixed(4));
  }
  return out;
}

/**
 * CPU time per request, in this process through Fastify's inject() (no sockets): a bare route,
 * the Baton service around a constant-ALLOW validator, and the service around the engine. CPU
 * time holds up on a busy machine where wall-clock throughput does not.
 */
async function cpuPerRequest() {
  const { fastify } = await import('fastify');
  const { createGuardrailEngine } = await import('../../packages/guardrail-server/dist/index.js');
  const { createGuardrailServer } = await import('../../packages/guardrail-server/dist/http/index.js');
  const allow = (r) => ({ action_id: r.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: '' });
  const bare = fastify();
  bare.post('/v1/validate', async () => ({}));
  const apps = {
    bare_fastify: bare,
    service_http_only: createGuardrailServer({ validator: { validateSync: allow, validate: async (r) => allow(r) }, port: 0 }).app,
    service_with_engine: createGuardrailServer({ validator: createGuardrailEngine(), port: 0 }).app,
  };
  const bodies = loadPayloads(1024);
  const out = {};
  for (const [name, app] of Object.entries(apps)) {
    await app.ready();
    const send = (i) =>
      app.inject({
        method: 'POST',
        url: '/v1/validate',
        headers: { 'content-type': 'application/json' },
        payload: bodies[i % bodies.length],
      });
    for (let i = 0; i < 1000; i++) await send(i); // warm-up
    const before = process.cpuUsage();
    const n = 3000;
    for (let i = 0; i < n; i++) await send(i);
    const used = process.cpuUsage(before);
    out[name] = Number(((used.user + used.system) / 1000 / n).toFixed(4));
    await app.close();
  }
  return out;
}

export default async function run() {
  const loadBefore = loadavg()[0];
  // Open loop, evenly paced; up to 64 keep-alive connections so a slow answer never holds back
  // the next request's send (it waits only when all 64 are busy, and that wait is counted).
  const fixedRate = { rate: RATE, connections: 64, duration: DURATION };
  const flat = { connections: CONNECTIONS, duration: DURATION };
  const results = await interleaved([
    ['engine', `service @ ${RATE} req/s`, fixedRate],
    ['baseline', `bare fastify @ ${RATE} req/s`, fixedRate],
    ['engine', 'service flat out', flat],
    ['baseline', 'bare fastify flat out', flat],
  ]);
  const engineMedians = await engineAlone();
  const cpuMs = await cpuPerRequest();
  const loadAfter = loadavg()[0];

  const flatOut = results.find((r) => r.name === 'service flat out');
  const baseline = results.find((r) => r.name === 'bare fastify flat out');
  const fixed = results.find((r) => r.name.startsWith('service @'));
  const report = {
    setup: {
      body_bytes: '~1 KB',
      action_types: 'AGENT_INPUT x2, TOOL_CALL, TOOL_OUTPUT, AGENT_RESPONSE, AGENT_HANDOFF',
      duration_s: DURATION,
      loopback: true,
      logs: 'off',
      driver:
        'flat out: autocannon 8 (closed loop); fixed rate: paced.mjs (open loop, latency from the scheduled slot); both in a separate process from the service',
      cpu: cpus()[0]?.model,
      loadavg_1m_before: loadBefore,
      loadavg_1m_after: loadAfter,
    },
    results,
    engine_alone_median_ms_per_body: engineMedians,
    cpu_ms_per_request_in_process: cpuMs,
    http_layer_cpu_ratio_to_bare_fastify: Number((cpuMs.service_http_only / cpuMs.bare_fastify).toFixed(2)),
    service_vs_bare_fastify_throughput: flatOut && baseline ? Number((flatOut.requests_per_s / baseline.requests_per_s).toFixed(3)) : null,
    targets: {
      flat_out_at_least_5000_rps: flatOut ? flatOut.requests_per_s >= 5000 : null,
      p99_under_5ms_at_1000_rps: fixed ? fixed.p99_ms < 5 : null,
    },
  };

  printTable(
    results.map((r) => ({
      run: r.name,
      'req/s': r.requests_per_s,
      'p50 ms': r.p50_ms,
      'p99 ms': r.p99_ms,
      'max ms': r.max_ms,
      'p99 from write': r.service_p99_ms ?? '',
      'non-2xx': r.non_2xx,
      errors: r.errors,
    })),
    {
      title:
        'guardrail-load (loopback, ~1 KB bodies, driver in another process; fixed rate: paced open loop, ms from the scheduled slot; flat out: autocannon, whole ms)',
    },
  );
  console.log(`\nengine alone, median ms per ~1 KB body: ${JSON.stringify(engineMedians)}`);
  console.log(`CPU ms per request via inject(): ${JSON.stringify(cpuMs)}`);
  console.log(`service / bare fastify throughput: ${report.service_vs_bare_fastify_throughput}`);
  console.log(`targets: ${JSON.stringify(report.targets)}`);
  console.log(
    `1-minute load average before/after: ${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)} on ${cpus().length} CPUs (other work on the machine skews every number)`,
  );
  const file = await writeResult('guardrail-load', report);
  console.log(`wrote ${file}`);
  return report;
}

// Run directly (`node bench/guardrail-load/index.mjs`) as well as through bench/run.mjs.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await run();
