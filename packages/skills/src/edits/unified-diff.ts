import { applyPatch, parsePatch } from 'diff';
import type { StructuredPatch } from 'diff';
import { EditError } from '../errors.js';

/** One file's part of a unified diff. */
export interface FilePatch {
  /** Workspace-relative path (after stripping `a/` / `b/`). */
  path: string;
  kind: 'modify' | 'create' | 'delete';
  patch: StructuredPatch;
}

const DEV_NULL = '/dev/null';

function stripPrefix(name: string | undefined, prefix: 'a/' | 'b/'): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (trimmed === DEV_NULL) return DEV_NULL;
  return trimmed.startsWith(prefix) ? trimmed.slice(2) : trimmed;
}

/** Parses a (possibly multi-file, possibly git-style) unified diff. */
export function parseUnifiedDiff(text: string): FilePatch[] {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(text);
  } catch (err) {
    throw new EditError('PARSE_ERROR', `unified diff: ${(err as Error).message}`, { cause: err });
  }
  const out: FilePatch[] = [];
  for (const p of patches) {
    const oldName = stripPrefix(p.oldFileName, 'a/');
    const newName = stripPrefix(p.newFileName, 'b/');
    if (oldName === undefined && newName === undefined) {
      if (p.hunks.length === 0) continue;
      throw new EditError('PARSE_ERROR', 'unified diff: a hunk has no ---/+++ file headers');
    }
    if (p.isRename || p.isCopy) {
      throw new EditError(
        'PARSE_ERROR',
        `unified diff: renames and copies are not supported (${oldName} → ${newName}); send a deletion and a creation`,
      );
    }
    if (p.isBinary) throw new EditError('PARSE_ERROR', `unified diff: binary patches are not supported (${newName ?? oldName})`);
    let kind: FilePatch['kind'] = 'modify';
    let file: string;
    if (oldName === DEV_NULL || p.isCreate) {
      kind = 'create';
      file = (newName ?? oldName) as string;
    } else if (newName === DEV_NULL || p.isDelete) {
      kind = 'delete';
      file = oldName as string;
    } else {
      file = (newName ?? oldName) as string;
      if (oldName !== undefined && newName !== undefined && oldName !== newName) {
        throw new EditError('PARSE_ERROR', `unified diff: old and new names differ (${oldName} → ${newName}); renames are not supported`, {
          file,
        });
      }
    }
    if (file === DEV_NULL) throw new EditError('PARSE_ERROR', 'unified diff: both sides are /dev/null');
    if (kind === 'modify' && p.hunks.length === 0) {
      throw new EditError('PARSE_ERROR', `unified diff: the patch for ${file} has no hunks`, { file });
    }
    out.push({ path: file, kind, patch: p });
  }
  if (out.length === 0) throw new EditError('PARSE_ERROR', 'unified diff: no file patches found');
  return out;
}

/** Applies one file's patch to `content` with no fuzz; throws PATCH_DOES_NOT_APPLY. */
export function applyFilePatch(content: string, fp: FilePatch, relative: string): string {
  const result = applyPatch(content, fp.patch, { fuzzFactor: 0, autoConvertLineEndings: false });
  if (result === false) {
    throw new EditError(
      'PATCH_DOES_NOT_APPLY',
      `${relative}: the unified diff does not apply (context or removed lines do not match the file exactly; no fuzz is allowed)`,
      { file: relative },
    );
  }
  if (fp.kind === 'delete' && result !== '') {
    throw new EditError('PATCH_DOES_NOT_APPLY', `${relative}: the deletion patch does not remove the whole file`, { file: relative });
  }
  return result;
}
