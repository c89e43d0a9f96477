/**
 * Redaction that keeps structure. Strings get each sensitive span replaced by a placeholder;
 * JSON text gets only its affected string tokens rewritten, so every other byte (keys, numbers,
 * spacing, order) stays exactly as it was and the result still parses to the same shape.
 */
import type { DetectedSpan } from './detectors/types.js';

const PLACEHOLDER_NAMES: Record<string, string> = {
  EMAIL_ADDRESS: 'EMAIL',
  PHONE_NUMBER: 'PHONE',
  US_SSN: 'SSN',
  CREDIT_CARD: 'CREDIT_CARD',
  IBAN_CODE: 'IBAN',
  IP_ADDRESS: 'IP_ADDRESS',
};

/** The placeholder that replaces a span of the given detector type. */
export function placeholderFor(detector: string, type: string): string {
  if (detector === 'pii') return `[REDACTED:${PLACEHOLDER_NAMES[type] ?? type}]`;
  if (detector === 'secrets') return '[REDACTED:SECRET]';
  if (detector === 'exfiltration') return '[REMOVED:LINK]';
  if (detector === 'prompt_injection') return '[REMOVED:INSTRUCTIONS]';
  return '[REDACTED]';
}

/** A span to replace, with its replacement text. */
export interface Replacement extends Pick<DetectedSpan, 'start' | 'end'> {
  with: string;
}

/** Applies non-overlapping replacements (any order) to `text`. Overlaps keep the earlier, wider one. */
export function applyReplacements(text: string, replacements: readonly Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let pos = 0;
  for (const r of sorted) {
    if (r.start < pos) continue;
    out += text.slice(pos, r.start) + r.with;
    pos = r.end;
  }
  return out + text.slice(pos);
}

/** One string value inside a JSON document, with its JSON pointer. */
export interface JsonString {
  pointer: string;
  value: string;
  /** Token start/end offsets in the JSON text (quotes included). */
  tokenStart: number;
  tokenEnd: number;
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Lists every string *value* (not key) in a JSON text with its JSON pointer. The text must be
 * valid JSON (callers validate first); nesting deeper than `maxDepth` throws a RangeError.
 */
export function jsonStrings(json: string, maxDepth = 512): JsonString[] {
  const out: JsonString[] = [];
  // Stack of containers: for objects the pending key, for arrays the next index.
  const stack: Array<{ kind: 'object'; key: string | undefined } | { kind: 'array'; index: number }> = [];
  const pointerOf = (): string =>
    stack.map((c) => `/${c.kind === 'object' ? escapePointer(c.key ?? '') : String(c.index)}`).join('');
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (ch === '{' || ch === '[') {
      if (stack.length >= maxDepth) throw new RangeError(`JSON nested deeper than ${maxDepth} levels`);
      stack.push(ch === '{' ? { kind: 'object', key: undefined } : { kind: 'array', index: 0 });
      expectKey = ch === '{';
    } else if (ch === '}' || ch === ']') {
      stack.pop();
      expectKey = false;
    } else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index += 1;
      expectKey = top?.kind === 'object';
    } else if (ch === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const token = json.slice(i, j + 1);
      const value = JSON.parse(token) as string;
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        top.key = value;
        expectKey = false;
      } else {
        out.push({ pointer: pointerOf(), value, tokenStart: i, tokenEnd: j + 1 });
      }
      i = j;
    }
  }
  return out;
}

/** Rewrites string tokens of a JSON text; `replace` returns the new value or undefined to keep it. */
export function rewriteJsonStrings(json: string, strings: readonly JsonString[], replace: (s: JsonString) => string | undefined): string {
  const replacements: Replacement[] = [];
  for (const s of strings) {
    const next = replace(s);
    if (next !== undefined && next !== s.value) replacements.push({ start: s.tokenStart, end: s.tokenEnd, with: JSON.stringify(next) });
  }
  return replacements.length > 0 ? applyReplacements(json, replacements) : json;
}
