import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import type { DocPath, RawIssue } from '../problems.js';

/** Default bound on YAML alias expansion: an alias bomb is refused long before it grows. */
export const DEFAULT_MAX_ALIAS_COUNT = 100;
/** Nesting deeper than this is refused (no manifest needs it; deep input only costs stack). */
export const MAX_NESTING_DEPTH = 100;
/**
 * Bound on unclosed `[` / `{` counted over the raw text, before any parser sees it: the YAML
 * parser recurses per flow level and runs out of memory on a few hundred thousand of them.
 * Brackets inside strings and comments count too, so the bound is looser than MAX_NESTING_DEPTH.
 */
const MAX_BRACKET_DEPTH = 256;

export interface ParsedSource {
  /** The parsed data, or `undefined` when the text could not be read as a document. */
  value: unknown;
  /** Problems in the text itself: syntax, duplicate keys, aliases, emptiness, nesting. */
  issues: RawIssue[];
  /** Resolves an issue to a 1-based line and column in the text. */
  locate(issue: RawIssue): { line: number; col: number };
}

export interface ParseSourceOptions {
  /** `json` parses strictly as JSON (positions still come from the YAML parser). */
  format: 'yaml' | 'json';
  /** Maximum number of alias expansions (YAML). */
  maxAliasCount: number;
}

/** Parses YAML or JSON text into data plus a way to find any path's line and column. */
export function parseSource(text: string, options: ParseSourceOptions): ParsedSource {
  const lineCounter = new LineCounter();
  let doc: Document.Parsed | undefined;
  const issues: RawIssue[] = [];
  const tooDeepAt = bracketDepthExceededAt(text, MAX_BRACKET_DEPTH);
  if (tooDeepAt >= 0) {
    issues.push({ path: [], offset: tooDeepAt, message: `nesting is deeper than ${MAX_NESTING_DEPTH} levels` });
    return { value: undefined, issues, locate: (issue) => lineCounterPos(text, issue.offset ?? 0) };
  }
  try {
    doc = // Duplicate keys are found below in one pass: the parser's own check compares every key
      // with every other key of its map, which takes minutes on a 1 MiB map.
      doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true, keepSourceTokens: false });
  } catch (err) {
    issues.push({ path: [], offset: 0, message: `cannot parse: ${describe(err)}` });
  }
  const locate = (issue: RawIssue): { line: number; col: number } => {
    const offset = issue.offset ?? (doc ? offsetOf(doc, issue.path, issue.atKey === true) : 0);
    const pos = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line: pos.line, col: pos.col };
  };
  if (!doc) return { value: undefined, issues, locate };

  if (options.format === 'json') return parseJson(text, doc, issues, locate);

  for (const error of doc.errors) {
    // The parser turns its own stack overflow on very deep block nesting into errors, one per level.
    if (/call stack/i.test(error.message)) {
      issues.push({ path: [], offset: error.pos[0], message: `nesting is deeper than ${MAX_NESTING_DEPTH} levels` });
      break;
    }
    issues.push({ path: [], offset: error.pos[0], message: yamlErrorMessage(error.message) });
  }
  for (const warning of doc.warnings) {
    issues.push({ path: [], offset: warning.pos[0], message: `YAML: ${warning.message}` });
  }
  if (doc.errors.length > 0) return { value: undefined, issues, locate };
  issues.push(...duplicateKeys(doc));
  if (doc.contents === null) {
    issues.push({ path: [], offset: 0, message: 'file is empty: expected a YAML mapping' });
    return { value: undefined, issues, locate };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: options.maxAliasCount });
  } catch (err) {
    const bomb = err instanceof ReferenceError && /alias/i.test(err.message);
    issues.push({
      path: [],
      offset: 0,
      message: bomb
        ? `too many YAML alias expansions (limit ${options.maxAliasCount}): refusing what looks like an alias bomb`
        : `cannot read YAML: ${describe(err)}`,
    });
    return { value: undefined, issues, locate };
  }
  return withDepthCheck(value, issues, locate);
}

function parseJson(text: string, doc: Document.Parsed, issues: RawIssue[], locate: ParsedSource['locate']): ParsedSource {
  if (text.trim() === '') {
    issues.push({ path: [], offset: 0, message: 'file is empty: expected a JSON object' });
    return { value: undefined, issues, locate };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = describe(err);
    const at = /at position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : /end of JSON input/.test(message) ? text.length : 0;
    const clean = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)/, '');
    issues.push({ path: [], offset, message: `JSON syntax error: ${clean}` });
    return { value: undefined, issues, locate };
  }
  // JSON.parse keeps the last of duplicate keys silently; refuse them as in YAML.
  issues.push(...duplicateKeys(doc));
  return withDepthCheck(value, issues, locate);
}

function withDepthCheck(value: unknown, issues: RawIssue[], locate: ParsedSource['locate']): ParsedSource {
  if (depthExceeds(value, MAX_NESTING_DEPTH)) {
    issues.push({ path: [], offset: 0, message: `nesting is deeper than ${MAX_NESTING_DEPTH} levels` });
    return { value: undefined, issues, locate };
  }
  return { value, issues, locate };
}

/** Offset of the first `[` / `{` that opens more than `limit` levels, or -1. */
function bracketDepthExceededAt(text: string, limit: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return -1;
}

function lineCounterPos(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = (before.match(/\n/g)?.length ?? 0) + 1;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** Iterative, so deep input cannot exhaust the stack here. */
function depthExceeds(root: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function yamlErrorMessage(message: string): string {
  return `YAML syntax error: ${message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
}

/** Every key that repeats an earlier key of the same mapping, in one pass over the document. */
function duplicateKeys(doc: Document.Parsed): RawIssue[] {
  const issues: RawIssue[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const key = String(pair.key.value);
          if (seen.has(key)) issues.push({ path: [], offset: rangeStart(pair.key) ?? 0, message: `duplicate key '${key}'` });
          seen.add(key);
        }
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      stack.push(...node.items);
    }
  }
  return issues;
}

function describe(err: unknown): string {
  if (err instanceof RangeError) return 'input nested too deeply';
  return err instanceof Error ? err.message : String(err);
}

/** The offset of `path` in the document, or of the deepest part of it that exists. */
function offsetOf(doc: Document.Parsed, path: DocPath, atKey: boolean): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = pairIndex(node).get(String(seg));
      if (!pair) return offset;
      const last = i === path.length - 1;
      const keyStart = rangeStart(pair.key);
      if (last && atKey && keyStart !== undefined) return keyStart;
      const valueStart = rangeStart(pair.value);
      // `key:` with nothing after it: point at the key.
      if (valueStart === undefined || (isScalar(pair.value) && pair.value.value === null)) {
        return keyStart ?? offset;
      }
      node = pair.value;
      offset = valueStart;
    } else if (isSeq(node) && /^\d+$/.test(String(seg))) {
      const item = node.items[Number(seg)];
      const start = rangeStart(item);
      if (start === undefined) return offset;
      node = item;
      offset = start;
    } else {
      return offset;
    }
  }
  return offset;
}

/** Pairs of a mapping by key, built once per mapping so locating many problems stays linear. */
const pairIndexes = new WeakMap<YAMLMap, Map<string, Pair>>();
function pairIndex(node: YAMLMap): Map<string, Pair> {
  let index = pairIndexes.get(node);
  if (!index) {
    index = new Map();
    for (const pair of node.items) {
      const key = isPair(pair) ? keyOf(pair.key) : undefined;
      if (key !== undefined && !index.has(key)) index.set(key, pair);
    }
    pairIndexes.set(node, index);
  }
  return index;
}

function keyOf(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}
