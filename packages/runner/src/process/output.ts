import type { SpawnFailureCode } from './types.js';

const PREVIEW_CHARS = 60;

/** A short, escaped preview of untrusted output for an error message (never the whole thing). */
export function preview(text: string): string {
  const shown = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
  return JSON.stringify(shown);
}

/** The last non-empty line of stderr, shortened, for a failure message. */
export function lastLine(text: string, max = 200): string | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const last = lines[lines.length - 1];
  if (last === undefined) return undefined;
  return last.length > max ? `${last.slice(0, max)}…` : last;
}

/**
 * Parses stdout that must hold exactly one JSON object (surrounding whitespace allowed). The
 * failure message locates the problem and previews the start of the output only.
 */
export function parseSingleJsonObject(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; code: SpawnFailureCode; message: string } {
  if (text.trim() === '') return { ok: false, code: 'NO_OUTPUT', message: 'the process exited 0 but wrote nothing to stdout' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message may quote the input; keep only the position it reports.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at character ${position}`;
    const extra = position !== undefined && isCompleteJsonPrefix(text, Number(position)) ? ' (more than one JSON value)' : '';
    return {
      ok: false,
      code: 'BAD_JSON',
      message: `stdout is not one JSON object: invalid JSON${where}${extra}; ${text.length} characters starting with ${preview(text.trimStart())}`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, code: 'BAD_JSON', message: `stdout must be one JSON object, got ${kind}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function isCompleteJsonPrefix(text: string, position: number): boolean {
  try {
    JSON.parse(text.slice(0, position));
    return true;
  } catch {
    return false;
  }
}
