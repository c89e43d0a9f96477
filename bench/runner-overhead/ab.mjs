// Before/after A/B of the runner (not run by bench/run.mjs): raw @openai/agents, an older build of
// @baton/runner and the current one, interleaved round-robin in one process, each on SQLite and on
// the memory store. Reports the median wall time AND the median CPU time (process.cpuUsage) per
// run: on a machine busier than its cores, wall time of a multi-millisecond run is dominated by
// preemption, CPU time is not.
//
//   git archive <commit> packages/runner/src | tar -x -C /tmp/before   # then build it, e.g.
//   (cd packages/runner && npx tsc -p <a tsconfig with rootDir /tmp/before/... outDir ...>)
//   BEFORE=<path to that build's index.js> N=300 [NOOPG=1] node bench/runner-overhead/ab.mjs
//
// The older build must sit inside the repository (its bare imports resolve from node_modules).
// NOOPG=1 swaps the in-process guardrail engine for a validator that answers ALLOW at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, Runner as SdkRunner, handoff, setTraceProcessors, tool } from '@openai/agents-core';
import { createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { setupTracing } from '@baton/tracing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import * as NEW from '@baton/runner';
import { SCENARIO, getCase, writeAgents } from './fixture.mjs';
if (!process.env.BEFORE) throw new Error('set BEFORE to the index.js of an older @baton/runner build');
const OLD = await import(pathToFileURL(resolve(process.env.BEFORE)).href);
const N = Number(process.env.N ?? 300);
setTraceProcessors([]);
const exporter = new InMemorySpanExporter();
const tracing = setupTracing({ serviceName: 'ab', exporter, processor: 'batch', env: {} });
const validator = process.env.NOOPG
  ? { validate: async (r) => ({ action_id: r.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: 'ok' }) }
  : createInProcessGuardrail(createGuardrailEngine());
const dir = writeAgents('blocking');
const provider = new NEW.OfflineModelProvider(SCENARIO);
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
const sdk = new SdkRunner({ tracingDisabled: true });
async function baton(M, mem) {
  const store = mem ? M.createMemoryThreadStore() : M.createSqliteThreadStore({ file: join(mkdtempSync(join(tmpdir(), 'ab-')), 'b.db') });
  const runner = new M.Runner({
    registry: await M.loadAgentRegistry({ dir }),
    tools: { get_case: getCase },
    guardrails: validator,
    store,
    modelProvider: new M.OfflineModelProvider(SCENARIO),
    modelLabel: 'offline',
  });
  return async () => {
    const r = await runner.run({ agentId: 'bench.agents.triage', input: 'Refund for case C-1001 please' });
    if (r.status !== 'completed') throw new Error(JSON.stringify(r.error));
  };
}
const variants = [
  [
    'raw @openai/agents',
    async () => {
      await sdk.run(triage, 'Refund for case C-1001 please');
    },
  ],
  ['baton before, SQLite', await baton(OLD, false)],
  ['baton after, SQLite', await baton(NEW, false)],
  ['baton before, memory store', await baton(OLD, true)],
  ['baton after, memory store', await baton(NEW, true)],
];
for (let i = 0; i < 30; i++) for (const [, f] of variants) await f();
const samples = variants.map(() => []);
const cpu = variants.map(() => []);
for (let i = 0; i < N; i++) {
  for (let j = 0; j < variants.length; j++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await variants[j][1]();
    samples[j].push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu[j].push((d.user + d.system) / 1000);
  }
  if (i % 50 === 49) exporter.reset();
}
const p50 = (s) => [...s].sort((a, b) => a - b)[s.length >> 1];
const raw = p50(samples[0]);
const rawCpu = p50(cpu[0]);
console.log('| variant | p50 wall ms/run | × raw | p50 CPU ms/run | CPU × raw | CPU ms added per turn |\n|---|---:|---:|---:|---:|---:|');
variants.forEach(([name], j) => {
  const m = p50(samples[j]);
  const c = p50(cpu[j]);
  console.log(
    `| ${name} | ${m.toFixed(3)} | ${(m / raw).toFixed(2)} | ${c.toFixed(3)} | ${(c / rawCpu).toFixed(2)} | ${((c - rawCpu) / 3).toFixed(3)} |`,
  );
});
await tracing.shutdown();
