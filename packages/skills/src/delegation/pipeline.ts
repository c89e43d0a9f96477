import type { ResponsePackage } from '@baton/manifest';
import { checkApproval } from './approval.js';
import { runAttempts } from './attempts.js';
import { dispatchElsewhere } from './dispatch.js';
import { guardInput } from './guard-boundary.js';
import { ledgerFor, recoverFromLedger } from './ledger-recovery.js';
import { gatePackage } from './package-gate.js';
import { parseCall } from './parse-args.js';
import { prepareTask } from './prepare-task.js';
import { resolveSubagent } from './resolve-subagent.js';
import { callSignal } from './runtime.js';
import type { DelegationRuntime } from './runtime.js';
import { limitViolation } from './scope.js';
import type { LocalTask } from './task.js';
import { taskIdFromKey } from './task-id.js';
import type { DelegationContext } from './types.js';

/**
 * One delegation, as a pipeline of named steps; each may stop it with a FAILURE package (or throw
 * a `SkillsError` for a caller's mistake). `local` (runDelegated): run here even when a dispatcher
 * is configured, so a dispatched task is never forwarded again; nested delegate_task calls are not local.
 */
export async function delegateOnce(
  rt: DelegationRuntime,
  rawArgs: unknown,
  ctx: DelegationContext,
  local = false,
): Promise<ResponsePackage> {
  const call = parseCall(rt, rawArgs, ctx);
  if (rt.options.dispatch && !local) return dispatchElsewhere(rt, call, rt.options.dispatch);

  const keyed = ledgerFor(rt, ctx);
  const taskId = ctx.idempotencyKey ? taskIdFromKey(ctx.idempotencyKey) : rt.idGenerator();
  const task: LocalTask = { ...call, taskId, keyed, skill: await resolveSubagent(rt, call.target) };

  const refused = limitViolation(task.scope, task.target);
  if (refused) return refused;
  // A retried task whose edits already stand answers from the ledger, before anything runs.
  const recovered = keyed ? await recoverFromLedger(rt, keyed, task.target) : undefined;
  if (recovered) return recovered;

  const prepared = await prepareTask(rt, task);
  const denied = await checkApproval(rt, task, prepared);
  if (denied) return denied;

  const signal = callSignal(rt, ctx);
  const guarded = await guardInput(rt, task, prepared, signal);
  if (!guarded.ok) return guarded.response;
  const plan = guarded.value;

  const gated = await gatePackage(rt, task, plan);
  if (!gated.ok) return gated.response;
  return runAttempts(rt, task, plan, gated.value, signal);
}
