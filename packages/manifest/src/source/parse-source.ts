import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import type { DocPath, RawIssue } from '../problems.js';

/** Default bound on YAML alias expansion: an alias bomb is refused long before it grows. */
export const DEFAULT_MAX_ALIAS_COUNT = 100;
/** Nesting deeper than this is refused (no manifest needs it; deep input only costs stack). */
export const MAX_NESTING_DEPTH = 100;

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
  try {
    doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true, keepSourceTokens: false });
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
    issues.push({ path: [], offset: error.pos[0], message: yamlErrorMessage(text, error.code, error.message, error.pos[0]) });
  }
  for (const warning of doc.warnings) {
    issues.push({ path: [], offset: warning.pos[0], message: `YAML: ${warning.message}` });
  }
  const onlyDuplicates = doc.errors.every((e) => e.code === 'DUPLICATE_KEY');
  if (!onlyDuplicates) return { value: undefined, issues, locate };
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

function parseJson(
  text: string,
  doc: Document.Parsed,
  issues: RawIssue[],
  locate: ParsedSource['locate'],
): ParsedSource {
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
  // JSON.parse keeps the last of duplicate keys silently; the YAML parser reports them.
  for (const error of doc.errors) {
    if (error.code === 'DUPLICATE_KEY') {
      issues.push({ path: [], offset: error.pos[0], message: yamlErrorMessage(text, error.code, error.message, error.pos[0]) });
    }
  }
  return withDepthCheck(value, issues, locate);
}

function withDepthCheck(value: unknown, issues: RawIssue[], locate: ParsedSource['locate']): ParsedSource {
  if (depthExceeds(value, MAX_NESTING_DEPTH)) {
    issues.push({ path: [], offset: 0, message: `nesting is deeper than ${MAX_NESTING_DEPTH} levels` });
    return { value: undefined, issues, locate };
  }
  return { value, issues, locate };
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

function yamlErrorMessage(text: string, code: string, message: string, offset: number): string {
  if (code === 'DUPLICATE_KEY') {
    const key = /^[^\s:,}\]]+|^"(?:[^"\\]|\\.)*"|^'[^']*'/.exec(text.slice(offset, offset + 200))?.[0];
    return key ? `duplicate key ${key.startsWith('"') || key.startsWith("'") ? key : `'${key}'`}` : 'duplicate key';
  }
  return `YAML syntax error: ${message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
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
      const pair = node.items.find((p) => isPair(p) && keyOf(p.key) === String(seg));
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

function keyOf(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}
