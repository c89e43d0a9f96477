import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { EditError } from '../errors.js';

/** A path resolved inside a workspace: `absolute` for I/O, `relative` (POSIX) for messages. */
export interface WorkspacePath {
  absolute: string;
  relative: string;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Resolves `target` (relative to the workspace, or absolute) and proves it stays inside the
 * workspace: lexically (`..`, absolute paths elsewhere) and physically (the deepest existing
 * ancestor is realpath'd, and an existing target that is a symlink must point inside too).
 * Throws `EditError('PATH_ESCAPE')` otherwise.
 */
export async function resolveInsideWorkspace(workspace: string, target: string): Promise<WorkspacePath> {
  if (target.length === 0 || target.includes('\0')) {
    throw new EditError('PATH_ESCAPE', `invalid path ${JSON.stringify(target)}`, { file: target });
  }
  const root = await realpath(path.resolve(workspace));
  const lexicalRoot = path.resolve(workspace);
  const abs = path.resolve(lexicalRoot, target);
  // Absolute paths are accepted only when they already name something under the workspace.
  let mapped: string;
  if (isInside(lexicalRoot, abs)) mapped = path.join(root, path.relative(lexicalRoot, abs));
  else if (isInside(root, abs)) mapped = abs;
  else throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(target)} resolves outside the workspace`, { file: target });
  const relative = path.relative(root, mapped).split(path.sep).join('/');
  if (relative === '') throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(target)} is the workspace itself, not a file`, { file: target });

  // Walk up to the deepest existing ancestor and realpath it: a symlinked directory must not lead out.
  let probe = path.dirname(mapped);
  for (;;) {
    try {
      const real = await realpath(probe);
      if (!isInside(root, real)) {
        throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(relative)} goes through a symlink that leaves the workspace`, { file: relative });
      }
      break;
    } catch (err) {
      if (err instanceof EditError) throw err;
      const parent = path.dirname(probe);
      if (parent === probe) break;
      probe = parent;
    }
  }
  try {
    const st = await lstat(mapped);
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = await realpath(mapped);
      } catch {
        throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(relative)} is a dangling symlink`, { file: relative });
      }
      if (!isInside(root, real)) {
        throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(relative)} is a symlink that points outside the workspace`, { file: relative });
      }
    }
  } catch (err) {
    if (err instanceof EditError) throw err;
    // ENOENT: a file to be created.
  }
  return { absolute: mapped, relative };
}
