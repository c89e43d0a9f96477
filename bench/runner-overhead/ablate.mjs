// Where the Baton runner's own time goes, measured rather than profiled (not run by bench/run.mjs):
// the allow-all + memory-store variant (no detection, no disk) next to the same runner with parts
// of its work switched off, interleaved round-robin in one process with raw @openai/agents, CPU
// time per run (p50). What a part costs is the difference to the full variant; a sampling profile
// (`_drive.mjs` + `profile-summary.mjs`) inflates small functions and counts wall time.
//
//   N=1000 node bench/runner-overhead/ablate.mjs
//
// Variants: spans recorded (the default: the OpenTelemetry SDK, batch processor, memory exporter);
// spans not recorded (a tracer whose sampler drops every span: ids and context still made, as
// with an SDK that samples the trace out).
import { setTraceProcessors } from '@openai/agents-core';
import { setupTracing } from '@baton/tracing';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { TURNS, allowAllValidator, batonVariant, measureInterleaved, rawTwoRunsVariant, rawVariant, round } from './variants.mjs';

const N = Number(process.env.N ?? 1000);
setTraceProcessors([]);
const exporter = new InMemorySpanExporter();
const tracing = setupTracing({ serviceName: 'ablate', exporter, processor: 'batch', env: {} });
const unsampled = new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('ablate');

const base = { validator: allowAllValidator, store: 'memory' };
const variants = [
  rawVariant(),
  rawTwoRunsVariant(),
  await batonVariant({ ...base, name: 'baton, allow-all, memory store (spans recorded)' }),
  await batonVariant({
    ...base,
    name: 'baton, allow-all, memory store, spans not recorded',
    runnerOptions: { tracing: { tracer: unsampled } },
  }),
];
const rows = await measureInterleaved(variants, { iterations: N, warmup: 30, afterRound: (i) => i % 50 === 49 && exporter.reset() });
for (const v of variants) await v.close();
await tracing.shutdown();
const [raw] = rows;
console.log('| variant | p50 CPU ms/run | CPU × raw | CPU ms added per turn |\n|---|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.cpu_p50_ms.toFixed(3)} | ${(r.cpu_p50_ms / raw.cpu_p50_ms).toFixed(2)} | ${round((r.cpu_p50_ms - raw.cpu_p50_ms) / TURNS).toFixed(3)} |`,
  );
}
