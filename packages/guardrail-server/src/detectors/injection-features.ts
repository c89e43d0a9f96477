/**
 * Feature extraction for the injection classifier. Shared by the runtime detector and the
 * training script (scripts/injection-corpus/train-lib.mjs imports this module from dist), so the
 * two can never disagree. Changing anything here means retraining: bump FEATURE_VERSION.
 *
 * Features of one range of text (all on folded text, see text/normalize.ts):
 * - hashed character 3-, 4- and 5-gram counts of the letters-and-digits skeleton (words padded
 *   with a space), so a misspelling ("iunstructions") or a translation shares most of its n-grams
 *   with what the model was trained on;
 * - hashed word unigram and bigram counts (in Han, kana, Hangul and Thai, whose words are not
 *   separated by spaces, every character pair is a word);
 * - hand cue counts per family (injection-heuristics.ts), kept separate from the hashed buckets.
 * Each hashed group is scaled by 1/sqrt(its n-gram count) (with a floor, below), so a long text
 * does not score higher just for being long.
 *
 * A text is analysed once ({@link analyseText}): every character is hashed once and every hash
 * looked up once, and the whole text and each of its segments are scored from prefix sums of the
 * per-position weights. The sparse vector of a range ({@link rangeFeatures}, for training) is
 * built from the same hash ids, so it scores exactly what {@link rangeMargin} scores.
 */
import { decodeLayers } from '../text/decode.js';
import { foldText } from '../text/normalize.js';
import { CUE_FAMILIES, findCues, type CueHit } from './injection-heuristics.js';

export const FEATURE_VERSION = 8;
/** Number of hashed n-gram buckets. */
export const HASH_BUCKETS = 1 << 18;
/** Hand features after the hashed buckets: cue counts, cue counts in decoded layers, flags. */
export const HAND_FEATURES = CUE_FAMILIES.length * 2 + 3;
export const FEATURE_COUNT = HASH_BUCKETS + HAND_FEATURES;
/** Longest text the features look at; beyond this the head and tail are used. */
export const MAX_FEATURE_CHARS = 16384;
/**
 * Floors on the n-gram counts a group is normalised by (1/sqrt(max(n, floor))). Without them a
 * one-word input's few n-grams would each get a large value and be scored by one or two word
 * weights ("refund" alone was once blocked); with them a short text keeps training-scale values
 * and needs real evidence to score high.
 */
export const CHAR_FLOOR = 40;
export const WORD_FLOOR = 8;

const MASK = HASH_BUCKETS - 1;

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

const SEGMENT_BREAK = /\n+|(?<=[.!?:;。！？])\s*(?=\S)/g;
const MIN_SEGMENT = 60;
const MAX_SEGMENT = 600;

/** A segment of a text: offsets into the (clipped) text. */
export interface Segment {
  start: number;
  end: number;
}

/**
 * A text's sentence/line segments, merged to at least MIN_SEGMENT characters and cut at
 * MAX_SEGMENT; [] when the text is a single segment. An instruction buried in a long benign
 * document stands out in its own segment.
 */
export function segmentText(text: string): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let pos = 0;
  const flush = (end: number): void => {
    for (let s = start; s < end; s += MAX_SEGMENT) segments.push({ start: s, end: Math.min(end, s + MAX_SEGMENT) });
    start = end;
  };
  SEGMENT_BREAK.lastIndex = 0;
  for (const m of text.matchAll(SEGMENT_BREAK)) {
    pos = m.index + m[0].length;
    if (pos - start >= MIN_SEGMENT) flush(pos);
  }
  if (start < text.length) {
    const last = segments[segments.length - 1];
    if (last && text.length - start < MIN_SEGMENT && text.length - last.start <= MAX_SEGMENT) last.end = text.length;
    else flush(text.length);
  }
  return segments.length > 1 ? segments : [];
}

function isAlnum(c: number): boolean {
  // ASCII letters/digits, and everything non-ASCII that is not punctuation or a space (cheap
  // approximation of \p{L}\p{N}: CJK, Cyrillic, Arabic, Devanagari... all count as letters).
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c > 0xbf && c !== 0x3000 && (c < 0x2000 || c > 0x206f) && (c < 0x3000 || c > 0x303f) && (c < 0xff00 || c > 0xff0f))
  );
}

/** Han, kana, Hangul and Thai: scripts whose words are not separated by spaces. */
function isDenseScript(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0x0e00 && c <= 0x0e7f) ||
    (c >= 0xf900 && c <= 0xfaff)
  );
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * One text, analysed once: its skeleton's hashed n-gram ids per position, its words' hashed ids,
 * its cue hits and the ranges (whole text and segments) it is scored as.
 */
export interface TextAnalysis {
  /** The folded text (segments folded one by one and joined by a space). */
  folded: string;
  /** True for text recovered from an encoding (base64, hex, ROT13, tag characters, ...). */
  decoded: boolean;
  /** Skeleton length (letters and digits, runs of anything else as one space, padded). */
  length: number;
  /** Hashed character n-gram ids: `[3 * p + n - 3]` is the n-gram of length n at skeleton position p, -1 past the end. */
  charIds: Int32Array;
  /** Per word: skeleton start, skeleton end, unigram id, bigram id with the previous word (-1 for the first). */
  words: Int32Array;
  /** Number of words. */
  wordCount: number;
  /** Cue hits (offsets into `folded`). */
  cues: CueHit[];
  /** What is scored: the whole text first, then its segments (when it has more than one). */
  ranges: ScoredRange[];
}

/** A range of an analysed text that is scored on its own. */
export interface ScoredRange {
  /** Skeleton positions [start, end). */
  start: number;
  end: number;
  /** Offsets into `folded` [foldedStart, foldedEnd), for cue membership. */
  foldedStart: number;
  foldedEnd: number;
  /** For a segment: its offsets in the (clipped) input text. Absent for the whole text. */
  segment?: Segment;
}

/** Scratch for the skeleton and per-position data (grown on demand). */
let SKELETON = new Uint16Array(4096);

/**
 * Analyses one piece of text: folds each segment, builds the skeleton, hashes every character
 * n-gram and word once, and finds the cues. `segments` are offsets into `text` (empty: the whole
 * text is one range).
 */
export function analyseText(text: string, options: { decoded?: boolean; segments?: readonly Segment[] } = {}): TextAnalysis {
  const segments = options.segments ?? [];
  const parts = segments.length > 0 ? segments.map((s) => foldText(text.slice(s.start, s.end))) : [foldText(text)];
  const folded = parts.length === 1 ? parts[0]! : parts.join(' ');
  // Folded offsets where each part starts (and the end).
  const bounds: number[] = [0];
  for (const part of parts) bounds.push(bounds[bounds.length - 1]! + part.length + 1);
  bounds[bounds.length - 1] = folded.length;

  if (SKELETON.length < folded.length + 2) SKELETON = new Uint16Array(folded.length + 2);
  const buf = SKELETON;
  const skelAt: number[] = [];
  let nextBound = 0;
  let len = 0;
  buf[len++] = 0x20;
  // Words are the skeleton's letter-and-digit runs, hashed as they are read.
  const words: number[] = [];
  let wordStart = -1;
  let hw = 0;
  let prevWord = -1;
  const endWord = (end: number): void => {
    const id = hw & MASK;
    // A bigram id mixes the two words' full hashes (seeded apart from unigrams).
    const pair = prevWord === -1 ? -1 : (Math.imul(prevWord ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hw, 0xc2b2ae35)) & MASK;
    words.push(wordStart, end, id, pair);
    prevWord = hw;
    wordStart = -1;
  };
  let prevDense = 0;
  for (let i = 0; i <= folded.length; i++) {
    while (nextBound < bounds.length && bounds[nextBound] === i) {
      skelAt.push(len);
      nextBound++;
    }
    if (i === folded.length) break;
    const c = folded.charCodeAt(i);
    if (isDenseScript(c)) {
      // Scripts written without spaces: a clause is one run, so each character pair (or a lone
      // character) is a word of its own; the runs' character n-grams stay as for any text.
      if (wordStart !== -1) endWord(len);
      wordStart = prevDense ? len - 1 : len;
      hw = Math.imul(((prevDense ? Math.imul(FNV_OFFSET ^ 1 ^ prevDense, FNV_PRIME) : FNV_OFFSET ^ 1) ^ c) >>> 0, FNV_PRIME);
      buf[len++] = c;
      endWord(len);
      prevDense = c;
      continue;
    }
    prevDense = 0;
    if (isAlnum(c)) {
      if (wordStart === -1) {
        wordStart = len;
        hw = FNV_OFFSET ^ 1;
      }
      hw = Math.imul(hw ^ c, FNV_PRIME);
      buf[len++] = c;
    } else if (buf[len - 1] !== 0x20) {
      if (wordStart !== -1) endWord(len);
      buf[len++] = 0x20;
    }
  }
  if (wordStart !== -1) endWord(len);
  if (buf[len - 1] !== 0x20) buf[len++] = 0x20;

  const charIds = new Int32Array(len * 3).fill(-1);
  for (let p = 0; p + 3 <= len; p++) {
    let h = FNV_OFFSET ^ 3;
    const end = Math.min(5, len - p);
    for (let j = 0; j < end; j++) {
      h = Math.imul(h ^ buf[p + j]!, FNV_PRIME);
      if (j >= 2) charIds[3 * p + j - 2] = h & MASK;
    }
  }

  const ranges: ScoredRange[] = [{ start: 0, end: len, foldedStart: 0, foldedEnd: folded.length }];
  if (segments.length > 1) {
    for (let k = 0; k < segments.length; k++) {
      // Each range takes the space before and after it, as a text of its own would be padded.
      let start = skelAt[k]!;
      if (start > 0 && buf[start - 1] === 0x20) start--;
      let end = k + 1 < skelAt.length ? skelAt[k + 1]! : len;
      if (end < len && buf[end] === 0x20) end++;
      ranges.push({ start, end: Math.max(start, end), foldedStart: bounds[k]!, foldedEnd: bounds[k + 1]!, segment: segments[k]! });
    }
  }
  return {
    folded,
    decoded: options.decoded ?? false,
    length: len,
    charIds,
    words: Int32Array.from(words),
    wordCount: words.length / 4,
    cues: findCues(folded),
    ranges,
  };
}

/** The pieces a text is scored as: the text (with its segments), and its decoded layers. */
export function analysePieces(raw: string): TextAnalysis[] {
  const text = clip(raw);
  const out = [analyseText(text, { segments: segmentText(text) })];
  const layers = decodeLayers(text);
  if (layers.length > 0) out.push(analyseText(layers.join('\n'), { decoded: true }));
  return out;
}

/** Words of `a` inside skeleton range [start, end): index interval [from, to) (words are in order). */
function wordSpan(a: TextAnalysis, r: ScoredRange): [number, number] {
  const w = a.words;
  let lo = 0;
  let hi = a.wordCount;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (w[4 * m]! < r.start) lo = m + 1;
    else hi = m;
  }
  const from = lo;
  hi = a.wordCount;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (w[4 * m + 1]! <= r.end) lo = m + 1;
    else hi = m;
  }
  return [from, Math.max(from, lo)];
}

function charCount(r: ScoredRange): number {
  const n = r.end - r.start;
  return Math.max(0, n - 2) + Math.max(0, n - 3) + Math.max(0, n - 4);
}

/** Hand features of a range: [index, value] pairs after the hashed buckets. */
function handFeatures(a: TextAnalysis, r: ScoredRange, out: (index: number, value: number) => void): void {
  const counts = new Array<number>(CUE_FAMILIES.length).fill(0);
  let families = 0;
  for (const c of a.cues) {
    if (c.start < r.foldedStart || c.start >= r.foldedEnd) continue;
    const k = CUE_FAMILIES.indexOf(c.family);
    if (counts[k] === 0) families++;
    counts[k]! += 1;
  }
  const offset = HASH_BUCKETS + (a.decoded ? CUE_FAMILIES.length : 0);
  for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) out(offset + i, Math.log1p(counts[i]!));
  const base = HASH_BUCKETS + CUE_FAMILIES.length * 2;
  out(base, families >= 2 ? 1 : 0);
  out(base + 1, families >= 3 ? 1 : 0);
  out(base + 2, a.decoded ? 1 : 0);
}

/** Cue hits inside a range. */
export function rangeCues(a: TextAnalysis, r: ScoredRange): CueHit[] {
  return a.cues.filter((c) => c.start >= r.foldedStart && c.start < r.foldedEnd);
}

/** Sparse feature vector of one range (what the model is trained on). */
export function rangeFeatures(a: TextAnalysis, r: ScoredRange): InjectionFeatures {
  const acc = new Map<number, number>();
  const add = (id: number, v: number): void => {
    acc.set(id, (acc.get(id) ?? 0) + v);
  };
  const nChar = charCount(r);
  const charScale = nChar > 0 ? 1 / Math.sqrt(Math.max(nChar, CHAR_FLOOR)) : 0;
  for (let p = r.start; p < r.end; p++) {
    for (let n = 3; n <= 5; n++) if (p + n <= r.end) add(a.charIds[3 * p + n - 3]!, charScale);
  }
  const [from, to] = wordSpan(a, r);
  const nWord = to - from + Math.max(0, to - from - 1);
  const wordScale = nWord > 0 ? 1 / Math.sqrt(Math.max(nWord, WORD_FLOOR)) : 0;
  for (let i = from; i < to; i++) {
    add(a.words[4 * i + 2]!, wordScale);
    if (i > from) add(a.words[4 * i + 3]!, wordScale);
  }
  const indices = [...acc.keys()];
  const values = [...acc.values()];
  handFeatures(a, r, (i, v) => {
    indices.push(i);
    values.push(v);
  });
  return { indices, values, cues: rangeCues(a, r) };
}

/** Weights as the fast scorer reads them. */
export interface FeatureWeights {
  bias: number;
  hash: Float32Array;
  hand: Float32Array;
}

/**
 * Raw margins (bias + w·x) of every range of an analysed text, from prefix sums of per-position
 * weights: each n-gram's weight is read once however many ranges contain it. Equals the dot
 * product of {@link rangeFeatures} with the weights (up to rounding).
 */
export function rangeMargins(a: TextAnalysis, w: FeatureWeights): number[] {
  const len = a.length;
  const ids = a.charIds;
  const hash = w.hash;
  // prefix[n - 3][p]: sum of n-gram weights starting before p.
  const p3 = new Float64Array(len + 1);
  const p4 = new Float64Array(len + 1);
  const p5 = new Float64Array(len + 1);
  for (let p = 0; p < len; p++) {
    const i3 = ids[3 * p]!;
    const i4 = ids[3 * p + 1]!;
    const i5 = ids[3 * p + 2]!;
    p3[p + 1] = p3[p]! + (i3 >= 0 ? hash[i3]! : 0);
    p4[p + 1] = p4[p]! + (i4 >= 0 ? hash[i4]! : 0);
    p5[p + 1] = p5[p]! + (i5 >= 0 ? hash[i5]! : 0);
  }
  const nw = a.wordCount;
  const wu = new Float64Array(nw + 1);
  const wb = new Float64Array(nw + 1);
  for (let i = 0; i < nw; i++) {
    wu[i + 1] = wu[i]! + hash[a.words[4 * i + 2]!]!;
    const pair = a.words[4 * i + 3]!;
    wb[i + 1] = wb[i]! + (pair >= 0 ? hash[pair]! : 0);
  }
  const out: number[] = [];
  for (const r of a.ranges) {
    const nChar = charCount(r);
    const charScale = nChar > 0 ? 1 / Math.sqrt(Math.max(nChar, CHAR_FLOOR)) : 0;
    // An n-gram of length n starting at p lies in [start, end) when p <= end - n.
    const sumN = (pre: Float64Array, n: number): number => (r.end - n >= r.start ? pre[r.end - n + 1]! - pre[r.start]! : 0);
    let z = w.bias + charScale * (sumN(p3, 3) + sumN(p4, 4) + sumN(p5, 5));
    const [from, to] = wordSpan(a, r);
    const nWord = to - from + Math.max(0, to - from - 1);
    if (nWord > 0) {
      const wordScale = 1 / Math.sqrt(Math.max(nWord, WORD_FLOOR));
      z += wordScale * (wu[to]! - wu[from]! + (to - from > 1 ? wb[to]! - wb[from + 1]! : 0));
    }
    handFeatures(a, r, (i, v) => {
      z += (w.hand[i - HASH_BUCKETS] ?? 0) * v;
    });
    out.push(z);
  }
  return out;
}

/** Features of one piece of text scored as a whole (no segments): for locating spans and tests. */
export function injectionFeatures(piece: { text: string; decoded: boolean }): InjectionFeatures {
  const a = analyseText(piece.text, { decoded: piece.decoded });
  return rangeFeatures(a, a.ranges[0]!);
}
