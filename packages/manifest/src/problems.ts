/** One problem in a manifest, located in its source. Lines and columns are 1-based. */
export interface ManifestProblem {
  /** The file the problem is in, as the caller named it. */
  file: string;
  /** 1-based line; 1 for problems about the whole file. */
  line: number;
  /** 1-based column (in characters); 1 for problems about the whole file. */
  col: number;
  /** RFC 6901 JSON pointer to the offending value (`""` for the whole document). */
  pointer: string;
  /** What is wrong, in words, starting with where (`tools[0].function.name: …`). */
  message: string;
}

/** A loaded manifest, or every problem that kept it from loading. */
export type LoadResult<T> = { ok: true; value: T; problems: [] } | { ok: false; problems: ManifestProblem[] };

/** A path into a parsed document: object keys and array indices. */
export type DocPath = ReadonlyArray<string | number>;

/** A problem before it is located: where in the data (or `offset` in the text) and what. */
export interface RawIssue {
  path: DocPath;
  message: string;
  /** Locate the key rather than the value (unknown keys, duplicate keys). */
  atKey?: boolean;
  /** A character offset into the source, for problems found in the text itself. */
  offset?: number;
}

/** `["tools", 0, "function"]` → `/tools/0/function` (RFC 6901 escaping). */
export function toPointer(path: DocPath): string {
  return path.map((seg) => `/${String(seg).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** `["tools", 0, "function"]` → `tools[0].function`, for messages. */
export function toDottedPath(path: DocPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Sorts problems by line, then column, then message, so output is stable. */
export function sortProblems(problems: ManifestProblem[]): ManifestProblem[] {
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.message.localeCompare(b.message));
}
