// Runner overhead: the same two-agent scenario (one tool call, one handoff, three model turns) on
// the same in-process offline model, run by raw @openai/agents and by the Baton runner.
//
//   node bench/runner-overhead/index.mjs [--iterations 200] [--slow-iterations 8]
//
// Writes a table to stdout and JSON to bench/results/runner-overhead.json. Needs built packages
// (`npm run build`). Targets (issue 16): Baton ≤ 1.5× raw and ≤ 1 ms added per turn in-process;
// the guardrail service over HTTP ≤ 1 ms added per turn; a racing input check adds < 1 ms to a
// turn whose model call takes 200 ms. The allow-all row (a validator that answers ALLOW at once)
// is the runner without detection, which is what raw @openai/agents does: its ratio is the
// runner's own overhead, the in-process row's adds the guardrail engine.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTraceProcessors } from '@openai/agents-core';
import { createGuardrailClient, createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { createGuardrailServer } from '@baton/guardrail-server/http';
import { setupTracing } from '@baton/tracing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { TURNS, addedPerTurn as added, allowAllValidator, batonVariant, measureInterleaved, rawVariant, round } from './variants.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const ITERATIONS = flag('iterations', 200);
const SLOW_ITERATIONS = flag('slow-iterations', 8);
const WARMUP = Math.max(5, Math.round(ITERATIONS / 10));
const MODEL_LATENCY_MS = 200;
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'runner-overhead.json');

async function main() {
  // The SDK's own exporter to OpenAI stays off; Baton's OpenTelemetry spans go to memory (batch).
  setTraceProcessors([]);
  const exporter = new InMemorySpanExporter();
  const tracing = setupTracing({ serviceName: 'baton-bench', exporter, processor: 'batch', env: {} });
  const engine = createGuardrailEngine();
  const inProcess = { validator: createInProcessGuardrail(engine) };
  const service = createGuardrailServer({ validator: engine, port: 0 });
  const { url } = await service.listen();
  // The client's default transport: node:http with a keep-alive agent. The same client over the
  // global fetch (what it used before) runs beside it, so the transport's share is measured in
  // the same process, same load.
  const overHttp = { validator: createGuardrailClient({ url, timeoutMs: 5000 }) };
  const overFetch = { validator: createGuardrailClient({ url, timeoutMs: 5000, fetch: globalThis.fetch }) };
  // The same service deciding in its event loop (`workers: 0`): the worker pool's hop, measured.
  const inLoop = createGuardrailServer({ validator: engine, port: 0, workers: 0 });
  const overHttpInLoop = { validator: createGuardrailClient({ url: (await inLoop.listen()).url, timeoutMs: 5000 }) };
  // Every request through the pool (`inlineMaxBytes: 0`, the behaviour before small bodies were
  // decided inline): the before of the routing change, in the same process.
  const poolOnly = createGuardrailServer({ validator: engine, port: 0, inlineMaxBytes: 0 });
  const overHttpPoolOnly = { validator: createGuardrailClient({ url: (await poolOnly.listen()).url, timeoutMs: 5000 }) };

  const rows = [];
  const run = async (variants, iterations, warmup) => {
    // Spans go to memory: drop them now and then so the heap stays flat across the run.
    const measured = await measureInterleaved(variants, { iterations, warmup, afterRound: (i) => i % 50 === 49 && exporter.reset() });
    for (const v of variants) await v.close();
    exporter.reset();
    for (const row of measured) console.error(`  ${row.name}: p50 ${row.p50_ms} ms/run (CPU ${row.cpu_p50_ms})`);
    rows.push(...measured);
    return measured;
  };

  const [raw, baton, allowAll, http, httpFetch, httpInLoop, httpPoolOnly] = await run(
    [
      rawVariant(),
      await batonVariant({ name: 'baton, in-process guardrails, SQLite, tracing', validator: inProcess.validator }),
      await batonVariant({ name: 'baton, allow-all validator (no detection), SQLite, tracing', validator: allowAllValidator }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP', validator: overHttp.validator }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP, fetch transport', validator: overFetch.validator }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP, workers: 0', validator: overHttpInLoop.validator }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP, inlineMaxBytes: 0', validator: overHttpPoolOnly.validator }),
    ],
    ITERATIONS,
    WARMUP,
  );
  const [rawSlow, blocking, racing] = await run(
    [
      rawVariant({ latencyMs: MODEL_LATENCY_MS }),
      await batonVariant({
        name: `baton, blocking input check (HTTP), model ${MODEL_LATENCY_MS} ms`,
        validator: overHttp.validator,
        latencyMs: MODEL_LATENCY_MS,
      }),
      await batonVariant({
        name: `baton, racing input check (HTTP), model ${MODEL_LATENCY_MS} ms`,
        validator: overHttp.validator,
        inputGuardrail: 'racing',
        latencyMs: MODEL_LATENCY_MS,
      }),
    ],
    SLOW_ITERATIONS,
    1,
  );
  await service.close();
  await inLoop.close();
  await poolOnly.close();
  await tracing.shutdown();

  const summary = {
    in_process: {
      ratio: round(baton.p50_ms / raw.p50_ms),
      added_ms_per_turn: added(baton, raw),
      cpu_ratio: round(baton.cpu_p50_ms / raw.cpu_p50_ms),
      target: 'ratio <= 1.5 and <= 1 ms added per turn',
    },
    allow_all: {
      ratio: round(allowAll.p50_ms / raw.p50_ms),
      added_ms_per_turn: added(allowAll, raw),
      cpu_ratio: round(allowAll.cpu_p50_ms / raw.cpu_p50_ms),
      // What the in-process guardrail engine (detection) adds to the same runner.
      detection_ms_per_run: round(baton.p50_ms - allowAll.p50_ms),
      target: 'ratio <= 1.5 and <= 1 ms added per turn',
    },
    guardrail_over_http: {
      ratio: round(http.p50_ms / raw.p50_ms),
      added_ms_per_turn: added(http, raw),
      // What the service adds on top of the same runner with the in-process engine.
      added_vs_in_process_ms_per_turn: added(http, baton),
      fetch_transport_added_vs_in_process_ms_per_turn: added(httpFetch, baton),
      workers_0_added_vs_in_process_ms_per_turn: added(httpInLoop, baton),
      pool_only_added_vs_in_process_ms_per_turn: added(httpPoolOnly, baton),
      target: 'added_vs_in_process_ms_per_turn <= 1',
    },
    model_200ms: {
      blocking_added_ms_per_turn: added(blocking, rawSlow),
      racing_added_ms_per_turn: added(racing, rawSlow),
      racing_vs_blocking_ms_per_turn: added(racing, blocking),
      target: 'racing adds < 1 ms per 200 ms turn',
    },
  };
  summary.in_process.meets_target = summary.in_process.ratio <= 1.5 && summary.in_process.added_ms_per_turn <= 1;
  summary.allow_all.meets_target = summary.allow_all.ratio <= 1.5 && summary.allow_all.added_ms_per_turn <= 1;
  summary.guardrail_over_http.meets_target = summary.guardrail_over_http.added_vs_in_process_ms_per_turn <= 1;
  summary.model_200ms.meets_target = summary.model_200ms.racing_added_ms_per_turn < 1;

  const table = [
    '| variant | runs | p50 ms/run | p95 ms/run | p50 ms/turn | p50 CPU ms/run |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.n} | ${r.p50_ms} | ${r.p95_ms} | ${r.per_turn_ms} | ${r.cpu_p50_ms} |`),
  ].join('\n');
  console.log(table);
  console.log(
    `\nin-process: ${summary.in_process.ratio}× raw (CPU ${summary.in_process.cpu_ratio}×), +${summary.in_process.added_ms_per_turn} ms/turn (target ≤ 1.5×, ≤ 1 ms): ${summary.in_process.meets_target ? 'met' : 'NOT met'}`,
  );
  console.log(
    `allow-all validator (no detection): ${summary.allow_all.ratio}× raw (CPU ${summary.allow_all.cpu_ratio}×), +${summary.allow_all.added_ms_per_turn} ms/turn (target ≤ 1.5×, ≤ 1 ms): ${summary.allow_all.meets_target ? 'met' : 'NOT met'}; detection adds ${summary.allow_all.detection_ms_per_run} ms/run`,
  );
  console.log(
    `guardrail over HTTP: ${summary.guardrail_over_http.ratio}× raw, +${summary.guardrail_over_http.added_ms_per_turn} ms/turn; over in-process +${summary.guardrail_over_http.added_vs_in_process_ms_per_turn} ms/turn (fetch transport +${summary.guardrail_over_http.fetch_transport_added_vs_in_process_ms_per_turn}, service workers: 0 +${summary.guardrail_over_http.workers_0_added_vs_in_process_ms_per_turn}, every request through the pool +${summary.guardrail_over_http.pool_only_added_vs_in_process_ms_per_turn}) (target ≤ 1 ms): ${summary.guardrail_over_http.meets_target ? 'met' : 'NOT met'}`,
  );
  console.log(
    `model ${MODEL_LATENCY_MS} ms: blocking +${summary.model_200ms.blocking_added_ms_per_turn} ms/turn, racing +${summary.model_200ms.racing_added_ms_per_turn} ms/turn vs raw (target < 1 ms): ${summary.model_200ms.meets_target ? 'met' : 'NOT met'}`,
  );

  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(
    RESULTS,
    JSON.stringify(
      {
        bench: 'runner-overhead',
        date: new Date().toISOString(),
        node: process.version,
        turns_per_run: TURNS,
        iterations: ITERATIONS,
        slow_iterations: SLOW_ITERATIONS,
        rows,
        summary,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nwrote ${RESULTS}`);
}

main().catch((err) => {
  console.error(`runner-overhead: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
