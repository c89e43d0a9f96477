/**
 * Redaction that keeps structure. Strings get each sensitive span replaced by a placeholder;
 * JSON text gets only its affected string tokens rewritten, so every other byte (numbers,
 * spacing, order) stays exactly as it was and the result still parses to the same shape.
 *
 * Everything here is linear in the input whatever its key lengths: tokens are found by position,
 * edits are kept by token index, and a JSON pointer is only built when someone asks for it (a
 * pointer string per token would be quadratic for a long key over many values).
 */
import { createHash } from 'node:crypto';
import type { DetectedSpan } from './detectors/types.js';
import { pointerOf, type PathNode } from './payload-path.js';

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
  if (detector === 'canary') return '[REDACTED:CANARY]';
  return '[REDACTED]';
}

/** A span to replace, with its replacement text. */
export interface Replacement extends Pick<DetectedSpan, 'start' | 'end'> {
  with: string;
}

/** Applies non-overlapping replacements (any order) to `text`. Overlaps keep the earlier, wider one. */
export function applyReplacements(text: string, replacements: readonly Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let pos = 0;
  for (const r of sorted) {
    if (r.start < pos) continue;
    parts.push(text.slice(pos, r.start), r.with);
    pos = r.end;
  }
  parts.push(text.slice(pos));
  return parts.join('');
}

/** One string token (a key or a value) inside a JSON text. */
export interface JsonToken {
  /** The decoded string. */
  value: string;
  /** True for an object member's key. */
  isKey: boolean;
  /** Where the token is: the value's own location, or for a key the member it names. */
  node: PathNode;
  /** Which object or array the token sits in (0 = the top level container, in order of opening). */
  container: number;
  /** Token start/end offsets in the JSON text (quotes included). */
  tokenStart: number;
  tokenEnd: number;
}

/** One string value inside a JSON document, with its JSON pointer (built on first read). */
export interface JsonString {
  readonly pointer: string;
  value: string;
  tokenStart: number;
  tokenEnd: number;
}

type Frame =
  | { node: PathNode | undefined; id: number; kind: 'object'; member: PathNode | undefined }
  | { node: PathNode | undefined; id: number; kind: 'array'; index: number };

/**
 * Lists every string token - keys and values - of a JSON text in document order. The text must be
 * valid JSON (callers validate first); nesting deeper than `maxDepth` throws a RangeError.
 */
export function jsonTokens(json: string, maxDepth = 512, root?: PathNode): JsonToken[] {
  const out: JsonToken[] = [];
  const stack: Frame[] = [];
  let containers = 0;
  let expectKey = false;
  const here = (top: Frame | undefined): PathNode | undefined => {
    if (!top) return undefined;
    // A member's key token and its value share one node, so a redacted key renames both paths.
    return top.kind === 'object' ? (top.member ?? { parent: top.node, segment: '' }) : { parent: top.node, segment: top.index };
  };
  for (let i = 0; i < json.length; i++) {
    const ch = json.charCodeAt(i);
    if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (stack.length >= maxDepth) throw new RangeError(`JSON nested deeper than ${maxDepth} levels`);
      const node = stack.length === 0 ? root : here(stack[stack.length - 1]);
      stack.push(
        ch === 0x7b ? { node, id: containers++, kind: 'object', member: undefined } : { node, id: containers++, kind: 'array', index: 0 },
      );
      expectKey = ch === 0x7b;
    } else if (ch === 0x7d || ch === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (ch === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index += 1;
      expectKey = top?.kind === 'object';
    } else if (ch === 0x22 /* " */) {
      let j = i + 1;
      let escaped = false;
      while (j < json.length && json.charCodeAt(j) !== 0x22) {
        if (json.charCodeAt(j) === 0x5c) {
          escaped = true;
          j += 2;
        } else j += 1;
      }
      // Only a token with escapes needs decoding; most are their own text.
      const value = escaped ? (JSON.parse(json.slice(i, j + 1)) as string) : json.slice(i + 1, j);
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        top.member = { parent: top.node, segment: value };
        expectKey = false;
        out.push({ value, isKey: true, node: top.member, container: top.id, tokenStart: i, tokenEnd: j + 1 });
      } else {
        out.push({
          value,
          isKey: false,
          node: here(top) ?? root ?? { parent: undefined, segment: '' },
          container: top?.id ?? -1,
          tokenStart: i,
          tokenEnd: j + 1,
        });
      }
      i = j;
    }
  }
  return out;
}

/** Every string *value* (not key) of a JSON text with its JSON pointer, in document order. */
export function jsonStrings(json: string, maxDepth = 512): JsonString[] {
  return jsonTokens(json, maxDepth)
    .filter((t) => !t.isKey)
    .map((t) => {
      let pointer: string | undefined;
      return {
        value: t.value,
        tokenStart: t.tokenStart,
        tokenEnd: t.tokenEnd,
        get pointer() {
          pointer ??= pointerOf(t.node);
          return pointer;
        },
      };
    });
}

/** A key rename made two members of one object share a name. */
export class KeyCollisionError extends Error {
  constructor() {
    super('redacting a key would give two members of one object the same name');
    this.name = 'KeyCollisionError';
  }
}

/**
 * Rewrites string tokens of a JSON text. `edits[i]` is the new value of `tokens[i]` (undefined
 * keeps it). Throws {@link KeyCollisionError} when renamed keys collide within an object.
 */
export function rewriteJsonTokens(json: string, tokens: readonly JsonToken[], edits: ReadonlyArray<string | undefined>): string {
  const replacements: Replacement[] = [];
  const renamedIn = new Set<number>();
  tokens.forEach((t, i) => {
    const next = edits[i];
    if (next === undefined || next === t.value) return;
    replacements.push({ start: t.tokenStart, end: t.tokenEnd, with: JSON.stringify(next) });
    if (t.isKey) renamedIn.add(t.container);
  });
  if (renamedIn.size > 0) {
    const seen = new Map<number, Set<string>>();
    tokens.forEach((t, i) => {
      if (!t.isKey || !renamedIn.has(t.container)) return;
      let names = seen.get(t.container);
      if (!names) seen.set(t.container, (names = new Set()));
      const name = keyDigest(edits[i] ?? t.value);
      if (names.has(name)) throw new KeyCollisionError();
      names.add(name);
    });
  }
  return replacements.length > 0 ? applyReplacements(json, replacements) : json;
}

/**
 * A set key for an object member name. Names past V8's hashing limit (16,383 characters) all hash
 * alike, so long names are keyed by their SHA-256 instead of their text.
 */
export function keyDigest(name: string): string {
  return name.length <= 256 ? `s:${name}` : `h:${name.length}:${sha256(name)}`;
}

function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('base64');
}
