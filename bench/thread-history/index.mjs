// Thread history cost: one run on a thread that already holds N earlier turns (each: a user
// message, a tool call/result pair, an answer), with history replayed (the default window of 20
// turns) vs. the same agent with `history: { max_turns: 0 }` (nothing read, nothing sent). Same
// process, same SQLite store, the offline model, in-process guardrail engine.
//
//   node bench/run.mjs thread-history      (after `npm run build`)
//
// Every measured run adds a turn, so a thread of N grows to N + warm-up + iterations turns; the
// table says so. Reported: median ms per run and the ratio to the no-history baseline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { OfflineModelProvider, Runner, createAgentRegistry, createSqliteThreadStore, parseDeploymentConfig } from '@baton/runner';
import { measure, printTable, writeResult } from '../lib.mjs';

const WITH = 'io.bench.with-history';
const WITHOUT = 'io.bench.no-history';
const SIZES = [0, 20, 200, 1000];
const WARMUP = 5;
const ITERATIONS = 40;

const SCENARIO = {
  version: 1,
  name: 'thread-history',
  agents: {
    '*': {
      rules: [
        { when: { turn: 1 }, call: { name: 'lookup', arguments: { q: '{{input}}' } } },
        { when: { tool: 'lookup' }, message: 'Found: {{last_tool_output}}' },
      ],
    },
  },
};

function agent(id) {
  return {
    manifest: {
      schema_version: '1.0',
      id,
      version: '1.0.0',
      name: id,
      instructions: 'Benchmark agent.',
      model: { provider: 'openai', name: 'bench-model' },
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks something up.',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
          },
        },
      ],
    },
    source: `${id}.agent.yml`,
  };
}

export default async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-history-'));
  const store = createSqliteThreadStore({ file: join(dir, 'bench.db') });
  try {
    const parsed = parseDeploymentConfig('baton.yml', dir, `agents:\n  ${WITHOUT}:\n    history: { max_turns: 0 }\n`);
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
    const runner = new Runner({
      registry: createAgentRegistry({ agents: [agent(WITH), agent(WITHOUT)], deployment: parsed.value }),
      tools: { lookup: ({ q }) => ({ result: `record for ${q}`.repeat(4) }) },
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: new OfflineModelProvider(SCENARIO),
    });
    const turn = async (agentId, threadId, i) => {
      const r = await runner.run({ agentId, threadId, input: `question ${i} about order ORD-${10000 + i}` });
      if (r.status !== 'completed') throw new Error(`run failed: ${JSON.stringify(r.error)}`);
    };
    const rows = [];
    for (const size of SIZES) {
      const times = {};
      for (const agentId of [WITHOUT, WITH]) {
        const threadId = `bench_${agentId.split('.').pop()}_${size}`;
        for (let i = 0; i < size; i++) await turn(agentId, threadId, i);
        times[agentId] = await measure((i) => turn(agentId, threadId, size + i), { warmup: WARMUP, iterations: ITERATIONS });
      }
      rows.push({
        earlier_turns: `${size}→${size + WARMUP + ITERATIONS}`,
        no_history_p50_ms: times[WITHOUT].median,
        history_p50_ms: times[WITH].median,
        ratio: times[WITH].median / times[WITHOUT].median,
        added_ms: times[WITH].median - times[WITHOUT].median,
      });
    }
    printTable(rows, { title: 'one run on a thread with earlier turns (default window: 20 turns replayed)' });
    const file = await writeResult('thread-history', { iterations: ITERATIONS, warmup: WARMUP, window: 'default (20 turns)', rows });
    process.stdout.write(`wrote ${file}\n`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
