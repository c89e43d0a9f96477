import { readFile } from 'node:fs/promises';
import { LineCounter, isMap, isNode, isScalar, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { ContractInvalidError } from '../errors.js';
import { RecipientContractSchema } from './schema.js';
import type { RecipientContract } from './schema.js';

export interface ParseRecipientContractOptions {
  /** File name used in `file:line:col` messages (default `<contract>`). */
  file?: string;
}

/** Alias expansion is bounded so an alias bomb is refused quickly. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses and validates a recipient contract from YAML text. Throws `ContractInvalidError` whose
 * `problems` list every issue as `file:line:col: message`.
 */
export function parseRecipientContract(text: string, options: ParseRecipientContractOptions = {}): RecipientContract {
  const file = options.file ?? '<contract>';
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const problems: string[] = [];
  for (const err of doc.errors) problems.push(`${at(err.pos[0])}: ${err.message.split('\n')[0]}`);
  if (problems.length > 0) throw new ContractInvalidError(problems);

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new ContractInvalidError([`${file}:1:1: ${(err as Error).message}`], { cause: err });
  }
  const parsed = RecipientContractSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const where = path.length > 0 ? path.join('.') : '(root)';
    if (issue.code === 'unrecognized_keys') {
      // One line per unknown key, pointing at the key itself.
      for (const key of issue.keys) problems.push(`${at(keyOffset(doc, path, key))}: ${where}: unknown key '${key}'`);
      continue;
    }
    problems.push(`${at(offsetOf(doc, path))}: ${where}: ${issue.message}`);
  }
  throw new ContractInvalidError(problems);
}

/** Reads and validates a recipient contract file. */
export async function loadRecipientContract(path: string): Promise<RecipientContract> {
  const text = await readFile(path, 'utf8');
  return parseRecipientContract(text, { file: path });
}

/** Offset of the deepest node that exists along `path` (a missing key points at its parent). */
function offsetOf(doc: Document, path: Array<string | number>): number {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}

/** Offset of `key` inside the map at `path`, or of the map when the key cannot be found. */
function keyOffset(doc: Document, path: Array<string | number>, key: string): number {
  const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isScalar(pair.key) && String(pair.key.value) === key && pair.key.range) return pair.key.range[0];
    }
  }
  return offsetOf(doc, path);
}
