import { ResponsePackageSchema } from '@baton/manifest';
import type { ResponsePackage } from '@baton/manifest';
import {
  DELEGATE_TASK_DESCRIPTION,
  DELEGATE_TASK_NAME,
  delegateTaskParameters,
  YIELD_CONTROL_DESCRIPTION,
  YIELD_CONTROL_NAME,
  YIELD_CONTROL_PARAMETERS,
} from './tools.js';
import type { DelegationContext, DelegationSystemTool } from './types.js';

/** `yield_control` for an in-process subagent: terminal; the runner hands its arguments back. */
export function createYieldControlTool(): DelegationSystemTool {
  return {
    name: YIELD_CONTROL_NAME,
    description: YIELD_CONTROL_DESCRIPTION,
    parameters: YIELD_CONTROL_PARAMETERS,
    terminal: true,
    async execute(args) {
      const parsed = ResponsePackageSchema.safeParse(args);
      if (!parsed.success)
        return `yield_control arguments are invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
      return 'control yielded to the parent';
    },
  };
}

/** Options for {@link createDelegateTaskTool}. */
export interface DelegateTaskToolOptions {
  /** The `subagent_type` enum, or undefined for any name. */
  subagentNames: string[] | undefined;
  /** Pause calls with `requires_approval: true` in the run (resumable approvals). */
  resumableApprovals: boolean;
  /** Runs one delegation (may reject). */
  delegate: (args: unknown, ctx: DelegationContext) => Promise<ResponsePackage>;
  /** Turns a rejection into the FAILURE package the model sees. */
  asFailure: (err: unknown) => ResponsePackage;
}

/** `delegate_task` for the parent agent: its output is always a ResponsePackage as JSON. */
export function createDelegateTaskTool(opts: DelegateTaskToolOptions): DelegationSystemTool {
  return {
    name: DELEGATE_TASK_NAME,
    description: DELEGATE_TASK_DESCRIPTION,
    parameters: delegateTaskParameters(opts.subagentNames),
    ...(opts.resumableApprovals ? { needsApproval: (args: Record<string, unknown>) => args.requires_approval === true } : {}),
    async execute(args, ctx) {
      try {
        return JSON.stringify(await opts.delegate(args, ctx));
      } catch (err) {
        return JSON.stringify(opts.asFailure(err));
      }
    },
    eventDetail: delegationEventDetail,
  };
}

/** A skill name or an agent id (letters, digits, `_ . -`). */
const SUBAGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

/**
 * `delegate_task`'s report for the runner's `tool_end` event: who was delegated to, at which
 * depth, how it ended (the package's status and error code), never instruction or output text.
 * `subagent` is the `subagent_type` the call ran with (after the TOOL_CALL check), left out when it
 * named no subagent (`ERR_UNKNOWN_SUBAGENT`) or is not a name.
 */
export function delegationEventDetail(
  args: Record<string, unknown>,
  output: string,
  ctx: DelegationContext,
): Record<string, string | number | boolean> {
  const parsed = (() => {
    try {
      return ResponsePackageSchema.safeParse(JSON.parse(output));
    } catch {
      return undefined;
    }
  })();
  const pkg = parsed?.success ? parsed.data : undefined;
  // The approval step's refusals (not requested, or denied) are the only failures naming capabilities.
  const capabilities = pkg?.error_report?.details?.capabilities;
  const refused = pkg?.error_report?.code === 'ERR_CONSTRAINT_VIOLATION' && Array.isArray(capabilities);
  // The model wrote subagent_type: reported only when it is name-shaped and named a subagent.
  const subagent =
    typeof args.subagent_type === 'string' && SUBAGENT_NAME.test(args.subagent_type) && pkg?.error_report?.code !== 'ERR_UNKNOWN_SUBAGENT'
      ? args.subagent_type
      : undefined;
  return {
    ...(subagent !== undefined ? { subagent } : {}),
    depth: (ctx.depth ?? 0) + 1,
    requires_approval: args.requires_approval === true,
    status: pkg?.status ?? 'INVALID',
    ...(pkg?.error_report ? { error_code: pkg.error_report.code } : {}),
    ...(refused ? { approval_refused: true, capabilities: (capabilities as unknown[]).map(String).join(',') } : {}),
  };
}
