import type { z } from 'zod';
import { toDottedPath, type DocPath, type RawIssue } from '../problems.js';

/** Turns zod issues into located-later issues with messages that say where and what. */
export function zodIssuesToRaw(issues: readonly z.core.$ZodIssue[], data: unknown): RawIssue[] {
  const out: RawIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.map((seg) => (typeof seg === 'number' ? seg : String(seg)));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        out.push({ path: keyPath, atKey: true, message: `${prefix(keyPath)}unknown key '${key}'` });
      }
      continue;
    }
    if (path.length > 0 && isMissing(data, path)) {
      const parent = path.slice(0, -1);
      out.push({ path: parent, message: `${prefix(parent)}missing required property '${String(path[path.length - 1])}'` });
      continue;
    }
    out.push({ path, message: `${prefix(path)}${describeIssue(issue, valueAt(data, path))}` });
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue, actual: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}, found ${kindOf(actual)}${hint(issue.expected, actual)}`;
    case 'invalid_value':
      return issue.message.startsWith('Invalid')
        ? `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, found ${JSON.stringify(actual)}`
        : issue.message;
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1 ? 'must not be empty' : issue.message;
    case 'invalid_union':
      return `does not match any allowed form (${issue.message})`;
    default:
      return issue.message;
  }
}

/** YAML reads `version: 1.0` as a number; say how to fix it. */
function hint(expected: string, actual: unknown): string {
  return expected === 'string' && (typeof actual === 'number' || typeof actual === 'boolean')
    ? ' (quote the value to make it a string)'
    : '';
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function prefix(path: DocPath): string {
  return path.length === 0 ? 'document: ' : `${toDottedPath(path)}: `;
}

function valueAt(data: unknown, path: DocPath): unknown {
  let v = data;
  for (const seg of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

function isMissing(data: unknown, path: DocPath): boolean {
  const parent = valueAt(data, path.slice(0, -1));
  return typeof parent === 'object' && parent !== null && !Object.prototype.hasOwnProperty.call(parent, path[path.length - 1]!);
}
