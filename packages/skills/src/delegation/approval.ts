import type { ResponsePackage } from '@baton/manifest';
import { failure } from './outcome.js';
import type { DelegationRuntime } from './runtime.js';
import type { LocalTask, TaskPlan } from './task.js';

/** Capabilities that need `requires_approval: true` and a yes from the approval hook (seed: Approval Rules). */
export const APPROVAL_CAPABILITIES: readonly string[] = ['network_outbound', 'file_delete', 'financial_tx'];

/**
 * Step: a subagent with sensitive capabilities runs only when the request says
 * `requires_approval: true` and a human said yes (through the run, or the approval hook). A
 * failing hook is a no. Returns the refusal, or undefined to go on.
 */
export async function checkApproval(rt: DelegationRuntime, task: LocalTask, plan: TaskPlan): Promise<ResponsePackage | undefined> {
  const { target, args, ctx, taskId } = task;
  const sensitive = plan.capabilities.filter((c) => APPROVAL_CAPABILITIES.includes(c));
  if (sensitive.length === 0) return undefined;
  if (args.requires_approval !== true) {
    return failure('ERR_CONSTRAINT_VIOLATION', `${target} needs ${sensitive.join(', ')}: the request must set requires_approval: true`, {
      capabilities: sensitive,
    });
  }
  // A human already approved this call through the run (resumable approvals).
  let yes = rt.options.resumableApprovals === true && ctx.approval?.approved === true;
  if (!yes) {
    try {
      yes =
        (await rt.approvals({ skill: target, capabilities: sensitive, task_id: taskId, summary: plan.instructionSet.slice(0, 200) })) ===
        true;
    } catch (err) {
      rt.log.warn('approval hook failed; treating as a no', { task_id: taskId, error: (err as Error).message });
    }
  }
  if (!yes)
    return failure('ERR_CONSTRAINT_VIOLATION', `approval denied: ${target} needs ${sensitive.join(', ')}`, { capabilities: sensitive });
  return undefined;
}
