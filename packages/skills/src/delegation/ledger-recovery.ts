import type { ResponsePackage } from '@baton/manifest';
import { EditLedgerEntrySchema, editsLanded } from './edit-ledger.js';
import { failure } from './outcome.js';
import { messageOf } from './runtime.js';
import type { DelegationRuntime } from './runtime.js';
import type { LedgerKey } from './task.js';
import type { DelegationContext, EditLedgerFile } from './types.js';

/** The ledger and key a local run records its edits under (only with applyEdits, a ledger and a key). */
export function ledgerFor(rt: DelegationRuntime, ctx: DelegationContext): LedgerKey | undefined {
  const { options } = rt;
  if (!options.applyEdits || !options.editLedger || typeof ctx.idempotencyKey !== 'string' || ctx.idempotencyKey.length === 0)
    return undefined;
  return { ledger: options.editLedger, key: ctx.idempotencyKey };
}

/**
 * Step, before a keyed task runs: an `applied` entry is the answer; a `pending` one whose
 * post-images are all on disk landed before a crash (mark applied, answer); one with none on disk
 * did not (forget it, run). Anything else fails closed.
 */
export async function recoverFromLedger(
  rt: DelegationRuntime,
  { ledger, key }: LedgerKey,
  target: string,
): Promise<ResponsePackage | undefined> {
  const { log } = rt;
  const closed = (what: string, err: unknown) =>
    failure(
      'ERR_TOOL_FAILURE',
      `the edit ledger failed (${what} for key ${JSON.stringify(key)}): ${messageOf(err)}; nothing was run or written (fail closed)`,
      { ledger_key: key },
    );
  let raw: unknown;
  try {
    raw = await ledger.get(key);
  } catch (err) {
    return closed('get', err);
  }
  if (raw === undefined || raw === null) return undefined;
  const parsed = EditLedgerEntrySchema.safeParse(raw);
  if (!parsed.success)
    return closed('get', new Error(`the stored entry is not an EditLedgerEntry: ${parsed.error.issues[0]?.message ?? ''}`));
  const entry = parsed.data;
  if (entry.state === 'applied') {
    log.info('edit ledger: task already applied; returning the recorded result', { ledger_key: key, subagent: target });
    return entry.response;
  }
  let landed: Awaited<ReturnType<typeof editsLanded>>;
  try {
    landed = await editsLanded(rt.workspace, entry.files);
  } catch (err) {
    return closed('comparing the recorded post-images with the workspace', err);
  }
  if (landed.kind === 'all') {
    try {
      await ledger.put(key, { ...entry, state: 'applied', at: new Date().toISOString() });
    } catch (err) {
      // The edits stand either way; the next retry finds the same pending entry and the same files.
      log.warn('edit ledger: could not mark a recovered task applied', { ledger_key: key, error: messageOf(err) });
    }
    log.info('edit ledger: edits landed before a crash; returning the recorded result', {
      ledger_key: key,
      subagent: target,
      files: entry.files.length,
    });
    return entry.response;
  }
  if (landed.kind === 'some') {
    return failure(
      'ERR_TOOL_FAILURE',
      `a previous run of this task was interrupted while writing or undoing its edits: ${landed.landed.join(', ')} carry them, ${landed.missing.join(', ')} do not. The workspace needs a manual check; delete edit ledger key ${JSON.stringify(key)} to run the task again`,
      { ledger_key: key, landed: landed.landed, missing: landed.missing },
    );
  }
  try {
    await ledger.delete(key);
  } catch (err) {
    return closed('delete', err);
  }
  log.info('edit ledger: edits of an interrupted run did not land; running the task again', { ledger_key: key, subagent: target });
  return undefined;
}

/**
 * The edits were rolled back or undone: drop the pending entry, but only once none of its
 * post-images is on disk any more. A half-undone workspace keeps the entry, so a retry refuses
 * to run (and possibly apply edits twice) rather than guess.
 */
export async function forgetUndoneEdits(rt: DelegationRuntime, { ledger, key }: LedgerKey, files: EditLedgerFile[]): Promise<void> {
  try {
    const landed = await editsLanded(rt.workspace, files);
    if (landed.kind !== 'none') {
      rt.log.warn('edit ledger: undone edits are still partly on disk; keeping the pending entry', {
        ledger_key: key,
        landed: landed.kind === 'all' ? files.map((f) => f.path) : landed.landed,
      });
      return;
    }
    await ledger.delete(key);
  } catch (err) {
    // Harmless: the files are back to their pre-images, so a retry sees "did not land" and runs again.
    rt.log.warn('edit ledger: could not delete the entry of undone edits', { ledger_key: key, error: messageOf(err) });
  }
}
