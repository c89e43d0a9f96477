/**
 * System-prompt leakage: a response that repeats a long-enough verbatim run of a configured
 * system prompt. Both sides are normalised (NFKC, lower case, punctuation dropped) into word
 * sequences; the prompt's every `shingle`-word window is hashed into a set once, and a response
 * leaks when any of its windows is in the set.
 */
import type { DetectedSpan } from './types.js';

/** Words in a row that count as a leak. */
export const DEFAULT_LEAK_SHINGLE = 8;

const WORD = /[\p{L}\p{N}]+/gu;

interface Word {
  w: string;
  start: number;
  end: number;
}

function words(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.normalize('NFKC').matchAll(WORD)) out.push({ w: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  return out;
}

/** A compiled set of system prompts to check responses against. */
export interface SystemPromptIndex {
  shingle: number;
  windows: Set<string>;
}

/** Indexes system prompts for {@link detectSystemPromptLeak}. */
export function indexSystemPrompts(prompts: readonly string[], shingle = DEFAULT_LEAK_SHINGLE): SystemPromptIndex {
  const windows = new Set<string>();
  for (const p of prompts) {
    const ws = words(p).map((x) => x.w);
    for (let i = 0; i + shingle <= ws.length; i++) windows.add(ws.slice(i, i + shingle).join(' '));
  }
  return { shingle, windows };
}

/** Finds verbatim runs of an indexed system prompt in `text`; overlapping runs are merged. */
export function detectSystemPromptLeak(text: string, index: SystemPromptIndex): DetectedSpan[] {
  if (index.windows.size === 0) return [];
  const ws = words(text);
  const found: DetectedSpan[] = [];
  for (let i = 0; i + index.shingle <= ws.length; i++) {
    const key = ws
      .slice(i, i + index.shingle)
      .map((x) => x.w)
      .join(' ');
    if (!index.windows.has(key)) continue;
    const start = ws[i]!.start;
    const end = ws[i + index.shingle - 1]!.end;
    const last = found[found.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else found.push({ type: 'SYSTEM_PROMPT_FRAGMENT', start, end, severity: 'high' });
  }
  return found;
}
