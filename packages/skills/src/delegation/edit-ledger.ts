import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { EditLedgerEntrySchema } from '@baton/manifest/contracts';
import { sha256Hex } from '../edits/apply-edits.js';
import { resolveInsideWorkspace } from '../edits/workspace-path.js';
import type { EditLedger, EditLedgerEntry, EditLedgerFile } from './types.js';

/**
 * The one `DelegatedTaskSchema` and `EditLedgerEntrySchema`, from `@baton/manifest/contracts`. The
 * task schema is now strict in its envelope, `scope` and `context` too (unknown keys are refused,
 * where this package used to drop them), matching what queue workers already enforced.
 */
export { DelegatedTaskSchema, EditLedgerEntrySchema } from '@baton/manifest/contracts';

/** An in-memory {@link EditLedger} (one process; entries are copied in and out). */
export function createMemoryEditLedger(): EditLedger & { readonly size: number } {
  const entries = new Map<string, EditLedgerEntry>();
  return {
    async get(key) {
      const e = entries.get(key);
      return e ? structuredClone(e) : undefined;
    },
    async put(key, entry) {
      entries.set(key, structuredClone(entry));
    },
    async delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}

/** Options for {@link createFileEditLedger}. */
export interface FileEditLedgerOptions {
  /** Directory of the entries (created when missing): one `<sha256(key)>.json` file per key. */
  dir: string;
}

/**
 * An {@link EditLedger} in a directory: one JSON file per key, written to a temp file, fsync'd
 * and renamed into place, so a crash leaves either the old entry or the new one, never half.
 * A file that does not parse makes `get` throw (delegation then fails closed).
 */
export function createFileEditLedger(options: FileEditLedgerOptions): EditLedger {
  if (typeof options?.dir !== 'string' || options.dir.length === 0) throw new TypeError('createFileEditLedger: dir is required');
  const dir = path.resolve(options.dir);
  const fileOf = (key: string) => path.join(dir, `${sha256Hex(key)}.json`);
  return {
    async get(key) {
      let raw: string;
      try {
        raw = await readFile(fileOf(key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new Error(`edit ledger file ${fileOf(key)} is not valid JSON`);
      }
      const stored = parsed as { key?: unknown; entry?: unknown };
      if (stored.key !== key) throw new Error(`edit ledger file ${fileOf(key)} belongs to another key`);
      const entry = EditLedgerEntrySchema.safeParse(stored.entry);
      if (!entry.success)
        throw new Error(`edit ledger file ${fileOf(key)} does not hold a valid entry: ${entry.error.issues[0]?.message ?? ''}`);
      return entry.data;
    },
    async put(key, entry) {
      await mkdir(dir, { recursive: true });
      const target = fileOf(key);
      const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        const fh = await open(tmp, 'wx', 0o600);
        try {
          await fh.writeFile(JSON.stringify({ key, entry }));
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        throw err;
      }
      await syncDir(dir);
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
      await syncDir(dir);
    },
  };
}

/** Makes a rename or unlink in `dir` durable (best effort: not every platform can fsync a directory). */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // e.g. Windows or a directory removed under us: the rename itself already happened.
  }
}

/** Where a pending entry's edits are: all on disk, none, or some (a crash mid-write). */
export type LandedState = { kind: 'all' } | { kind: 'none' } | { kind: 'some'; landed: string[]; missing: string[] };

/** Compares every recorded post-image with what is on disk now. */
export async function editsLanded(workspace: string, files: readonly EditLedgerFile[]): Promise<LandedState> {
  const landed: string[] = [];
  const missing: string[] = [];
  for (const f of files) {
    const { absolute } = await resolveInsideWorkspace(workspace, f.path);
    let current: string | null;
    try {
      current = sha256Hex(await readFile(absolute));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      current = null;
    }
    (current === f.sha256 ? landed : missing).push(f.path);
  }
  if (missing.length === 0) return { kind: 'all' };
  if (landed.length === 0) return { kind: 'none' };
  return { kind: 'some', landed, missing };
}
