import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { EditError } from '../errors.js';

/**
 * A path resolved inside a workspace, symlinks followed: `absolute` is the file's real path (for
 * I/O), `relative` its real path relative to the workspace's real path (POSIX, for messages).
 */
export interface WorkspacePath {
  absolute: string;
  relative: string;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Resolves `target` (relative to the workspace, or absolute) to its real path and proves it stays
 * inside the workspace: lexically (`..`, absolute paths elsewhere) and physically (the deepest
 * existing part is realpath'd, so a symlinked folder or file must point inside too). Throws
 * `EditError('PATH_ESCAPE')` otherwise, and for a dangling symlink.
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
  if (relative === '')
    throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(target)} is the workspace itself, not a file`, { file: target });

  // One real path per file: the deepest existing part is realpath'd (symlinked folders and a
  // symlinked file inside the workspace resolve to what they point at), the rest is appended.
  // Two names of one file then land on one plan entry instead of silently overwriting each other.
  let existing = mapped;
  const tail: string[] = [];
  let real: string | undefined;
  for (;;) {
    try {
      real = await realpath(existing);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP')
        throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(relative)} goes through a symlink loop`, { file: relative, cause: err });
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      if (
        existing === mapped &&
        (await lstat(mapped).then(
          (st) => st.isSymbolicLink(),
          () => false,
        ))
      ) {
        throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(relative)} is a dangling symlink`, { file: relative });
      }
      const parent = path.dirname(existing);
      if (parent === existing) break;
      tail.unshift(path.basename(existing));
      existing = parent;
    }
  }
  const resolved = path.join(real ?? existing, ...tail);
  if (!isInside(root, resolved)) {
    throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(relative)} goes through a symlink that leaves the workspace`, {
      file: relative,
    });
  }
  const realRelative = path.relative(root, resolved).split(path.sep).join('/');
  if (realRelative === '')
    throw new EditError('PATH_ESCAPE', `path ${JSON.stringify(target)} resolves to the workspace itself, not a file`, { file: target });
  return { absolute: resolved, relative: realRelative };
}
