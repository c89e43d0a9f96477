#!/usr/bin/env node
// Trains the logistic head of the opt-in embedding tier (`@baton/guardrail-server/embedding`) on
// the injection training corpus, over features from a word-vectors file the operator provides.
// The head is written where --out says, never into the repo: it is tied to those vectors, and
// neither vectors nor heads trained on them are committed.
//
//   npx turbo run build --filter=@baton/guardrail-server
//   BATON_CORPUS_DIR=/work/corpus node packages/guardrail-server/scripts/train-embedding-head.mjs \
//     --vectors /path/glove.100d.txt --out /tmp/embedding-head.json [--hidden 32] [--epochs 8] [--max-words 200000]
//
// Rows: the same decontaminated corpus as the default classifier (train-lib's loadTrainingCorpus),
// split by text hash: fit on "train", thresholds (1% / 2% FPR per action type) on "cal" benign
// rows, numbers printed for "test". The reserved held-out sets are never read here.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  EMBEDDING_FEATURE_VERSION,
  embeddingFeatures,
  embeddingInjectionScore,
  loadWordVectors,
  textWindows,
} from '../dist/embedding/index.js';
import { fitEmbeddingHead } from './embedding-head-fit.mjs';
import { auc, loadTrainingCorpus, splitOf, thresholdForFpr } from './injection-corpus/train-lib.mjs';

const { values: args } = parseArgs({
  options: {
    vectors: { type: 'string' },
    out: { type: 'string' },
    'max-words': { type: 'string' },
    'window-chars': { type: 'string', default: '600' },
    epochs: { type: 'string', default: '8' },
    // 32 ReLU units: on the training side's own test split a linear head reached AUC 0.865 and
    // 32 / 128 units 0.946 / 0.949, so 32 (cheaper) is the default. --hidden 0: logistic regression.
    hidden: { type: 'string', default: '32' },
  },
});
if (!args.vectors || !args.out) {
  console.error('usage: train-embedding-head.mjs --vectors <file> --out <head.json> [--max-words N]');
  process.exit(2);
}
const CORPUS_DIR = process.env.BATON_CORPUS_DIR ?? '/work/corpus';
const windowChars = Number(args['window-chars']);
const t0 = Date.now();
const vectors = await loadWordVectors({
  path: args.vectors,
  maxWords: args['max-words'] ? Number(args['max-words']) : undefined,
});
console.log(`vectors: ${vectors.index.size} words x ${vectors.dims} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
const { rows } = await loadTrainingCorpus(CORPUS_DIR);
const split = rows.map((r) => splitOf(r.text));

// Examples: each row whole; for long rows also their windows, labelled benign for benign rows and,
// for attacks that record where the instruction was planted (`span`), positive when they overlap
// it. Windows of attacks without a span are left out: they may be only the benign carrier.
const X = [];
const Y = [];
for (let i = 0; i < rows.length; i++) {
  if (split[i] !== 'train') continue;
  const r = rows[i];
  X.push(embeddingFeatures(r.text, vectors));
  Y.push(r.label);
  if (r.text.length <= windowChars) continue;
  if (r.label === 1 && !r.span) continue;
  let at = 0;
  for (const w of textWindows(r.text, windowChars)) {
    const start = r.text.indexOf(w, at);
    at = Math.max(at, start);
    const y = r.label === 0 ? 0 : start < r.span.end && start + w.length > r.span.start ? 1 : 0;
    X.push(embeddingFeatures(w, vectors));
    Y.push(y);
  }
}
console.log(`examples: ${X.length} (${Y.filter(Boolean).length} positive), features ${X[0].length}`);
const head = {
  featureVersion: EMBEDDING_FEATURE_VERSION,
  dims: vectors.dims,
  ...fitEmbeddingHead({
    X,
    Y,
    hidden: Number(args.hidden),
    epochs: Number(args.epochs),
    log: (epoch) => console.log(`epoch ${epoch} (${((Date.now() - t0) / 1000).toFixed(0)} s)`),
  }),
  meta: {},
};

const score = (r) => embeddingInjectionScore(r.text, vectors, head, windowChars);
const scored = rows.map((r, i) => ({ r, split: split[i], s: split[i] === 'train' ? 0 : score(r) }));
const thresholds = {};
for (const action of ['AGENT_INPUT', 'TOOL_OUTPUT']) {
  const benign = scored.filter((d) => d.split === 'cal' && d.r.label === 0 && d.r.action === action).map((d) => d.s);
  thresholds[action] = { fpr1: thresholdForFpr(benign, 0.01), fpr2: thresholdForFpr(benign, 0.02), calBenign: benign.length };
}
const test = scored.filter((d) => d.split === 'test');
const thr = (d, k) => thresholds[d.r.action === 'TOOL_OUTPUT' ? 'TOOL_OUTPUT' : 'AGENT_INPUT'][k];
const rate = (ds, k) => ds.filter((d) => d.s >= thr(d, k)).length / ds.length;
const tp = test.filter((d) => d.r.label === 1);
const tn = test.filter((d) => d.r.label === 0);
console.log(
  `training-side test split (NOT held-out; same sources as training): AUC ${auc(
    test.map((d) => d.s),
    test.map((d) => d.r.label),
  ).toFixed(
    3,
  )}; at cal 1% thr: recall ${rate(tp, 'fpr1').toFixed(3)} FPR ${rate(tn, 'fpr1').toFixed(3)}; at cal 2% thr: recall ${rate(tp, 'fpr2').toFixed(3)} FPR ${rate(tn, 'fpr2').toFixed(3)}`,
);
console.log('thresholds (cal split benign, per action type):', JSON.stringify(thresholds));
head.meta = {
  vectors: args.vectors,
  words: vectors.index.size,
  windowChars,
  hidden: Number(args.hidden),
  trainedOn: `${CORPUS_DIR} (decontaminated, split "train")`,
  thresholds,
};
writeFileSync(args.out, JSON.stringify(head));
console.log(`wrote ${args.out} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
