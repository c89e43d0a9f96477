/** Loading a policy from YAML (or JSON) text or a file, with `file:line:col` errors. */
import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { PolicyError } from '../errors.js';
import { PolicySchema, type Policy } from './schema.js';

/** Options for {@link parsePolicy}. */
export interface ParsePolicyOptions {
  /** File name used in error messages. */
  file?: string;
}

function where(file: string | undefined, line?: number, col?: number): string {
  const f = file ?? '<policy>';
  return line !== undefined ? `${f}:${line}:${col ?? 1}` : f;
}

function formatPath(path: readonly PropertyKey[]): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
      .join('.')
      .replace(/\.\[/g, '[') || '(root)'
  );
}

/** Parses and validates a policy; throws {@link PolicyError} naming the first problem and where. */
export function parsePolicy(yamlText: string, options: ParsePolicyOptions = {}): Policy {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) {
    const pos = lineCounter.linePos(firstError.pos[0]);
    throw new PolicyError(`${where(options.file, pos.line, pos.col)}: invalid YAML: ${firstError.message.split('\n')[0]}`, {
      file: options.file,
      line: pos.line,
      column: pos.col,
      cause: firstError,
    });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    throw new PolicyError(`${where(options.file)}: ${(err as Error).message}`, { file: options.file, cause: err });
  }
  const parsed = PolicySchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  // Point at the offending node, or the nearest ancestor that exists.
  let line: number | undefined;
  let col: number | undefined;
  for (let n = issue.path.length; n >= 0; n--) {
    const node = doc.getIn(issue.path.slice(0, n) as unknown[], true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) {
      const pos = lineCounter.linePos(node.range[0]);
      line = pos.line;
      col = pos.col;
      break;
    }
  }
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown key(s): ${issue.keys.join(', ')}`;
  throw new PolicyError(`${where(options.file, line, col)}: ${formatPath(issue.path)}: ${message}`, {
    file: options.file,
    line,
    column: col,
    cause: parsed.error,
  });
}

/** Reads and validates a policy file (YAML or JSON). */
export async function loadPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PolicyError(`${path}: cannot read policy file (${code ?? 'error'})`, { file: path, cause: err });
  }
  return parsePolicy(text, { file: path });
}
