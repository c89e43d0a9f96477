// The service under load, run as its own process by index.mjs. Prints its URL as one line.
//   node server.mjs engine    the Baton service: createGuardrailServer around the detector engine
//   node server.mjs baseline  a bare Fastify 5 route answering {} (the framework's own ceiling)
//   node server.mjs http-only the Baton service around a constant-ALLOW validator (HTTP layer cost)
import { pathToFileURL } from 'node:url';
import { fastify } from 'fastify';

const mode = process.argv[2] ?? 'engine';
let url;
let close;
if (mode === 'baseline') {
  const app = fastify({ logger: false });
  app.post('/v1/validate', async () => ({}));
  app.get('/healthz', async () => ({ status: 'ok' }));
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  close = () => app.close();
} else if (mode === 'engine' || mode === 'http-only') {
  // GUARDRAIL_LOAD_DIST=<dir>: load the package from another build (e.g. a copy of an older dist)
  // to compare two builds under the same harness.
  const dist = process.env.GUARDRAIL_LOAD_DIST
    ? pathToFileURL(`${process.env.GUARDRAIL_LOAD_DIST}/`).href
    : new URL('../../packages/guardrail-server/dist/', import.meta.url).href;
  const { createGuardrailEngine } = await import(new URL('index.js', dist).href);
  const { createGuardrailServer } = await import(new URL('http/index.js', dist).href);
  const allow = (request) => ({ action_id: request.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: '' });
  const validator = mode === 'engine' ? createGuardrailEngine() : { validateSync: allow, validate: async (request) => allow(request) };
  // GUARDRAIL_LOAD_WORKERS=<n>: the engine's worker threads (0: in the event loop); default the service's.
  const workers = process.env.GUARDRAIL_LOAD_WORKERS === undefined ? {} : { workers: Number(process.env.GUARDRAIL_LOAD_WORKERS) };
  const server = createGuardrailServer({ validator, port: 0, logger: false, ...workers });
  ({ url } = await server.listen());
  close = () => server.close();
} else {
  process.stderr.write(`unknown mode ${mode}; use engine, http-only or baseline\n`);
  process.exit(2);
}
process.stdout.write(`${url}\n`);

// GUARDRAIL_LOAD_DIAG=1: on SIGUSR2, print this process's event-loop delay and GC pauses since the
// previous SIGUSR2 to stderr as one JSON line (for finding where a latency tail comes from).
if (process.env.GUARDRAIL_LOAD_DIAG === '1') {
  const { monitorEventLoopDelay, PerformanceObserver } = await import('node:perf_hooks');
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  let gc = [];
  new PerformanceObserver((list) => gc.push(...list.getEntries().map((e) => e.duration))).observe({ entryTypes: ['gc'] });
  let cpu = process.cpuUsage();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Number((ns / 1e6).toFixed(2));
    gc.sort((a, b) => a - b);
    const used = process.cpuUsage(cpu);
    process.stderr.write(
      `${JSON.stringify({
        mode,
        eld_ms: { p50: ms(eld.percentile(50)), p99: ms(eld.percentile(99)), max: ms(eld.max) },
        gc: { count: gc.length, total_ms: Number(gc.reduce((a, b) => a + b, 0).toFixed(1)), max_ms: Number((gc.at(-1) ?? 0).toFixed(2)) },
        cpu_ms: Math.round((used.user + used.system) / 1000),
      })}\n`,
    );
    eld.reset();
    gc = [];
    cpu = process.cpuUsage();
  });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await close();
    process.exit(0);
  });
}
