// Profiling driver for runner-overhead (not a benchmark: bench/run.mjs runs only index.mjs).
// Runs the Baton side of the same two-agent scenario N times (after 50 warm-up runs) and prints
// the p50/mean per run and the guardrail engine's share. Per-stage switches:
//   STAT=1     time every ThreadStore call (calls, ms per run, µs per call)
//   MEM=1      memory store instead of SQLite      NOTRACE=1  no OpenTelemetry SDK
//   NOOPG=1    a guardrail that answers ALLOW at once (no engine)
//   RAW=1      raw @openai/agents instead of the Baton runner (the baseline, profiled the same way);
//              RAW=2 raw with one run per agent (the design's floor)
//   N=3000 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/runner-overhead/_drive.mjs
//   node bench/runner-overhead/profile-summary.mjs /tmp/prof/CPU.*.cpuprofile --runs 3050
// Needs built packages (`npx turbo run build --filter=@baton/runner...`).
import { performance } from 'node:perf_hooks';
import { setTraceProcessors } from '@openai/agents-core';
import { createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { setupTracing } from '@baton/tracing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { allowAllValidator, batonVariant, rawTwoRunsVariant, rawVariant } from './variants.mjs';
const N = Number(process.env.N ?? 500);
setTraceProcessors([]);
const exporter = new InMemorySpanExporter();
const tracing = process.env.NOTRACE ? null : setupTracing({ serviceName: 'b', exporter, processor: 'batch', env: {} });
const inner = createInProcessGuardrail(createGuardrailEngine());
let gms = 0;
const validator = process.env.NOOPG
  ? allowAllValidator
  : {
      validate: async (r, o) => {
        const t = performance.now();
        const x = await inner.validate(r, o);
        gms += performance.now() - t;
        return x;
      },
    };
const stat = {};
const timed = (store) =>
  new Proxy(store, {
    get(t, k) {
      const v = t[k];
      if (typeof v !== 'function') return v;
      return async (...a) => {
        const s0 = performance.now();
        try {
          return await v.apply(t, a);
        } finally {
          const e = (stat[k] ??= [0, 0]);
          e[0]++;
          e[1] += performance.now() - s0;
        }
      };
    },
  });
const variant = process.env.RAW
  ? process.env.RAW === '2'
    ? rawTwoRunsVariant()
    : rawVariant()
  : await batonVariant({
      name: 'drive',
      validator,
      store: process.env.MEM ? 'memory' : 'sqlite',
      ...(process.env.STAT ? { wrapStore: timed } : {}),
    });
for (let i = 0; i < 50; i++) await variant.once();
gms = 0;
for (const k in stat) delete stat[k];
const s = [];
for (let i = 0; i < N; i++) {
  const t = performance.now();
  await variant.once();
  s.push(performance.now() - t);
  if (i % 100 === 0) exporter.reset();
}
s.sort((a, b) => a - b);
console.log(
  `p50 ${s[N >> 1].toFixed(3)} mean ${(s.reduce((a, b) => a + b) / N).toFixed(3)} guardrail validate ms/run ${(gms / N).toFixed(3)}`,
);
for (const [k, [c, ms]] of Object.entries(stat))
  console.log(k.padEnd(20), (c / N).toFixed(2), 'calls/run', (ms / N).toFixed(3), 'ms/run', ((1000 * ms) / c).toFixed(1), 'us/call');
await variant.close();
await tracing?.shutdown();
