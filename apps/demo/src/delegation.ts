import { createDelegation, type Delegation, type DelegationContext } from '@baton/skills';
import type { GuardrailValidator, ResponsePackage } from '@baton/manifest';
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

export interface DemoDelegationOptions {
  skillsDir: string;
  workspace: string;
  guardrails: GuardrailValidator;
  /** argv "Tests pass" runs in the workspace. */
  testCommand: string[];
  onStart(info: { parentAgentId: string; subagent: string; depth: number; instruction: string; requiresApproval: boolean }): void;
  onEnd(delegation: ObservedDelegation): void;
  onWarn(message: string): void;
}

/**
 * `delegate_task` backed by @baton/skills: skills run as subprocesses in the demo workspace, a
 * SUCCESS's edits are applied there, criteria are verified, and approvals use the default policy
 * (no approval hook: every sensitive capability is refused).
 */
export function createDemoDelegation(options: DemoDelegationOptions): { tool: SystemTool; delegation: Delegation } {
  const delegation = createDelegation({
    skillsDir: options.skillsDir,
    workspace: options.workspace,
    guardrails: options.guardrails,
    applyEdits: true,
    testCommand: options.testCommand,
    timeoutMs: 20_000,
    logger: { info: () => undefined, warn: (message, fields) => options.onWarn(`${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`) },
  });
  const inner = delegation.delegateTaskTool;
  const tool: SystemTool = {
    name: inner.name,
    description: inner.description,
    parameters: inner.parameters as SystemTool['parameters'],
    async execute(args, ctx) {
      const context: DelegationContext = ctx;
      const parentAgentId = ctx.agentId;
      const subagent = typeof args.subagent_type === 'string' ? args.subagent_type : '(unknown)';
      const depth = ctx.depth + 1;
      options.onStart({
        parentAgentId,
        subagent,
        depth,
        instruction: typeof args.instruction_set === 'string' ? args.instruction_set : '',
        requiresApproval: args.requires_approval === true,
      });
      const output = await inner.execute(args, context);
      options.onEnd(observe(parentAgentId, subagent, depth, output));
      return output;
    },
  };
  return { tool, delegation };
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
