import { readFile, stat } from 'node:fs/promises';
import type { z } from 'zod';
import { toPointer, type LoadResult, type ManifestProblem, type RawIssue } from '../problems.js';
import { decodeUtf8, DEFAULT_MAX_MANIFEST_BYTES } from '../source/decode.js';
import { DEFAULT_MAX_ALIAS_COUNT, parseSource } from '../source/parse-source.js';
import { zodIssuesToRaw } from '../validate/zod-issues.js';

/** Options for parsing a manifest from text. */
export interface ParseManifestOptions {
  /** The file name to report problems against. */
  file: string;
  /** Refuse sources larger than this many bytes (UTF-8). Default 1 MiB. */
  maxBytes?: number;
  /** Maximum YAML alias expansions. Default 100. */
  maxAliasCount?: number;
}

/** Options for loading a manifest from a file. */
export type LoadManifestFileOptions = Omit<ParseManifestOptions, 'file'>;

/** What differs between agent.yml and manifest.json. */
export interface ManifestKind<T> {
  format: 'yaml' | 'json';
  schema: z.ZodType<T>;
  check(data: unknown): RawIssue[];
}

type Locator = (pointer: string) => { line: number; col: number } | undefined;

/** Where each loaded manifest came from, so set-level checks can point into the right file. */
const locators = new WeakMap<object, { file: string; locate: Locator }>();

/** The file and position of `pointer` in a manifest this package loaded, if it knows. */
export function locateInManifest(manifest: object, pointer: string): { file: string; line: number; col: number } | undefined {
  const entry = locators.get(manifest);
  const pos = entry?.locate(pointer);
  return entry && pos ? { file: entry.file, ...pos } : undefined;
}

function fileProblem(file: string, message: string, line = 1, col = 1): LoadResult<never> {
  return { ok: false, problems: [{ file, line, col, pointer: '', message }] };
}

/** Parses and validates manifest text; every problem is reported, located and sorted. */
export function parseManifestText<T>(kind: ManifestKind<T>, source: string, options: ParseManifestOptions): LoadResult<T> {
  const { file } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  if (typeof source !== 'string') return fileProblem(file, 'source must be a string');
  // Characters never take fewer bytes than one, so only measure when the length is close.
  if (source.length > maxBytes || (source.length * 3 > maxBytes && Buffer.byteLength(source) > maxBytes)) {
    return fileProblem(file, `file is larger than the ${maxBytes}-byte limit for a manifest`);
  }
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const parsed = parseSource(text, { format: kind.format, maxAliasCount: options.maxAliasCount ?? DEFAULT_MAX_ALIAS_COUNT });
  const raw: RawIssue[] = [...parsed.issues];
  let value: T | undefined;
  if (parsed.value !== undefined) {
    const result = kind.schema.safeParse(parsed.value);
    if (result.success) value = result.data;
    else raw.push(...zodIssuesToRaw(result.error.issues, parsed.value));
    raw.push(...kind.check(parsed.value));
  }
  const problems = capped(dedupe(raw.map((issue) => toProblem(file, issue, parsed.locate))), file);
  if (problems.length > 0 || value === undefined) {
    return {
      ok: false,
      problems: problems.length > 0 ? problems : [{ file, line: 1, col: 1, pointer: '', message: 'not a valid manifest' }],
    };
  }
  if (typeof value === 'object' && value !== null) {
    locators.set(value, { file, locate: (pointer) => parsed.locate({ path: fromPointer(pointer), message: '' }) });
  }
  return { ok: true, value, problems: [] };
}

/** Reads a manifest file (refusing oversized and non-UTF-8 files) and parses it. */
export async function loadManifestFile<T>(
  kind: ManifestKind<T>,
  file: string,
  options: LoadManifestFileOptions = {},
): Promise<LoadResult<T>> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  let bytes: Buffer;
  try {
    const info = await stat(file);
    if (!info.isFile()) return fileProblem(file, info.isDirectory() ? 'is a directory, not a manifest file' : 'is not a regular file');
    if (info.size > maxBytes) return fileProblem(file, `file is ${info.size} bytes; the limit for a manifest is ${maxBytes}`);
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fileProblem(file, code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? (err as Error).message})`);
  }
  if (bytes.length > maxBytes) return fileProblem(file, `file is ${bytes.length} bytes; the limit for a manifest is ${maxBytes}`);
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return fileProblem(file, decoded.message, decoded.line, decoded.col);
  return parseManifestText(kind, decoded.text, { ...options, file });
}

function toProblem(file: string, issue: RawIssue, locate: (issue: RawIssue) => { line: number; col: number }): ManifestProblem {
  const { line, col } = locate(issue);
  return { file, line, col, pointer: toPointer(issue.path), message: issue.message };
}

/** Past this many problems in one file, the rest are summarised in one line. */
export const MAX_PROBLEMS_PER_FILE = 100;

function capped(problems: ManifestProblem[], file: string): ManifestProblem[] {
  if (problems.length <= MAX_PROBLEMS_PER_FILE) return problems;
  const last = problems[MAX_PROBLEMS_PER_FILE - 1]!;
  return [
    ...problems.slice(0, MAX_PROBLEMS_PER_FILE),
    {
      file,
      line: last.line,
      col: last.col,
      pointer: '',
      message: `… and ${problems.length - MAX_PROBLEMS_PER_FILE} more problems not shown`,
    },
  ];
}

function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function dedupe(problems: ManifestProblem[]): ManifestProblem[] {
  const seen = new Set<string>();
  const out = problems.filter((p) => {
    const key = `${p.line}:${p.col}:${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return out.sort((a, b) => a.line - b.line || a.col - b.col || a.message.localeCompare(b.message));
}
