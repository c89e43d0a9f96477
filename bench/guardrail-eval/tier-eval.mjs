// Held-out helpers shared by the opt-in tier benches (embedding-tier.mjs, use-encoder.mjs): the
// reserved held-out sets and what the engine (default policy) decides on each of their rows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const HELDOUT_SETS = ['direct', 'indirect', 'multilingual', 'security'];

export const loadJsonl = (p) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** The reserved held-out sets of `corpusDir/heldout`, by name. */
export const loadHeldoutSets = (corpusDir) =>
  Object.fromEntries(HELDOUT_SETS.map((n) => [n, loadJsonl(join(corpusDir, 'heldout', `${n}.jsonl`))]));

/** Recall at the threshold that lets at most `f` of `neg` through (oracle: read off the scored benign rows). */
export function recallAtFpr(pos, neg, f) {
  const s = [...neg].sort((a, b) => b - a);
  const t = s[Math.floor(f * s.length)] ?? -Infinity;
  return pos.filter((p) => p > t).length / pos.length;
}

/** Per set, per row: does the engine (default policy) BLOCK it as PROMPT_INJECTION? */
export function engineInjectionBlocks(baton, sets) {
  const engine = baton.createGuardrailEngine();
  const request = (r, i) => {
    const base = {
      action_id: '00000000-0000-4000-8000-000000000001',
      source_agent_id: 'io.bench.a',
      thread_id: `t-emb-${i}`,
      trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
    };
    return r.action === 'TOOL_OUTPUT'
      ? { ...base, action_type: 'TOOL_OUTPUT', payload: { tool_call_id: 'c1', name: 'read_document', output: r.text } }
      : { ...base, action_type: 'AGENT_INPUT', payload: r.text };
  };
  return Object.fromEntries(
    Object.entries(sets).map(([set, rows]) => [
      set,
      rows.map((r, i) => {
        const res = engine.validateSync(request(r, i));
        return res.decision === 'BLOCK' && res.reason_code === 'PROMPT_INJECTION';
      }),
    ]),
  );
}
