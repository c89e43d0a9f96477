import type { ResponsePackage } from '@baton/manifest';
import { asFailure } from './as-failure.js';
import { delegateOnce } from './pipeline.js';
import { runDelegatedTask } from './run-delegated.js';
import { createRuntime } from './runtime.js';
import { createDelegateTaskTool } from './system-tools.js';
import type { CreateDelegationOptions, Delegation, DelegationContext } from './types.js';

export { APPROVAL_CAPABILITIES } from './approval.js';
export { DELEGATION_ENV } from './scope.js';
export { subagentRunKey, taskIdFromKey } from './task-id.js';

/**
 * Creates `delegate_task` / `yield_control` and the runtime behind them: skills and agents as
 * subagents, explicit SkillPackages, depth/loop limits, approvals, payload bounds, hard
 * timeouts, one self-correction, criteria verification and guardrails at the boundary.
 * The steps live in their own modules (see `pipeline.ts`); this wires them to one runtime.
 */
export function createDelegation(options: CreateDelegationOptions): Delegation {
  const rt = createRuntime(options);

  /** Every call is tracked so `shutdown()` can wait for it. */
  async function tracked(p: Promise<ResponsePackage>): Promise<ResponsePackage> {
    rt.inflight.add(p);
    try {
      return await p;
    } finally {
      rt.inflight.delete(p);
    }
  }

  function delegate(args: unknown, ctx: DelegationContext = {}): Promise<ResponsePackage> {
    return tracked(delegateOnce(rt, args, ctx));
  }

  return {
    delegateTaskTool: createDelegateTaskTool({
      subagentNames: rt.subagentNames,
      resumableApprovals: options.resumableApprovals === true,
      delegate,
      asFailure: (err) => asFailure(rt.log, err),
    }),
    yieldControlTool: rt.yieldControlTool,
    delegate,
    runDelegated: (task, runOptions = {}) =>
      runDelegatedTask(rt, task, runOptions, (args, ctx) => tracked(delegateOnce(rt, args, ctx, true))),
    async shutdown() {
      rt.stopAll.abort(new Error('delegation shut down'));
      await Promise.allSettled([...rt.inflight]);
    },
    confinement: rt.confinement,
  };
}
