// What the runner-overhead scripts share (index.mjs, the benchmark; ab.mjs, a before/after
// comparison of two runner builds; _drive.mjs, the profiling driver): the raw @openai/agents
// variant, a Baton runner variant over any @baton/runner build, the allow-all validator, and
// round-robin timing with wall and CPU time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, Runner as SdkRunner, handoff, tool } from '@openai/agents-core';
import * as CURRENT from '@baton/runner';
import { z } from 'zod';
import { SCENARIO, getCase, writeAgents } from './fixture.mjs';

/** Model turns per run: triage calls get_case, then hands off; refunds answers. */
export const TURNS = 3;
export const INPUT = 'Refund for case C-1001 please';

/**
 * A validator that answers ALLOW at once: no detection at all, like raw @openai/agents. Next to
 * the in-process engine it separates the runner's own overhead from the cost of detection.
 */
export const allowAllValidator = {
  validate: async (request) => ({ action_id: request.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: 'allowed' }),
};

/** Adds a fixed, abortable latency to every model call. */
export function withLatency(provider, ms) {
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

/** Raw @openai/agents: Agent + Runner + an SDK handoff named like Baton's, on the same offline model. */
export function rawVariant({ latencyMs = 0 } = {}) {
  const provider = withLatency(new CURRENT.OfflineModelProvider(SCENARIO), latencyMs);
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
      const result = await runner.run(triage, INPUT);
      if (result.lastAgent?.name !== 'refunds') throw new Error('raw run did not hand off');
    },
    close: async () => undefined,
  };
}

/**
 * Raw @openai/agents run the way the Baton runner runs a handoff (one SDK run per agent): triage
 * runs until it calls a plain `system__handoff` function tool (the run stops there), then a
 * second run starts the target with the handoff's input. No store, no guardrail, no spans: the
 * floor of the one-run-per-agent design, next to `rawVariant`'s one loop with a native handoff.
 */
export function rawTwoRunsVariant() {
  const provider = new CURRENT.OfflineModelProvider(SCENARIO);
  const refunds = new Agent({ name: 'refunds', instructions: 'Benchmark agent.', model: provider.getModel('bench-model') });
  let handedOff;
  const triage = new Agent({
    name: 'triage',
    instructions: 'Benchmark agent.',
    model: provider.getModel('bench-model'),
    tools: [
      tool({ name: 'get_case', description: 'Loads a case.', parameters: z.object({ case_id: z.string() }), execute: getCase }),
      tool({
        name: 'system__handoff',
        description: 'Hands the conversation to another agent.',
        parameters: z.object({
          target_agent_id: z.enum(['bench.agents.refunds']),
          input: z.string(),
          state: z.object({ order_id: z.string() }),
        }),
        execute: (args) => {
          handedOff = args;
          return 'handed off';
        },
      }),
    ],
    toolUseBehavior: { stopAtToolNames: ['system__handoff'] },
  });
  const runner = new SdkRunner({ tracingDisabled: true });
  return {
    name: 'raw @openai/agents, one run per agent',
    async once() {
      handedOff = undefined;
      await runner.run(triage, INPUT);
      if (!handedOff) throw new Error('raw two-run variant did not hand off');
      const result = await runner.run(refunds, handedOff.input);
      if (typeof result.finalOutput !== 'string' || !result.finalOutput.includes('Refund approved')) {
        throw new Error(`raw two-run variant ended with ${JSON.stringify(result.finalOutput)}`);
      }
    },
    close: async () => undefined,
  };
}

/**
 * The Baton runner on the scenario. `build` is a `@baton/runner` module namespace (default the
 * current one; ab.mjs passes an older build); `store` 'sqlite' (a fresh file) or 'memory';
 * `runnerOptions` are spread into the Runner's options (ablate.mjs: its own tracer).
 */
export async function batonVariant({
  name,
  validator,
  build = CURRENT,
  store = 'sqlite',
  inputGuardrail = 'blocking',
  latencyMs = 0,
  wrapStore,
  runnerOptions = {},
}) {
  const agentsDir = writeAgents(inputGuardrail);
  const storeDir = mkdtempSync(join(tmpdir(), 'baton-bench-store-'));
  const threadStore =
    store === 'memory' ? build.createMemoryThreadStore() : build.createSqliteThreadStore({ file: join(storeDir, 'bench.db') });
  const runner = new build.Runner({
    registry: await build.loadAgentRegistry({ dir: agentsDir }),
    tools: { get_case: getCase },
    guardrails: validator,
    store: wrapStore ? wrapStore(threadStore) : threadStore,
    modelProvider: withLatency(new build.OfflineModelProvider(SCENARIO), latencyMs),
    modelLabel: 'offline model',
    ...runnerOptions,
  });
  return {
    name,
    async once() {
      const result = await runner.run({ agentId: 'bench.agents.triage', input: INPUT });
      if (result.status !== 'completed' || result.agent_id !== 'bench.agents.refunds') {
        throw new Error(`${name}: run ended ${result.status} at ${result.agent_id}: ${JSON.stringify(result.runs.map((r) => r.error))}`);
      }
    },
    async close() {
      await threadStore.close();
      rmSync(agentsDir, { recursive: true, force: true });
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

const round = (v) => Math.round(v * 1000) / 1000;

/** p50/p95/mean of wall samples and the p50 of CPU samples (ms per run). */
export function stats(wall, cpu) {
  const pick = (samples, q) => {
    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  };
  return {
    n: wall.length,
    mean_ms: round(wall.reduce((s, v) => s + v, 0) / wall.length),
    p50_ms: round(pick(wall, 0.5)),
    p95_ms: round(pick(wall, 0.95)),
    per_turn_ms: round(pick(wall, 0.5) / TURNS),
    cpu_p50_ms: round(pick(cpu, 0.5)),
  };
}

/**
 * Times variants round-robin (one run of each per round, after warm-up), so every variant sees
 * the same machine load and the ratios to raw stay meaningful on a busy machine. Records wall
 * time and CPU time (`process.cpuUsage`): on a machine busier than its cores, wall time of a
 * multi-millisecond run is dominated by preemption, CPU time is not.
 */
export async function measureInterleaved(variants, { iterations, warmup, afterRound = () => undefined }) {
  for (let i = 0; i < warmup; i++) for (const v of variants) await v.once();
  const wall = variants.map(() => []);
  const cpu = variants.map(() => []);
  for (let i = 0; i < iterations; i++) {
    for (let j = 0; j < variants.length; j++) {
      const c = process.cpuUsage();
      const t0 = performance.now();
      await variants[j].once();
      wall[j].push(performance.now() - t0);
      const d = process.cpuUsage(c);
      cpu[j].push((d.user + d.system) / 1000);
    }
    afterRound(i);
  }
  return variants.map((v, j) => ({ name: v.name, ...stats(wall[j], cpu[j]) }));
}

/** "+x ms per turn" of `a` over `b` (p50 wall). */
export const addedPerTurn = (a, b, key = 'p50_ms') => round((a[key] - b[key]) / TURNS);
export { round };
