/**
 * Prompt-injection detector: folding and decoding (text/), hand cues (injection-heuristics.ts)
 * and a logistic-regression classifier over hashed character 3-5-gram and word uni/bigram counts
 * and the cue counts, trained on a public corpus by scripts/train-injection.mjs and shipped as data
 * (injection-model.generated.ts).
 *
 * The score is a calibrated probability (Platt scaling on a calibration split). A text is
 * flagged when it reaches the BLOCK threshold of its action type, and is in the grey band when it
 * reaches the grey threshold but not the BLOCK one; both were chosen on benign training-corpus
 * data (see README for the numbers).
 */
import { Buffer } from 'node:buffer';
import { HASH_BUCKETS, analysePieces, injectionFeatures, rangeMargins, type InjectionFeatures } from './injection-features.js';
import { INJECTION_MODEL } from './injection-model.generated.js';
import type { CueHit } from './injection-heuristics.js';
import { GuardrailRequestError } from '../errors.js';

/** Trained weights in a form the scorer can use directly. */
export interface InjectionWeights {
  bias: number;
  hash: Float32Array;
  hand: Float32Array;
  /** Platt calibration of the margin; identity-logistic when absent. */
  calibration?: { a: number; b: number };
}

let shipped: InjectionWeights | undefined;

/** The shipped model's weights, decoded once. */
export function shippedWeights(): InjectionWeights {
  if (!shipped) {
    const q = Buffer.from(INJECTION_MODEL.hashWeights, 'base64');
    const hash = new Float32Array(HASH_BUCKETS);
    for (let i = 0; i < q.length && i < HASH_BUCKETS; i++) hash[i] = ((q[i]! << 24) >> 24) * INJECTION_MODEL.hashScale;
    shipped = {
      bias: INJECTION_MODEL.bias,
      hash,
      hand: Float32Array.from(INJECTION_MODEL.handWeights),
      calibration: INJECTION_MODEL.calibration,
    };
  }
  return shipped;
}

/** The shipped BLOCK threshold on the calibrated score when no action type is given (AGENT_INPUT's). */
export const DEFAULT_INJECTION_THRESHOLD: number = INJECTION_MODEL.threshold;

/** Action types with their own thresholds (lower case, as in the policy). */
export type InjectionActionType = keyof typeof INJECTION_MODEL.thresholds;

/** The shipped BLOCK thresholds per action type (FPR <= 0.5% on the calibration split's benign rows). */
export const INJECTION_THRESHOLDS: Readonly<Record<InjectionActionType, number>> = INJECTION_MODEL.thresholds;
/** The shipped grey-band thresholds per action type (FPR <= 3% on the same rows). */
export const INJECTION_GREY_THRESHOLDS: Readonly<Record<InjectionActionType, number>> = INJECTION_MODEL.greyThresholds;

/** Platt-calibrated probability of a raw margin. */
function calibrated(z: number, w: InjectionWeights): number {
  const c = w.calibration;
  return 1 / (1 + Math.exp(-(c ? c.a * z + c.b : z)));
}

/** Calibrated probability that features describe an injection, under the given weights. */
export function scoreFeatures(f: Pick<InjectionFeatures, 'indices' | 'values'>, w: InjectionWeights): number {
  let z = w.bias;
  for (let k = 0; k < f.indices.length; k++) {
    const i = f.indices[k]!;
    z += (i < HASH_BUCKETS ? (w.hash[i] ?? 0) : (w.hand[i - HASH_BUCKETS] ?? 0)) * f.values[k]!;
  }
  return calibrated(z, w);
}

/** The detector's verdict on one text. */
export interface InjectionResult {
  /** Calibrated classifier probability, 0..1. */
  score: number;
  /** `score >= threshold`. */
  flagged: boolean;
  /** `greyThreshold <= score < threshold`: suspicious, reported but not blocked by default. */
  grey: boolean;
  /** Cue hits (offsets into the folded text, not the input). */
  cues: CueHit[];
}

/** Options for {@link detectInjection}. */
export interface DetectInjectionOptions {
  /** Score at or above which a text is an injection. Default: the shipped threshold of `actionType`. */
  threshold?: number;
  /** Score at or above which a text is in the grey band. Default: the shipped grey threshold of `actionType` (never above `threshold`). */
  greyThreshold?: number;
  /** Where the text comes from, for the shipped per-action thresholds. Default: `agent_input`. */
  actionType?: InjectionActionType;
  /** Weights to score with. Default: the shipped model. */
  weights?: InjectionWeights;
}

/**
 * The options' action type, one the shipped thresholds know. An unknown one (a JavaScript caller's
 * typo, `__proto__`) would compare every score with `undefined` and never flag: refused instead.
 */
function checkedAction(options: DetectInjectionOptions, where: string): InjectionActionType {
  const action = options.actionType ?? 'agent_input';
  if (typeof action !== 'string' || !Object.hasOwn(INJECTION_THRESHOLDS, action)) {
    throw new GuardrailRequestError(
      `${where}: actionType must be one of ${Object.keys(INJECTION_THRESHOLDS).join(', ')}; got ${JSON.stringify(String(action).slice(0, 40))}`,
    );
  }
  return action;
}

/** A given threshold, a number from 0 to 1 (NaN would never flag); undefined when not given. */
function checkedThreshold(value: unknown, name: string, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new GuardrailRequestError(
      `${where}: ${name} must be a number from 0 to 1; got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}

/** Scores one text for prompt injection (direct, indirect, jailbreak or extraction). */
export function detectInjection(text: string, options: DetectInjectionOptions = {}): InjectionResult {
  const action = checkedAction(options, 'detectInjection');
  const threshold = checkedThreshold(options.threshold, 'threshold', 'detectInjection') ?? INJECTION_THRESHOLDS[action];
  const greyThreshold = Math.min(
    threshold,
    checkedThreshold(options.greyThreshold, 'greyThreshold', 'detectInjection') ?? INJECTION_GREY_THRESHOLDS[action],
  );
  if (text.trim().length === 0) return { score: 0, flagged: false, grey: false, cues: [] };
  const weights = options.weights ?? shippedWeights();
  // The text's score is its most suspicious range's (the whole text, a segment, or the decoded
  // layers); each text is hashed once and its ranges scored from prefix sums.
  let margin = -Infinity;
  const cues: CueHit[] = [];
  for (const analysis of analysePieces(text)) {
    for (const z of rangeMargins(analysis, weights)) margin = Math.max(margin, z);
    cues.push(...analysis.cues);
  }
  const score = calibrated(margin, weights);
  // Too little text for the n-gram model to carry a BLOCK alone: an identifier, an address or a
  // one- or two-word label (handoff state and tool arguments are full of them) needs a hand cue as well;
  // without one it is at most grey.
  if (score >= threshold && cues.length === 0 && countWords(text) < MIN_WORDS_TO_FLAG_WITHOUT_CUE) {
    return { score, flagged: false, grey: true, cues };
  }
  return { score, flagged: score >= threshold, grey: score < threshold && score >= greyThreshold, cues };
}

/** Fewest letter-only words a text needs before the classifier alone may flag it. */
export const MIN_WORDS_TO_FLAG_WITHOUT_CUE = 3;

/** E-mail addresses, URLs and host names (whole whitespace-separated tokens): their dotted parts are not words of an instruction. */
const ADDRESS_TOKEN = /^(?:[^@]+@[^@]+|[a-z][a-z0-9+.-]*:\/\/.*|(?:[\w-]+\.)+[a-z]{2,})$/iu;
const LETTERS = /^\p{L}{2,}$/u;

/**
 * Letter-only words (two letters or more) outside addresses, counted up to the minimum. Linear in
 * the text: whitespace tokens are matched with anchored, unambiguous patterns (an unanchored
 * address pattern backtracked quadratically over a 200 KB run of letters).
 */
function countWords(text: string): number {
  let n = 0;
  for (const token of text.split(/\s+/)) {
    if (token.length < 2 || ADDRESS_TOKEN.test(token)) continue;
    for (const part of token.split(/[^\p{L}\p{N}_]+/u)) {
      if (LETTERS.test(part) && ++n >= MIN_WORDS_TO_FLAG_WITHOUT_CUE) return n;
    }
  }
  return n;
}

const SENTENCE = /[^\n.!?]*(?:[.!?]+|\n|$)/g;

/**
 * Locates the sentences (or lines) of `text` that score as an injection on their own, as
 * offsets into `text`. Used to remove an injection from a tool output; an injection spread over
 * the whole text (or hidden in an encoding) may not be locatable, and then this returns [].
 */
export function locateInjection(text: string, options: DetectInjectionOptions = {}): Array<{ start: number; end: number }> {
  const threshold =
    checkedThreshold(options.threshold, 'threshold', 'locateInjection') ?? INJECTION_THRESHOLDS[checkedAction(options, 'locateInjection')];
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
