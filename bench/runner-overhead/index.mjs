// Runner overhead: the same two-agent scenario (one tool call, one handoff, three model turns) on
// the same in-process offline model, run by raw @openai/agents and by the Baton runner.
//
//   node bench/runner-overhead/index.mjs [--iterations 200] [--slow-iterations 8]
//
// Writes a table to stdout and JSON to bench/results/runner-overhead.json. Needs built packages
// (`npm run build`). Targets (issue #4): Baton ≤ 1.5× raw and ≤ 2 ms added per turn in-process;
// a racing input check adds < 1 ms to a turn whose model call takes 200 ms.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, Runner as SdkRunner, handoff, setTraceProcessors, tool } from '@openai/agents-core';
import { createGuardrailClient, createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { createGuardrailServer } from '@baton/guardrail-server/http';
import { OfflineModelProvider, Runner, createSqliteThreadStore, loadAgentRegistry } from '@baton/runner';
import { setupTracing } from '@baton/tracing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { SCENARIO, getCase, writeAgents } from './fixture.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const ITERATIONS = flag('iterations', 200);
const SLOW_ITERATIONS = flag('slow-iterations', 8);
const WARMUP = Math.max(5, Math.round(ITERATIONS / 10));
const TURNS = 3; // triage: get_case, handoff; refunds: final message
const MODEL_LATENCY_MS = 200;
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'runner-overhead.json');

/** Adds a fixed, abortable latency to every model call. */
function withLatency(provider, ms) {
  if (!ms) return provider;
  const wrap = (model) => ({
    async getResponse(request) {
      await new Promise((resolve, reject) => {
        const onAbort = () => (clearTimeout(t), reject(request.signal.reason));
        const t = setTimeout(() => (request.signal?.removeEventListener('abort', onAbort), resolve()), ms);
        request.signal?.addEventListener('abort', onAbort, { once: true });
      });
      return model.getResponse(request);
    },
    getStreamedResponse: (request) => model.getStreamedResponse(request),
  });
  return { getModel: (name) => wrap(provider.getModel(name)), getModelForAgent: (a) => wrap(provider.getModelForAgent(a)) };
}

/** Raw @openai/agents: Agent + Runner + an SDK handoff named like Baton's. */
function rawVariant(latencyMs) {
  const provider = withLatency(new OfflineModelProvider(SCENARIO), latencyMs);
  const refunds = new Agent({ name: 'refunds', instructions: 'Benchmark agent.', model: provider.getModel('bench-model') });
  const triage = new Agent({
    name: 'triage',
    instructions: 'Benchmark agent.',
    model: provider.getModel('bench-model'),
    tools: [tool({ name: 'get_case', description: 'Loads a case.', parameters: z.object({ case_id: z.string() }), execute: getCase })],
    handoffs: [
      handoff(refunds, {
        toolNameOverride: 'system__handoff',
        inputType: z.object({
          target_agent_id: z.enum(['bench.agents.refunds']),
          input: z.string(),
          state: z.object({ order_id: z.string() }),
        }),
        onHandoff: () => undefined,
      }),
    ],
  });
  const runner = new SdkRunner({ tracingDisabled: true });
  return {
    name: latencyMs ? `raw @openai/agents, model ${latencyMs} ms` : 'raw @openai/agents',
    async once() {
      const result = await runner.run(triage, 'Refund for case C-1001 please');
      if (result.lastAgent?.name !== 'refunds') throw new Error('raw run did not hand off');
    },
    close: async () => undefined,
  };
}

async function batonVariant({ name, guardrails, inputGuardrail = 'blocking', latencyMs = 0 }) {
  const agentsDir = writeAgents(inputGuardrail);
  const storeDir = mkdtempSync(join(tmpdir(), 'baton-bench-store-'));
  const store = createSqliteThreadStore({ file: join(storeDir, 'bench.db') });
  const runner = new Runner({
    registry: await loadAgentRegistry({ dir: agentsDir }),
    tools: { get_case: getCase },
    guardrails: guardrails.validator,
    store,
    modelProvider: withLatency(new OfflineModelProvider(SCENARIO), latencyMs),
    modelLabel: 'offline model',
  });
  return {
    name,
    async once() {
      const result = await runner.run({ agentId: 'bench.agents.triage', input: 'Refund for case C-1001 please' });
      if (result.status !== 'completed' || result.agent_id !== 'bench.agents.refunds') {
        throw new Error(`${name}: run ended ${result.status} at ${result.agent_id}: ${JSON.stringify(result.runs.map((r) => r.error))}`);
      }
    },
    async close() {
      await store.close();
      rmSync(agentsDir, { recursive: true, force: true });
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return {
    n: sorted.length,
    mean_ms: round(mean),
    p50_ms: round(pick(0.5)),
    p95_ms: round(pick(0.95)),
    per_turn_ms: round(pick(0.5) / TURNS),
  };
}
const round = (v) => Math.round(v * 1000) / 1000;

/**
 * Times variants round-robin (one run of each per round, after warm-up), so every variant sees
 * the same machine load and the ratios to raw stay meaningful on a busy machine.
 */
async function measureInterleaved(variants, iterations, warmup, afterRound = () => undefined) {
  for (let i = 0; i < warmup; i++) for (const v of variants) await v.once();
  const samples = variants.map(() => []);
  for (let i = 0; i < iterations; i++) {
    for (let j = 0; j < variants.length; j++) {
      const t0 = performance.now();
      await variants[j].once();
      samples[j].push(performance.now() - t0);
    }
    afterRound(i);
  }
  return variants.map((v, j) => ({ name: v.name, ...stats(samples[j]) }));
}

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
    const measured = await measureInterleaved(variants, iterations, warmup, (i) => i % 50 === 49 && exporter.reset());
    for (const v of variants) await v.close();
    exporter.reset();
    for (const row of measured) console.error(`  ${row.name}: p50 ${row.p50_ms} ms/run`);
    rows.push(...measured);
    return measured;
  };

  const [raw, baton, http, httpFetch, httpInLoop, httpPoolOnly] = await run(
    [
      rawVariant(0),
      await batonVariant({ name: 'baton, in-process guardrails, SQLite, tracing', guardrails: inProcess }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP', guardrails: overHttp }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP, fetch transport', guardrails: overFetch }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP, workers: 0', guardrails: overHttpInLoop }),
      await batonVariant({ name: 'baton, guardrail service over loopback HTTP, inlineMaxBytes: 0', guardrails: overHttpPoolOnly }),
    ],
    ITERATIONS,
    WARMUP,
  );
  const [rawSlow, blocking, racing] = await run(
    [
      rawVariant(MODEL_LATENCY_MS),
      await batonVariant({
        name: `baton, blocking input check (HTTP), model ${MODEL_LATENCY_MS} ms`,
        guardrails: overHttp,
        latencyMs: MODEL_LATENCY_MS,
      }),
      await batonVariant({
        name: `baton, racing input check (HTTP), model ${MODEL_LATENCY_MS} ms`,
        guardrails: overHttp,
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

  const added = (a, b) => round((a.p50_ms - b.p50_ms) / TURNS);
  const summary = {
    in_process: {
      ratio: round(baton.p50_ms / raw.p50_ms),
      added_ms_per_turn: added(baton, raw),
      target: 'ratio <= 1.5 and <= 2 ms added per turn',
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
  summary.in_process.meets_target = summary.in_process.ratio <= 1.5 && summary.in_process.added_ms_per_turn <= 2;
  summary.guardrail_over_http.meets_target = summary.guardrail_over_http.added_vs_in_process_ms_per_turn <= 1;
  summary.model_200ms.meets_target = summary.model_200ms.racing_added_ms_per_turn < 1;

  const table = [
    '| variant | runs | p50 ms/run | p95 ms/run | p50 ms/turn |',
    '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.n} | ${r.p50_ms} | ${r.p95_ms} | ${r.per_turn_ms} |`),
  ].join('\n');
  console.log(table);
  console.log(
    `\nin-process: ${summary.in_process.ratio}× raw, +${summary.in_process.added_ms_per_turn} ms/turn (target ≤ 1.5×, ≤ 2 ms): ${summary.in_process.meets_target ? 'met' : 'NOT met'}`,
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
