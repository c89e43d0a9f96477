#!/usr/bin/env node
// The injection part of guardrail-eval alone: the reserved held-out sets through the engine (and
// vard / llm-guard on the same rows), leave-one-source-out on the training corpus, and the
// detector's and engine's time per 1 KB next to a JSON round-trip baseline measured in the same
// process. Writes bench/results/guardrail-eval-injection.json.
//
//   npx turbo run build --filter=@baton/guardrail-server...
//   node bench/guardrail-eval/injection-only.mjs            # BATON_SKIP_LOSO=1 to skip the refits
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measure, printTable, round, writeResult } from '../lib.mjs';
import { runInjectionHeldOut } from './injection.mjs';

const CORPUS_DIR = process.env.BATON_CORPUS_DIR ?? '/work/corpus';

async function tryImport(name) {
  try {
    return await import(name);
  } catch {
    return undefined;
  }
}

const baton = await import('@baton/guardrail-server');
const engine = baton.createGuardrailEngine();
const vard = await tryImport('@andersmyrmel/vard');
const llmGuardMod = await tryImport('llm-guard');
const peers = {
  vard: vard?.default ? vard.default.moderate().maxLength(10_000_000) : undefined,
  llmGuard: llmGuardMod?.LLMGuard
    ? new llmGuardMod.LLMGuard({ promptInjection: true, jailbreak: true, pii: false, profanity: false, toxicity: false, relevance: false })
    : undefined,
};
const result = { note: 'held_out: reserved sets, never trained/tuned on; loso: left-out group never trained on in its fit' };
await runInjectionHeldOut(result, { baton, engine, peers });

// Time per 1 KB: 1 KB windows of training-corpus texts (padded when shorter).
const corpus = join(CORPUS_DIR, 'injection-train.jsonl');
if (existsSync(corpus)) {
  const texts = readFileSync(corpus, 'utf8')
    .split('\n')
    .filter(Boolean)
    .filter((_, i) => i % 40 === 0)
    .map((l) => JSON.parse(l).text);
  const kb = texts.map((t) => (t.length >= 1024 ? t.slice(0, 1024) : t.padEnd(1024, ' Lorem ipsum dolor sit amet.')));
  const reqs = kb.map((t, i) => ({
    action_id: '00000000-0000-4000-8000-000000000001',
    action_type: 'AGENT_INPUT',
    source_agent_id: 'io.bench.a',
    thread_id: `t${i}`,
    trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
    payload: t,
  }));
  const detector = await measure((i) => baton.detectInjection(kb[i % kb.length]), { warmup: 500, iterations: 3000 });
  const engineTime = await measure((i) => engine.validateSync(reqs[i % reqs.length]), { warmup: 500, iterations: 3000 });
  const json = await measure((i) => JSON.parse(JSON.stringify(reqs[i % reqs.length])), { warmup: 500, iterations: 3000 });
  result.timing = {
    inputs: kb.length,
    detectInjection_ms: detector,
    engine_validateSync_ms: engineTime,
    baseline_json_roundtrip_ms: json,
    ratio_engine_to_json: engineTime.median / json.median,
  };
  printTable(
    [
      { what: 'detectInjection (1 KB)', median_ms: detector.median, p99_ms: detector.p99 },
      { what: 'engine validateSync (1 KB AGENT_INPUT, all detectors)', median_ms: engineTime.median, p99_ms: engineTime.p99 },
      { what: 'JSON.parse(JSON.stringify(request)) baseline', median_ms: json.median, p99_ms: json.p99 },
    ],
    { title: `Time per 1 KB payload (${kb.length} inputs; engine / JSON baseline ${round(engineTime.median / json.median)}x)` },
  );
}
console.log(`wrote ${await writeResult('guardrail-eval-injection', result)}`);
