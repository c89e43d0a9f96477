/**
 * Canary tokens: strings planted in a system prompt or a document that must never appear in
 * output. Matches configured canaries (case-sensitive, exact) and Baton's default canary shape
 * `BATON-CANARY-<16+ hex>` (see {@link makeCanary}).
 */
import type { DetectedSpan } from './types.js';

const DEFAULT_CANARY = /\bBATON-CANARY-[0-9a-f]{16,64}\b/g;

/** A fresh canary token in the default shape, from the given random bytes (16 hex chars or more). */
export function makeCanary(randomHex: string): string {
  if (!/^[0-9a-f]{16,64}$/.test(randomHex)) throw new TypeError('randomHex must be 16-64 lower-case hex characters');
  return `BATON-CANARY-${randomHex}`;
}

/** Finds canary tokens in `text`. */
export function detectCanaries(text: string, canaries: readonly string[] = []): DetectedSpan[] {
  const found: DetectedSpan[] = [];
  for (const c of canaries) {
    if (c.length === 0) continue;
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + c.length)) {
      found.push({ type: 'CANARY_TOKEN', start: i, end: i + c.length, severity: 'critical' });
    }
  }
  if (text.includes('BATON-CANARY-')) {
    for (const m of text.matchAll(DEFAULT_CANARY)) {
      if (!found.some((f) => f.start === m.index))
        found.push({ type: 'CANARY_TOKEN', start: m.index, end: m.index + m[0].length, severity: 'critical' });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}
