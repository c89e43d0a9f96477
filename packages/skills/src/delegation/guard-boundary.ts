import { ResponsePackageSchema } from '@baton/manifest';
import type { ResponsePackage } from '@baton/manifest';
import { checkText } from './guardrail-checks.js';
import { failure } from './outcome.js';
import type { DelegationRuntime } from './runtime.js';
import type { DelegationCall, TaskPlan } from './task.js';

/** A step's verdict: go on with `value`, or stop with `response`. */
export type Checked<T> = { ok: true; value: T } | { ok: false; response: ResponsePackage };

/**
 * Step: the AGENT_INPUT guardrail over what the subagent is told. A MODIFY decision must keep the
 * shape (instruction_set string, payload object); anything else is blocked (fail closed).
 */
export async function guardInput(
  rt: DelegationRuntime,
  call: DelegationCall,
  plan: TaskPlan,
  signal: AbortSignal,
): Promise<Checked<TaskPlan>> {
  const check = await checkText(
    rt.guardrails,
    'AGENT_INPUT',
    call.target,
    JSON.stringify({ instruction_set: plan.instructionSet, payload: plan.payload }),
    { ...call.ctx, signal, depth: call.scope.depth + 1 },
  );
  if (!check.ok) return { ok: false, response: failure('ERR_CONSTRAINT_VIOLATION', `the subagent's input was blocked: ${check.reason}`) };
  if (!check.modified) return { ok: true, value: plan };
  let redacted: unknown;
  try {
    redacted = JSON.parse(check.text);
  } catch {
    redacted = undefined;
  }
  const r = redacted as { instruction_set?: unknown; payload?: unknown } | undefined;
  if (!r || typeof r.instruction_set !== 'string' || !r.payload || typeof r.payload !== 'object' || Array.isArray(r.payload)) {
    return {
      ok: false,
      response: failure(
        'ERR_CONSTRAINT_VIOLATION',
        'the AGENT_INPUT guardrail modified the input into something that is not the same shape; blocked (fail closed)',
      ),
    };
  }
  return { ok: true, value: { ...plan, instructionSet: r.instruction_set, payload: r.payload as Record<string, unknown> } };
}

/**
 * Step: the AGENT_RESPONSE guardrail over what the subagent yielded. A MODIFY decision must still
 * be a ResponsePackage; anything else is blocked (fail closed).
 */
export async function guardResponse(
  rt: DelegationRuntime,
  call: DelegationCall,
  response: ResponsePackage,
  signal: AbortSignal,
): Promise<Checked<ResponsePackage>> {
  const check = await checkText(rt.guardrails, 'AGENT_RESPONSE', call.target, JSON.stringify(response), {
    ...call.ctx,
    signal,
    depth: call.scope.depth + 1,
  });
  if (!check.ok)
    return { ok: false, response: failure('ERR_CONSTRAINT_VIOLATION', `the subagent's response was blocked: ${check.reason}`) };
  if (!check.modified) return { ok: true, value: response };
  const reparsed = (() => {
    try {
      return ResponsePackageSchema.safeParse(JSON.parse(check.text));
    } catch {
      return undefined;
    }
  })();
  if (!reparsed?.success)
    return {
      ok: false,
      response: failure(
        'ERR_CONSTRAINT_VIOLATION',
        'the AGENT_RESPONSE guardrail modified the response into something that is not a ResponsePackage; blocked (fail closed)',
      ),
    };
  return { ok: true, value: reparsed.data };
}
