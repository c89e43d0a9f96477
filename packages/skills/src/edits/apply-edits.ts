import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, unlink, writeFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import { ConstraintViolationError, EditError } from '../errors.js';
import { applyReplaceBlock, parseReplaceBlocks } from './replace-blocks.js';
import { applyFilePatch, parseUnifiedDiff } from './unified-diff.js';
import { resolveInsideWorkspace } from './workspace-path.js';

/** One edit in a supported format. */
export interface EditInput {
  format: 'unified_diff' | 'replace_blocks';
  text: string;
}

/** Options for {@link applyEdits}. */
export interface ApplyEditsOptions {
  /** Directory every edited path must stay inside. */
  workspace: string;
  /** The edits: a string (format detected: replace blocks if it has REPLACE_START, else a unified diff) or a list. */
  edits: string | EditInput | EditInput[];
  /** Capabilities granted to the edit's author; deleting a file needs `file_delete`. */
  capabilities?: readonly string[];
  /** Check everything and report what would change, but write nothing. */
  dryRun?: boolean;
  /** Seam for the final rename of each file (default `fs.promises.rename`); tests inject failures. */
  rename?: (from: string, to: string) => Promise<void>;
  /**
   * Called once every check has passed and just before anything is written, with the changes
   * and their post-image hashes (not called for a dry run or when nothing changes). If it
   * throws, nothing is written and `applyEdits` rejects with that error. Crash-safe callers
   * record the planned post-images here (see `EditLedger`).
   */
  beforeWrite?: (changes: readonly FileChange[]) => Promise<void>;
}

/** One file the edits changed. */
export interface FileChange {
  /** Workspace-relative POSIX path. */
  path: string;
  action: 'modified' | 'created' | 'deleted';
  /** SHA-256 (hex) of the file's content after the edits (its UTF-8 bytes); null when deleted. */
  sha256: string | null;
}

/** What {@link applyEdits} did. */
export interface ApplyEditsResult {
  changes: FileChange[];
  /** Restores every changed file to its content before the edits (no-op after a dry run). */
  undo(): Promise<void>;
}

interface PlannedFile {
  absolute: string;
  relative: string;
  /** Content on disk before (null: did not exist). */
  original: string | null;
  mode: number | undefined;
  /** Content after (null: delete). */
  next: string | null;
}

/** SHA-256 (hex) of a file content as {@link applyEdits} writes it (UTF-8). */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Detects the format of an edit given as a bare string. */
export function detectEditFormat(text: string): EditInput['format'] {
  return /^\s*REPLACE_START\s*$/m.test(text) && /^FILE:/m.test(text) ? 'replace_blocks' : 'unified_diff';
}

function normalise(edits: ApplyEditsOptions['edits']): EditInput[] {
  if (typeof edits === 'string') return [{ format: detectEditFormat(edits), text: edits }];
  return Array.isArray(edits) ? edits : [edits];
}

async function readExisting(absolute: string): Promise<{ content: string | null; mode: number | undefined; inode: string | undefined }> {
  try {
    const st = await stat(absolute);
    if (!st.isFile()) throw new EditError('PATCH_DOES_NOT_APPLY', `${absolute} is not a regular file`);
    return { content: await readFile(absolute, 'utf8'), mode: st.mode & 0o777, inode: `${st.dev}:${st.ino}` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { content: null, mode: undefined, inode: undefined };
    if (code === 'ENOTDIR') throw new EditError('PATCH_DOES_NOT_APPLY', `${absolute}: a parent of this path is a file, not a directory`);
    throw err;
  }
}

/**
 * Applies unified diffs and Targeted Replace Blocks to a workspace, all files or none.
 * Every path must resolve inside the workspace; a replace block's original must match exactly
 * once; diffs apply with no fuzz; deletions need the `file_delete` capability. New contents are
 * written to temporary files in the same directories and renamed into place; any failure rolls
 * back every file already renamed.
 */
export async function applyEdits(options: ApplyEditsOptions): Promise<ApplyEditsResult> {
  // Keyed by real path: two names of one file (a symlinked folder or file) share one entry, so
  // their edits apply in order to the same content instead of the last write winning.
  const plan = new Map<string, PlannedFile>();
  const inodes = new Map<string, string>();
  const load = async (target: string): Promise<PlannedFile> => {
    const resolved = await resolveInsideWorkspace(options.workspace, target);
    const existing = plan.get(resolved.absolute);
    if (existing) return existing;
    const { content, mode, inode } = await readExisting(resolved.absolute);
    if (inode !== undefined) {
      // Hard links: two real paths, one file. Writing both would break the link and report two
      // different contents for one file; refuse rather than guess which the author meant.
      const other = inodes.get(inode);
      if (other !== undefined)
        throw new EditError('PATH_ALIAS', `${resolved.relative} and ${other} are the same file (hard links); edit it under one name`, {
          file: resolved.relative,
        });
      inodes.set(inode, resolved.relative);
    }
    const entry: PlannedFile = { ...resolved, original: content, mode, next: content };
    plan.set(resolved.absolute, entry);
    return entry;
  };

  for (const edit of normalise(options.edits)) {
    if (edit.format === 'replace_blocks') {
      for (const block of parseReplaceBlocks(edit.text)) {
        const f = await load(block.file);
        if (f.next === null)
          throw new EditError('NO_MATCH', `${f.relative}: the file does not exist, so a replace block cannot match in it`, {
            file: f.relative,
          });
        f.next = applyReplaceBlock(f.next, block, f.relative);
      }
    } else if (edit.format === 'unified_diff') {
      for (const fp of parseUnifiedDiff(edit.text)) {
        const f = await load(fp.path);
        if (fp.kind === 'create') {
          if (f.next !== null)
            throw new EditError('PATCH_DOES_NOT_APPLY', `${f.relative}: the diff creates this file but it already exists`, {
              file: f.relative,
            });
          f.next = applyFilePatch('', fp, f.relative);
        } else {
          if (f.next === null)
            throw new EditError('PATCH_DOES_NOT_APPLY', `${f.relative}: the diff changes this file but it does not exist`, {
              file: f.relative,
            });
          const result = applyFilePatch(f.next, fp, f.relative);
          f.next = fp.kind === 'delete' ? null : result;
        }
      }
    } else {
      throw new EditError('PARSE_ERROR', `unknown edit format ${JSON.stringify((edit as { format: unknown }).format)}`);
    }
  }

  const changed = [...plan.values()].filter((f) => f.original !== f.next);
  const deletions = changed.filter((f) => f.next === null);
  if (deletions.length > 0 && !(options.capabilities ?? []).includes('file_delete')) {
    throw new ConstraintViolationError(
      `deleting ${deletions.map((f) => f.relative).join(', ')} needs the file_delete capability and approval`,
    );
  }
  const changes: FileChange[] = changed.map((f) => ({
    path: f.relative,
    action: f.original === null ? 'created' : f.next === null ? 'deleted' : 'modified',
    sha256: f.next === null ? null : sha256Hex(f.next),
  }));
  if (options.dryRun || changed.length === 0) return { changes, undo: async () => undefined };
  if (options.beforeWrite) await options.beforeWrite(changes.map((c) => ({ ...c })));
  await commit(changed, options.rename ?? rename);
  return { changes, undo: () => restore(changed) };
}

/** Puts every file back as it was before (used by `undo`). */
async function restore(files: PlannedFile[]): Promise<void> {
  for (const f of files) {
    if (f.original === null) await rm(f.absolute, { force: true });
    else {
      await mkdir(path.dirname(f.absolute), { recursive: true });
      await writeFile(f.absolute, f.original, f.mode !== undefined ? { mode: f.mode } : undefined);
    }
  }
}

async function commit(files: PlannedFile[], renameFile: (from: string, to: string) => Promise<void>): Promise<void> {
  const temps = new Map<PlannedFile, string>();
  const createdDirs: string[] = [];
  const done: PlannedFile[] = [];
  try {
    // Stage 1: every new content in a temp file beside its target (same filesystem → atomic rename).
    for (const f of files) {
      if (f.next === null) continue;
      const dir = path.dirname(f.absolute);
      const made = await mkdir(dir, { recursive: true });
      if (made) createdDirs.push(made);
      const tmp = path.join(dir, `.${path.basename(f.absolute)}.baton-${randomBytes(6).toString('hex')}.tmp`);
      temps.set(f, tmp);
      await writeFile(tmp, f.next, { flag: 'wx' });
      if (f.mode !== undefined) await chmod(tmp, f.mode);
    }
    // Stage 2: rename / unlink into place.
    for (const f of files) {
      if (f.next === null) await unlink(f.absolute);
      else await renameFile(temps.get(f) as string, f.absolute);
      temps.delete(f);
      done.push(f);
    }
  } catch (err) {
    await Promise.allSettled([...temps.values()].map((t) => rm(t, { force: true })));
    for (const f of done.reverse()) {
      try {
        if (f.original === null) await rm(f.absolute, { force: true });
        else await writeFile(f.absolute, f.original, f.mode !== undefined ? { mode: f.mode } : undefined);
      } catch {
        // Best effort: keep restoring the others.
      }
    }
    for (const d of createdDirs.reverse()) await rm(d, { recursive: true, force: true }).catch(() => undefined);
    throw new EditError('WRITE_FAILED', `applying edits failed and was rolled back: ${(err as Error).message}`, { cause: err });
  }
}
