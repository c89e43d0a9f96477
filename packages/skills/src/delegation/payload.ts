import { stat } from 'node:fs/promises';
import { PayloadTooLargeError, SkillsInputError } from '../errors.js';
import { resolveInsideWorkspace } from '../edits/workspace-path.js';
import { EditError } from '../errors.js';
import type { PayloadLimits } from './types.js';

const HINT = 'pass a file reference ({"$ref": "file:relative/path"} inside the workspace) or a URI instead';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000E-\u001F]/;
const BASE64 = /^(?:data:[^,]{0,100},)?[A-Za-z0-9+/=\s_-]+$/;

/**
 * Refuses binary data and bloat in `input_data`: strings that are not valid text (NUL and other
 * control characters, lone surrogates), long base64 blobs, huge strings or logs, and a large
 * total. The error says where and what to send instead.
 */
export function checkPayloadBounds(input: Record<string, unknown>, limits: PayloadLimits = {}): void {
  const maxTotal = limits.maxTotalBytes ?? 64 * 1024;
  const maxString = limits.maxStringBytes ?? 32 * 1024;
  const maxB64 = limits.maxBase64Bytes ?? 4 * 1024;
  const maxLines = limits.maxLines ?? 2000;
  const walk = (v: unknown, where: string): void => {
    if (typeof v === 'string') {
      const bytes = Buffer.byteLength(v, 'utf8');
      if (CONTROL.test(v) || LONE_SURROGATE.test(v)) throw new PayloadTooLargeError(`input_data${where} looks like binary data (not UTF-8 text); ${HINT}`);
      if (bytes > maxB64 && BASE64.test(v) && !/\s{2,}/.test(v.trim())) throw new PayloadTooLargeError(`input_data${where} looks like a base64 blob of ${bytes} bytes (limit ${maxB64}); ${HINT}`);
      if (bytes > maxString) throw new PayloadTooLargeError(`input_data${where} is a ${bytes}-byte string (limit ${maxString}); ${HINT}`);
      const lines = v.split('\n').length;
      if (lines > maxLines) throw new PayloadTooLargeError(`input_data${where} has ${lines} lines (limit ${maxLines}): logs belong in a file; ${HINT}`);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(input, '');
  const total = Buffer.byteLength(JSON.stringify(input), 'utf8');
  if (total > maxTotal) throw new PayloadTooLargeError(`input_data is ${total} bytes serialised (limit ${maxTotal}); ${HINT}`);
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
        if (err instanceof EditError) throw new SkillsInputError('FILE_REF_ESCAPE', `input_data${where}: file reference ${JSON.stringify(ref)} resolves outside the workspace`, { cause: err });
        throw err;
      }
      let size: number;
      try {
        const st = await stat(resolved.absolute);
        if (!st.isFile()) throw new Error('not a regular file');
        size = st.size;
      } catch (err) {
        throw new SkillsInputError('FILE_REF_NOT_FOUND', `input_data${where}: file reference ${JSON.stringify(ref)} does not name a file in the workspace`, { cause: err });
      }
      return { $ref: ref, path: resolved.relative, absolute_path: resolved.absolute, size_bytes: size } satisfies ResolvedFileRef;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(obj)) out[k] = await visit(x, `${where}.${k}`);
    return out;
  };
  return (await visit(input, '')) as Record<string, unknown>;
}
