/**
 * The "what a reader sees" view of a text for the exact-match detectors (canaries, secrets, PII),
 * with a map back to the original offsets so a finding in the view redacts the whole original span
 * - invisible characters inside it included.
 *
 * Folding: invisible and format characters dropped (zero-width, bidi controls, tag characters,
 * soft hyphen, variation selectors), confusable letters mapped to Latin, everything else non-ASCII
 * through NFKC (full-width forms, ligatures, compatibility digits). Case is kept: secrets and
 * canaries are case-sensitive. Linear in the text.
 */
import type { DetectedSpan } from '../detectors/types.js';
import { CONFUSABLES, isInvisible } from './normalize.js';

/** A folded view and, per UTF-16 unit of it, the original span it came from. */
export interface FoldedView {
  text: string;
  /** Original start offset of each unit of `text`. */
  starts: Uint32Array;
  /** Original end offset (exclusive) of each unit of `text`. */
  ends: Uint32Array;
}

const NON_ASCII = /[\u0080-\uffff]/;
const NFKC_CACHE = new Map<string, string>();

function foldChar(ch: string): string {
  const mapped = CONFUSABLES[ch];
  if (mapped !== undefined) return mapped;
  let n = NFKC_CACHE.get(ch);
  if (n === undefined) {
    n = ch.normalize('NFKC');
    // NFKC can itself produce a confusable ("Ａ" stays Latin, but some compatibility forms are Greek).
    n = [...n].map((c) => CONFUSABLES[c] ?? c).join('');
    if (NFKC_CACHE.size < 4096) NFKC_CACHE.set(ch, n);
  }
  return n;
}

/** The folded view of `text`, or undefined when folding changes nothing (plain ASCII). */
export function foldForMatching(text: string): FoldedView | undefined {
  if (!NON_ASCII.test(text)) return undefined;
  const units: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let changed = false;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (cp < 0x80) {
      units.push(text[i]!);
      starts.push(i);
      ends.push(i + 1);
      i += 1;
      continue;
    }
    const ch = text.slice(i, i + width);
    if (isInvisible(ch, cp)) {
      changed = true;
      i += width;
      continue;
    }
    const folded = foldChar(ch);
    if (folded !== ch) changed = true;
    for (let k = 0; k < folded.length; k++) {
      units.push(folded[k]!);
      starts.push(i);
      ends.push(i + width);
    }
    i += width;
  }
  if (!changed) return undefined;
  return { text: units.join(''), starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

/** Maps spans found in a folded view back to original offsets. */
export function spansToOriginal(view: FoldedView, spans: readonly DetectedSpan[]): DetectedSpan[] {
  return spans
    .filter((s) => s.end > s.start && s.end <= view.text.length)
    .map((s) => ({ ...s, start: view.starts[s.start]!, end: view.ends[s.end - 1]! }));
}

/**
 * Runs `detect` over the text and, when folding changes it, over the folded view too: the direct
 * findings as they are, plus the view's findings that overlap none of them. Offsets are always the
 * original's; for plain ASCII text this is exactly `detect(text)`.
 */
export function detectFolded(
  text: string,
  detect: (t: string) => DetectedSpan[],
  view: FoldedView | undefined = foldForMatching(text),
): DetectedSpan[] {
  const direct = detect(text);
  if (!view) return direct;
  const extra = spansToOriginal(view, detect(view.text)).sort((a, b) => a.start - b.start);
  if (extra.length === 0) return direct;
  // Covered intervals of the direct findings, merged, then one sweep over the sorted extras.
  const covered: Array<[number, number]> = [];
  for (const s of [...direct].sort((a, b) => a.start - b.start)) {
    const last = covered[covered.length - 1];
    if (last && s.start < last[1]) last[1] = Math.max(last[1], s.end);
    else covered.push([s.start, s.end]);
  }
  const out = [...direct];
  let c = 0;
  for (const s of extra) {
    while (c < covered.length && covered[c]![1] <= s.start) c++;
    const cov = covered[c];
    if (cov && cov[0] < s.end) continue;
    out.push(s);
  }
  return out.sort((a, b) => a.start - b.start);
}
