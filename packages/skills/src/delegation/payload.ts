import { stat } from 'node:fs/promises';
import { PayloadTooLargeError, SkillsInputError } from '../errors.js';
import { resolveInsideWorkspace } from '../edits/workspace-path.js';
import { EditError } from '../errors.js';
import type { PayloadLimits } from './types.js';

const HINT = 'pass a file reference ({"$ref": "file:relative/path"} inside the workspace) or a URI instead';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000E-\u001F]/;

/**
 * Base64 (standard or URL-safe, optionally a data: URL, optionally wrapped in lines): one run of
 * the alphabet with no spaces. Prose, logs and JSON text are not, whatever their size.
 */
function base64Kind(v: string): string | undefined {
  const dataUrl = /^data:([^,;]{0,100})(?:;[^,]{0,100})?,/.exec(v);
  const lines = (dataUrl ? v.slice(dataUrl[0].length) : v).replace(/\r?\n$/, '').split(/\r?\n/);
  // Wrapped base64 (MIME, PEM) has lines of one fixed width, a multiple of 4; a list of short words does not.
  const width = lines[0]?.length ?? 0;
  if (
    lines.length > 1 &&
    (width < 16 || width % 4 !== 0 || lines.slice(0, -1).some((l) => l.length !== width) || (lines.at(-1)?.length ?? 0) > width)
  )
    return undefined;
  const body = lines.join('');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) && !/^[A-Za-z0-9_-]+={0,2}$/.test(body)) return undefined;
  return dataUrl ? `a data: URL${dataUrl[1] ? ` of ${dataUrl[1]}` : ''}` : 'base64-encoded data';
}

function describeBinary(v: string): string {
  const c = CONTROL.exec(v);
  if (c) return `control character U+${c[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at offset ${c.index}`;
  const l = LONE_SURROGATE.exec(v);
  return `an unpaired UTF-16 surrogate at offset ${l?.index ?? 0}`;
}

/**
 * Refuses binary data and bloat in `input_data`: strings that are not valid text (NUL and other
 * control characters, lone surrogates), long base64 or data: URLs, huge strings or logs, and a
 * large total. The error says where, what the payload actually is, and what to send instead.
 */
export function checkPayloadBounds(input: Record<string, unknown>, limits: PayloadLimits = {}): void {
  const maxTotal = limits.maxTotalBytes ?? 64 * 1024;
  const maxString = limits.maxStringBytes ?? 32 * 1024;
  const maxB64 = limits.maxBase64Bytes ?? 4 * 1024;
  const maxLines = limits.maxLines ?? 2000;
  let largest: { where: string; bytes: number } | undefined;
  const walk = (v: unknown, where: string): void => {
    if (typeof v === 'string') {
      const bytes = Buffer.byteLength(v, 'utf8');
      if (!largest || bytes > largest.bytes) largest = { where, bytes };
      if (CONTROL.test(v) || LONE_SURROGATE.test(v))
        throw new PayloadTooLargeError(`input_data${where} is binary data, not text: it contains ${describeBinary(v)}; ${HINT}`);
      const b64 = bytes > maxB64 ? base64Kind(v) : undefined;
      if (b64)
        throw new PayloadTooLargeError(`input_data${where} is ${b64} (${bytes} bytes; encoded binary is limited to ${maxB64}); ${HINT}`);
      const lines = v.split('\n').length;
      if (bytes > maxString)
        throw new PayloadTooLargeError(
          `input_data${where} is a ${bytes}-byte text string of ${lines} line${lines === 1 ? '' : 's'} (limit ${maxString} bytes); ${HINT}`,
        );
      if (lines > maxLines)
        throw new PayloadTooLargeError(
          `input_data${where} is text of ${lines} lines, ${bytes} bytes (limit ${maxLines} lines): logs belong in a file; ${HINT}`,
        );
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(input, '');
  const total = Buffer.byteLength(JSON.stringify(input), 'utf8');
  if (total > maxTotal) {
    const biggest = largest && largest.bytes > 0 ? `; its largest string is input_data${largest.where} (${largest.bytes} bytes)` : '';
    throw new PayloadTooLargeError(`input_data is ${total} bytes serialised (limit ${maxTotal})${biggest}; ${HINT}`);
  }
}

/** A `{"$ref": "file:…"}` reference after resolution. */
export interface ResolvedFileRef {
  $ref: string;
  /** Workspace-relative path. */
  path: string;
  /** Absolute path the subagent can open. */
  absolute_path: string;
  size_bytes: number;
}

/**
 * Resolves every `{"$ref": "file:relative/path"}` in `input` inside the workspace (escapes and
 * missing files are refused) into a {@link ResolvedFileRef}. Other `$ref` schemes pass through.
 */
export async function resolveFileRefs(input: Record<string, unknown>, workspace: string): Promise<Record<string, unknown>> {
  const visit = async (v: unknown, where: string): Promise<unknown> => {
    if (Array.isArray(v)) return Promise.all(v.map((x, i) => visit(x, `${where}[${i}]`)));
    if (!v || typeof v !== 'object') return v;
    const obj = v as Record<string, unknown>;
    const ref = obj.$ref;
    if (typeof ref === 'string' && ref.startsWith('file:') && Object.keys(obj).length === 1) {
      const rel = ref.slice('file:'.length).replace(/^\/\//, '');
      let resolved;
      try {
        resolved = await resolveInsideWorkspace(workspace, rel);
      } catch (err) {
        if (err instanceof EditError)
          throw new SkillsInputError(
            'FILE_REF_ESCAPE',
            `input_data${where}: file reference ${JSON.stringify(ref)} resolves outside the workspace`,
            { cause: err },
          );
        throw err;
      }
      let size: number;
      try {
        const st = await stat(resolved.absolute);
        if (!st.isFile()) throw new Error('not a regular file');
        size = st.size;
      } catch (err) {
        throw new SkillsInputError(
          'FILE_REF_NOT_FOUND',
          `input_data${where}: file reference ${JSON.stringify(ref)} does not name a file in the workspace`,
          { cause: err },
        );
      }
      return { $ref: ref, path: resolved.relative, absolute_path: resolved.absolute, size_bytes: size } satisfies ResolvedFileRef;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(obj)) out[k] = await visit(x, `${where}.${k}`);
    return out;
  };
  return (await visit(input, '')) as Record<string, unknown>;
}
