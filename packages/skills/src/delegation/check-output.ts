import type { ResponsePackage, SkillPackage } from '@baton/manifest';
import { verifyCriteria } from '../criteria/verify.js';
import { applyEdits } from '../edits/apply-edits.js';
import type { EditInput, FileChange } from '../edits/apply-edits.js';
import { ConstraintViolationError, EditError } from '../errors.js';
import { forgetUndoneEdits } from './ledger-recovery.js';
import { messageOf } from './runtime.js';
import type { DelegationRuntime } from './runtime.js';
import type { LedgerKey, TaskPlan } from './task.js';
import type { EditLedgerFile } from './types.js';

/** The edit ledger failed where failing means nothing may be written or run (fail closed). */
class LedgerFailure extends Error {}

/** How a SUCCESS yield fared against the edits, the contract, the criteria and the trigger. */
export interface OutputCheck {
  ok: boolean;
  problems: string[];
  results: Array<{ ok: boolean; message: string }>;
  /** Only requested criteria failed, and some passed: PARTIAL_COMPLETION. */
  partial: boolean;
  /** The ledger failed before a write (fail closed): the message. */
  ledgerFailure: string | undefined;
  /** The edits are not allowed (not merely wrong): the message. */
  forbidden: string | undefined;
}

/** The edits a yield returns (`diff`, `replace_blocks`, or `edits` in either format). */
export function editsOf(output: Record<string, unknown>): EditInput[] | undefined {
  const out: EditInput[] = [];
  if (typeof output.diff === 'string') out.push({ format: 'unified_diff', text: output.diff });
  if (typeof output.replace_blocks === 'string') out.push({ format: 'replace_blocks', text: output.replace_blocks });
  if (typeof output.edits === 'string')
    out.push({ format: /^\s*REPLACE_START\s*$/m.test(output.edits) ? 'replace_blocks' : 'unified_diff', text: output.edits });
  return out.length > 0 ? out : undefined;
}

/**
 * Step, on every SUCCESS yield: apply (or dry-run) its edits with the ledger recording them, then
 * verify the contract, the criteria and the trigger; undo the edits when anything fails.
 */
export async function checkOutput(
  rt: DelegationRuntime,
  response: ResponsePackage,
  plan: TaskPlan,
  pkg: SkillPackage,
  signal: AbortSignal,
  keyed: LedgerKey | undefined,
): Promise<OutputCheck> {
  const { workspace } = rt;
  const { criteria, contract, trigger } = plan;
  const output = response.output_payload;
  let changedFiles: string[] = [];
  const edits = editsOf(output);
  const problems: string[] = [];
  const results: Array<{ ok: boolean; message: string }> = [];
  // With applyEdits the edits go in first (so command criteria see them) and are undone if any check fails.
  let undo: (() => Promise<void>) | undefined;
  let recorded: EditLedgerFile[] | undefined;
  if (edits) {
    // Crash safety: the post-images go to the ledger (pending) before the first byte is written.
    const beforeWrite = keyed
      ? async (changes: readonly FileChange[]) => {
          const files = changes.map((c) => ({ path: c.path, sha256: c.sha256 }));
          try {
            await keyed.ledger.put(keyed.key, { state: 'pending', files, response, at: new Date().toISOString() });
          } catch (err) {
            throw new LedgerFailure(
              `the edit ledger failed (put pending for key ${JSON.stringify(keyed.key)}): ${messageOf(err)}; no edit was written (fail closed)`,
            );
          }
          recorded = files;
        }
      : undefined;
    try {
      const applied = await applyEdits({
        workspace,
        edits,
        capabilities: pkg.constraints.capabilities,
        dryRun: !rt.options.applyEdits,
        ...(beforeWrite ? { beforeWrite } : {}),
      });
      changedFiles = applied.changes.map((c) => c.path);
      undo = applied.undo;
    } catch (err) {
      if (err instanceof LedgerFailure)
        return { ok: false, problems: [], results, partial: false, ledgerFailure: err.message, forbidden: undefined };
      // Forbidden, not mistaken: a retry cannot make it allowed (seed 002: ERR_CONSTRAINT_VIOLATION).
      if (err instanceof ConstraintViolationError || (err instanceof EditError && err.code === 'PATH_ESCAPE')) {
        return {
          ok: false,
          problems: [],
          results,
          partial: false,
          ledgerFailure: undefined,
          forbidden: `the returned edits are forbidden: ${err.message}; nothing was written`,
        };
      }
      problems.push(`the returned edits cannot be applied: ${(err as Error).message}`);
      if (recorded && keyed) await forgetUndoneEdits(rt, keyed, recorded); // the write failed and applyEdits rolled it back
    }
  }
  const contractCheck = await verifyCriteria(contract, { output, workspace, changedFiles, signal });
  problems.push(...contractCheck.results.filter((r) => !r.ok).map((r) => `output does not match the skill's output_schema: ${r.message}`));
  const verified = await verifyCriteria(criteria, { output, workspace, changedFiles, signal });
  results.push(...verified.results.map((r) => ({ ok: r.ok, message: r.message })));
  if (trigger?.criterion) {
    const t = await verifyCriteria([trigger.criterion], { output, workspace, changedFiles, signal });
    if (!t.ok) problems.push(`termination_trigger not met: ${t.results[0]?.message ?? ''}`);
  } else if (trigger?.literal !== undefined && !`${JSON.stringify(output)}\n${response.log_summary ?? ''}`.includes(trigger.literal)) {
    problems.push(`termination_trigger ${JSON.stringify(trigger.literal)} does not appear in the output`);
  }
  problems.push(...verified.results.filter((r) => !r.ok).map((r) => `criterion failed: ${r.message}`));
  if (problems.length > 0 && undo) {
    await undo();
    if (recorded && keyed) await forgetUndoneEdits(rt, keyed, recorded);
  } else if (problems.length === 0 && recorded && keyed) {
    try {
      await keyed.ledger.put(keyed.key, { state: 'applied', files: recorded, response, at: new Date().toISOString() });
    } catch (err) {
      // The edits stand and passed every check; a retry finds the pending entry and its post-images on disk.
      rt.log.warn('edit ledger: could not record the applied edits', { ledger_key: keyed.key, error: messageOf(err) });
    }
  }
  const onlyCriteriaFailed = problems.length === verified.results.filter((r) => !r.ok).length;
  // PARTIAL_COMPLETION: everything else holds and some (not all) requested criteria passed.
  return {
    ok: problems.length === 0,
    problems,
    results,
    partial: onlyCriteriaFailed && results.some((r) => r.ok),
    ledgerFailure: undefined,
    forbidden: undefined,
  };
}
