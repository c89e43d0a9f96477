/**
 * Prompt-injection detector: folding and decoding (text/), hand cues (injection-heuristics.ts)
 * and a logistic-regression classifier over hashed word n-grams plus the cue counts, trained by
 * scripts/train-injection.mjs and shipped as data (injection-model.generated.ts).
 *
 * A text is flagged when the classifier's probability reaches the threshold (default: the
 * model's `threshold`, chosen at training time for a false-positive rate of at most 2% on
 * out-of-fold scores; see README).
 */
import { Buffer } from 'node:buffer';
import { HASH_BUCKETS, injectionFeatures, textPieces, type InjectionFeatures } from './injection-features.js';
import { INJECTION_MODEL } from './injection-model.generated.js';
import type { CueHit } from './injection-heuristics.js';

/** Trained weights in a form the scorer can use directly. */
export interface InjectionWeights {
  bias: number;
  hash: Float32Array;
  hand: Float32Array;
}

let shipped: InjectionWeights | undefined;

/** The shipped model's weights, decoded once. */
export function shippedWeights(): InjectionWeights {
  if (!shipped) {
    const q = Buffer.from(INJECTION_MODEL.hashWeights, 'base64');
    const hash = new Float32Array(HASH_BUCKETS);
    for (let i = 0; i < q.length && i < HASH_BUCKETS; i++) hash[i] = ((q[i]! << 24) >> 24) * INJECTION_MODEL.hashScale;
    shipped = { bias: INJECTION_MODEL.bias, hash, hand: Float32Array.from(INJECTION_MODEL.handWeights) };
  }
  return shipped;
}

/** The shipped decision threshold on the classifier probability. */
export const DEFAULT_INJECTION_THRESHOLD: number = INJECTION_MODEL.threshold;

/** Probability that features describe an injection, under the given weights. */
export function scoreFeatures(f: Pick<InjectionFeatures, 'indices' | 'values'>, w: InjectionWeights): number {
  let z = w.bias;
  for (let k = 0; k < f.indices.length; k++) {
    const i = f.indices[k]!;
    z += (i < HASH_BUCKETS ? (w.hash[i] ?? 0) : (w.hand[i - HASH_BUCKETS] ?? 0)) * f.values[k]!;
  }
  return 1 / (1 + Math.exp(-z));
}

/** The detector's verdict on one text. */
export interface InjectionResult {
  /** Classifier probability, 0..1. */
  score: number;
  /** `score >= threshold`. */
  flagged: boolean;
  /** Cue hits (offsets into the folded text, not the input). */
  cues: CueHit[];
}

/** Options for {@link detectInjection}. */
export interface DetectInjectionOptions {
  /** Probability at or above which a text is an injection. Default: the shipped threshold. */
  threshold?: number;
  /** Weights to score with. Default: the shipped model. */
  weights?: InjectionWeights;
}

/** Scores one text for prompt injection (direct, indirect, jailbreak or extraction). */
export function detectInjection(text: string, options: DetectInjectionOptions = {}): InjectionResult {
  if (text.trim().length === 0) return { score: 0, flagged: false, cues: [] };
  const threshold = options.threshold ?? DEFAULT_INJECTION_THRESHOLD;
  const weights = options.weights ?? shippedWeights();
  // The text's score is its most suspicious piece's (a segment or its decoded layers).
  let score = 0;
  const cues: CueHit[] = [];
  for (const piece of textPieces(text)) {
    const features = injectionFeatures(piece);
    score = Math.max(score, scoreFeatures(features, weights));
    cues.push(...features.cues);
    if (score >= threshold) break;
  }
  return { score, flagged: score >= threshold, cues };
}

const SENTENCE = /[^\n.!?]*(?:[.!?]+|\n|$)/g;

/**
 * Locates the sentences (or lines) of `text` that score as an injection on their own, as
 * offsets into `text`. Used to remove an injection from a tool output; an injection spread over
 * the whole text (or hidden in an encoding) may not be locatable, and then this returns [].
 */
export function locateInjection(text: string, options: DetectInjectionOptions = {}): Array<{ start: number; end: number }> {
  const threshold = options.threshold ?? DEFAULT_INJECTION_THRESHOLD;
  const weights = options.weights ?? shippedWeights();
  const spans: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(SENTENCE)) {
    if (m[0].trim().length < 8) continue;
    if (scoreFeatures(injectionFeatures({ text: m[0], decoded: false }), weights) >= threshold) {
      spans.push({ start: m.index, end: m.index + m[0].length });
    }
    if (m[0].length === 0) break;
  }
  return spans;
}
