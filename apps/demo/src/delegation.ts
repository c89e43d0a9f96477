import type { ResponsePackage } from '@baton/manifest';
import type { SystemTool } from '@baton/runner';

/** One delegate_task call as the demo saw it. */
export interface ObservedDelegation {
  parentAgentId: string;
  subagent: string;
  /** Depth of the subagent (parent depth + 1). */
  depth: number;
  status: ResponsePackage['status'] | 'INVALID';
  /** True when the approval policy refused the delegation. */
  denied: boolean;
  errorCode?: string;
  errorMessage?: string;
  outputPayload: Record<string, unknown>;
}

/** What the demo narrates about delegations. */
export interface DelegationObserver {
  onStart(info: { parentAgentId: string; subagent: string; depth: number; instruction: string; requiresApproval: boolean }): void;
  onEnd(delegation: ObservedDelegation): void;
}

/**
 * Wraps the stack's `delegate_task` (@baton/skills: skills run as subprocesses in the demo
 * workspace, a SUCCESS's edits are applied there, criteria are verified, approvals use the default
 * policy, so every sensitive capability is refused) so the demo can narrate each call. It only
 * watches: the arguments and the result pass through unchanged.
 */
export function observeDelegateTask(inner: SystemTool, observer: DelegationObserver): SystemTool {
  return {
    name: inner.name,
    description: inner.description,
    parameters: inner.parameters,
    async execute(args, ctx) {
      const parentAgentId = ctx.agentId;
      const subagent = typeof args.subagent_type === 'string' ? args.subagent_type : '(unknown)';
      const depth = ctx.depth + 1;
      observer.onStart({
        parentAgentId,
        subagent,
        depth,
        instruction: typeof args.instruction_set === 'string' ? args.instruction_set : '',
        requiresApproval: args.requires_approval === true,
      });
      const output = await inner.execute(args, ctx);
      observer.onEnd(observe(parentAgentId, subagent, depth, typeof output === 'string' ? output : JSON.stringify(output)));
      return output;
    },
  };
}

function observe(parentAgentId: string, subagent: string, depth: number, output: string): ObservedDelegation {
  let pkg: Partial<ResponsePackage> = {};
  try {
    pkg = JSON.parse(output) as Partial<ResponsePackage>;
  } catch {
    // Reported as INVALID below.
  }
  const status = pkg.status ?? 'INVALID';
  const message = pkg.error_report?.message;
  return {
    parentAgentId,
    subagent,
    depth,
    status,
    denied: status !== 'SUCCESS' && typeof message === 'string' && message.startsWith('approval denied'),
    ...(pkg.error_report ? { errorCode: pkg.error_report.code, errorMessage: pkg.error_report.message } : {}),
    outputPayload: pkg.output_payload ?? {},
  };
}
