/**
 * Feature extraction for the injection classifier. Shared by the runtime detector and the
 * training script (scripts/train-injection.mjs imports this module from dist), so the two can
 * never disagree. Changing anything here means retraining: bump FEATURE_VERSION.
 */
import { decodeLayers } from '../text/decode.js';
import { foldText } from '../text/normalize.js';
import { CUE_FAMILIES, countCues, findCues, type CueHit } from './injection-heuristics.js';

export const FEATURE_VERSION = 3;
/** Number of hashed n-gram buckets. */
export const HASH_BUCKETS = 1 << 16;
/** Hand features after the hashed buckets: cue counts, cue counts in decoded layers, flags. */
export const HAND_FEATURES = CUE_FAMILIES.length * 2 + 3;
export const FEATURE_COUNT = HASH_BUCKETS + HAND_FEATURES;
/** Longest text the features look at; beyond this the head and tail are used. */
export const MAX_FEATURE_CHARS = 16384;
/** Hand features are scaled up so that L2 regularisation lets them outweigh single n-grams. */
const HAND_SCALE = 1;
/**
 * Floor on the n-gram count the hashed features are normalised by (1/sqrt(max(n, NORM_FLOOR))).
 * Plain L2 normalisation gives a one-word text's single n-gram the value 1, where the same n-gram
 * in the 60-600 character segments the weights are learned on (~20-200 n-grams) has 0.07-0.22: a
 * short input was scored by one or two amplified word weights ("refund" alone scored 0.81)
 * instead of the bias. With the floor, a text of fewer than ~25 words keeps its n-grams at
 * training-scale values and needs real evidence (cues, or many suspicious n-grams) to be flagged.
 */
const NORM_FLOOR = 48;

const WORD = /[\p{L}\p{N}_']+/gu;
/** Scratch for deduplicating buckets in injectionFeatures; all zero between calls. */
const SEEN = new Uint8Array(HASH_BUCKETS);
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

function fnv1a(s: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & (HASH_BUCKETS - 1);
}

/** `fnv1a(`${a} ${b}`, seed)` without building the string (the hot path: one per word pair). */
function fnv1aPair(a: string, b: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < a.length; i++) {
    h ^= a.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= 0x20;
  h = Math.imul(h, 0x01000193);
  for (let i = 0; i < b.length; i++) {
    h ^= b.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & (HASH_BUCKETS - 1);
}

/** Sparse features of one text plus the cue hits that fed them. */
export interface InjectionFeatures {
  indices: number[];
  values: number[];
  cues: CueHit[];
}

function clip(text: string): string {
  if (text.length <= MAX_FEATURE_CHARS) return text;
  const half = MAX_FEATURE_CHARS / 2;
  return `${text.slice(0, half)}\n${text.slice(text.length - half)}`;
}

const SEGMENT_BREAK = /\n+|(?<=[.!?:;])\s+(?=\S)/;
const MIN_SEGMENT = 60;
const MAX_SEGMENT = 600;

/**
 * The pieces a text is scored in: the whole text (decoded layers included) and, when it has
 * more than one, its sentence/line segments merged to at least MIN_SEGMENT characters. An
 * instruction buried in a long benign document stands out in its own segment.
 */
export function segmentText(raw: string): string[] {
  const text = clip(raw);
  const pieces = text.split(SEGMENT_BREAK);
  const segments: string[] = [];
  let cur = '';
  for (const p of pieces) {
    if (!p) continue;
    cur = cur ? `${cur} ${p}` : p;
    if (cur.length >= MIN_SEGMENT) {
      for (let i = 0; i < cur.length; i += MAX_SEGMENT) segments.push(cur.slice(i, i + MAX_SEGMENT));
      cur = '';
    }
  }
  if (cur) {
    if (segments.length > 0 && cur.length < MIN_SEGMENT) segments[segments.length - 1] += ` ${cur}`;
    else segments.push(cur);
  }
  return segments.length > 1 ? segments : [];
}

/** One piece of a text the classifier scores: a segment, the text itself, or its decoded layers. */
export interface TextPiece {
  text: string;
  /** True for text recovered from an encoding (base64, hex, ROT13, tag characters, ...). */
  decoded: boolean;
}

/**
 * The pieces a text is scored as: its segments (or the text itself when it is short), plus the
 * decoded layers hidden in it as one more piece. The text's score is its worst piece's.
 */
export function textPieces(raw: string): TextPiece[] {
  const segments = segmentText(raw);
  const pieces: TextPiece[] = segments.length > 0 ? segments.map((t) => ({ text: t, decoded: false })) : [{ text: clip(raw), decoded: false }];
  const layers = decodeLayers(clip(raw));
  if (layers.length > 0) pieces.push({ text: layers.join('\n'), decoded: true });
  return pieces;
}

/** Extracts the classifier's features from one piece (folding happens here). */
export function injectionFeatures(piece: TextPiece): InjectionFeatures {
  const folded = foldText(piece.text);
  const cues = findCues(folded);

  // Distinct buckets, deduplicated with a scratch bitmap (reset before returning) and sorted as a
  // typed array: the same sorted indices a Set plus a comparator sort gives, without either.
  const found: number[] = [];
  const add = (bucket: number): void => {
    if (SEEN[bucket] === 0) {
      SEEN[bucket] = 1;
      found.push(bucket);
    }
  };
  const words = folded.match(WORD) ?? [];
  let prev = '';
  // One test of the whole text instead of one per word; a word can only be CJK if the text is.
  const mayBeCjk = CJK.test(folded);
  for (const w of words) {
    add(fnv1a(w, 1));
    if (prev) add(fnv1aPair(prev, w, 2));
    prev = w;
    if (mayBeCjk && CJK.test(w)) for (let i = 0; i + 2 <= w.length; i++) add(fnv1a(w.slice(i, i + 2), 3));
  }
  for (const bucket of found) SEEN[bucket] = 0;
  const sorted = new Int32Array(found.length);
  for (let i = 0; i < found.length; i++) sorted[i] = found[i]!;
  sorted.sort();
  const indices: number[] = new Array<number>(sorted.length);
  for (let i = 0; i < sorted.length; i++) indices[i] = sorted[i]!;
  const scale = indices.length > 0 ? 1 / Math.sqrt(Math.max(indices.length, NORM_FLOOR)) : 0;
  const values = indices.map(() => scale);

  const counts = countCues(cues);
  const offset = HASH_BUCKETS + (piece.decoded ? CUE_FAMILIES.length : 0);
  for (let i = 0; i < counts.length; i++) {
    if (counts[i]! > 0) {
      indices.push(offset + i);
      values.push(HAND_SCALE * Math.log1p(counts[i]!));
    }
  }
  const families = new Set(cues.map((c) => c.family)).size;
  const base = HASH_BUCKETS + CUE_FAMILIES.length * 2;
  indices.push(base, base + 1, base + 2);
  values.push(families >= 2 ? HAND_SCALE : 0, families >= 3 ? HAND_SCALE : 0, piece.decoded ? HAND_SCALE : 0);
  return { indices, values, cues };
}
