#!/usr/bin/env node
// The opt-in embedding tier (`@baton/guardrail-server/embedding`) on the RESERVED held-out
// injection sets, next to the default classifier's score on the same rows. Needs a vectors file
// and a head trained by packages/guardrail-server/scripts/train-embedding-head.mjs (neither is in
// the repo); skipped without them.
//
//   BATON_EMBEDDING_VECTORS=/path/glove.vec BATON_EMBEDDING_HEAD=/tmp/head.json \
//     node bench/guardrail-eval/embedding-tier.mjs
//
// Two kinds of number: recall at the thresholds the training script chose on the corpus's
// calibration split (what a deployment would use; FPR on held-out benign shown next to it), and
// recall at FPR <= 1% / 2% with thresholds read off the held-out benign rows (oracle: ranking
// quality only, as in injection.mjs).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measure, printTable, round, writeResult } from '../lib.mjs';
import { engineInjectionBlocks, HELDOUT_SETS, loadHeldoutSets, recallAtFpr } from './tier-eval.mjs';

const CORPUS_DIR = process.env.BATON_CORPUS_DIR ?? '/work/corpus';
const vectorsPath = process.env.BATON_EMBEDDING_VECTORS;
const headPath = process.env.BATON_EMBEDDING_HEAD;
const dir = join(CORPUS_DIR, 'heldout');
const names = HELDOUT_SETS;
if (!vectorsPath || !headPath || !names.every((n) => existsSync(join(dir, `${n}.jsonl`)))) {
  console.log('embedding-tier: set BATON_EMBEDDING_VECTORS and BATON_EMBEDDING_HEAD and build the held-out sets; skipped');
  process.exit(0);
}
const baton = await import('@baton/guardrail-server');
const emb = await import('@baton/guardrail-server/embedding');
const vectors = await emb.loadWordVectors({ path: vectorsPath });
const head = emb.validateEmbeddingHead(JSON.parse(readFileSync(headPath, 'utf8')), vectors.dims);
const windowChars = head.meta?.windowChars ?? 600;
const thr = head.meta?.thresholds;
const sets = loadHeldoutSets(CORPUS_DIR);
const fmt = (v) => (v === null || v === undefined || Number.isNaN(v) ? '-' : round(v));

const scorers = {
  'default classifier (detectInjection score)': (r) =>
    baton.detectInjection(r.text, { actionType: r.action === 'TOOL_OUTPUT' ? 'tool_output' : 'agent_input' }).score,
  'embedding head (word vectors)': (r) => emb.embeddingInjectionScore(r.text, vectors, head, windowChars),
};
const result = {
  note: 'reserved held-out sets: never trained, tuned or thresholded on',
  vectors: vectorsPath,
  ranking: {},
  calThresholds: {},
};
const rank = [];
const cal = [];
const scores = {};
for (const [name, fn] of Object.entries(scorers)) {
  scores[name] = Object.fromEntries(Object.entries(sets).map(([s, rows]) => [s, rows.map((r) => ({ r, s: fn(r) }))]));
}
// The higher of the two scores: needs no fitting, so nothing is tuned on held-out (ranking only).
scores['max(default, embedding)'] = Object.fromEntries(
  names.map((set) => [
    set,
    scores['default classifier (detectInjection score)'][set].map((d, i) => ({
      r: d.r,
      s: Math.max(d.s, scores['embedding head (word vectors)'][set][i].s),
    })),
  ]),
);
// A simple union: flag when either scorer is over its own oracle threshold is not shippable; the
// fused score below is the mean of the two scores' ranks within the benign pool (diagnostic).
for (const [name, byset] of Object.entries(scores)) {
  const allBenign = Object.values(byset)
    .flat()
    .filter((d) => !d.r.label)
    .map((d) => d.s);
  for (const set of ['direct', 'indirect', 'multilingual']) {
    const pos = byset[set].filter((d) => d.r.label).map((d) => d.s);
    const neg = set === 'multilingual' ? allBenign : byset[set].filter((d) => !d.r.label).map((d) => d.s);
    const v = { recallAtFpr1: recallAtFpr(pos, neg, 0.01), recallAtFpr2: recallAtFpr(pos, neg, 0.02) };
    (result.ranking[name] ??= {})[set] = v;
    rank.push({
      scorer: name,
      set,
      benign: set === 'multilingual' ? 'all held-out benign' : `${set} benign`,
      'recall @FPR<=1% (oracle thr)': fmt(v.recallAtFpr1),
      'recall @FPR<=2% (oracle thr)': fmt(v.recallAtFpr2),
    });
  }
}
printTable(rank, { title: 'Reserved held-out: recall at FPR <= 1% / 2%, thresholds read off held-out benign (oracle, diagnostic)' });
if (thr) {
  for (const k of ['fpr1', 'fpr2']) {
    const row = { 'embedding head, threshold from training-side cal split': k === 'fpr1' ? 'FPR<=1% thr' : 'FPR<=2% thr' };
    for (const set of names) {
      const ds = scores['embedding head (word vectors)'][set];
      const t = (d) => thr[d.r.action === 'TOOL_OUTPUT' ? 'TOOL_OUTPUT' : 'AGENT_INPUT'][k];
      const p = ds.filter((d) => d.r.label);
      const n = ds.filter((d) => !d.r.label);
      row[`${set} recall`] = p.length ? fmt(p.filter((d) => d.s >= t(d)).length / p.length) : '-';
      row[`${set} FPR`] = n.length ? fmt(n.filter((d) => d.s >= t(d)).length / n.length) : '-';
    }
    result.calThresholds[k] = row;
    cal.push(row);
  }
  // What a deployment runs: the engine (default policy) and, when it does not BLOCK, the tier.
  const engineBlocks = engineInjectionBlocks(baton, sets);
  for (const k of [null, 'fpr1', 'fpr2']) {
    const row = {
      'deployed decision': k ? `engine OR embedding tier (${k === 'fpr1' ? '1%' : '2%'} cal thr)` : 'engine alone (default policy)',
    };
    for (const set of names) {
      const ds = scores['embedding head (word vectors)'][set];
      const t = (d) => thr[d.r.action === 'TOOL_OUTPUT' ? 'TOOL_OUTPUT' : 'AGENT_INPUT'][k];
      const flag = ds.map((d, i) => engineBlocks[set][i] || (k !== null && d.s >= t(d)));
      const p = ds.map((d, i) => [d, flag[i]]).filter(([d]) => d.r.label);
      const n = ds.map((d, i) => [d, flag[i]]).filter(([d]) => !d.r.label);
      row[`${set} recall`] = p.length ? fmt(p.filter(([, f]) => f).length / p.length) : '-';
      row[`${set} FPR`] = n.length ? fmt(n.filter(([, f]) => f).length / n.length) : '-';
    }
    (result.deployed ??= []).push(row);
  }
  printTable(result.deployed, { title: 'Reserved held-out, what a deployment decides (thresholds from the training side only)' });
  printTable(cal, { title: 'Embedding head on reserved held-out at thresholds chosen on the training corpus (not tuned on held-out)' });
}
const texts = sets.security.map((r) => r.text).concat(sets.direct.map((r) => r.text));
const kb = texts.map((t) => (t.length >= 1024 ? t.slice(0, 1024) : t.padEnd(1024, ' Lorem ipsum dolor sit amet.')));
const timeEmb = await measure((i) => emb.embeddingInjectionScore(kb[i % kb.length], vectors, head, windowChars), {
  warmup: 300,
  iterations: 2000,
});
const timeDef = await measure((i) => baton.detectInjection(kb[i % kb.length]), { warmup: 300, iterations: 2000 });
result.timing = { embedding_ms_per_kb: timeEmb, default_ms_per_kb: timeDef };
printTable(
  [
    { what: 'embedding head score (1 KB)', median_ms: timeEmb.median, p99_ms: timeEmb.p99 },
    { what: 'default detectInjection (1 KB)', median_ms: timeDef.median, p99_ms: timeDef.p99 },
  ],
  { title: 'Time per 1 KB text' },
);
console.log(`wrote ${await writeResult('guardrail-eval-embedding', result)}`);
