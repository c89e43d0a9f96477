import { ResponsePackageSchema } from '@baton/manifest';
import type { ResponsePackage } from '@baton/manifest';
import { DelegatedTaskResultSchema, type GuardrailDecisionRecord } from '@baton/manifest/contracts';
import { SkillsInputError } from '../errors.js';
import { guardrailAgentId } from './guardrail-checks.js';
import { failure } from './outcome.js';
import { checkPayloadBounds } from './payload.js';
import { callSignal, messageOf } from './runtime.js';
import type { DelegationRuntime } from './runtime.js';
import { limitViolation } from './scope.js';
import type { DelegationCall } from './task.js';
import type { DelegatedTask, DelegatedTaskContext, DelegationContext, TaskDispatcher } from './types.js';

/** The context fields a dispatched task carries (strings only, so it stays JSON). */
export function taskContextOf(ctx: DelegationContext): DelegatedTaskContext {
  const out: DelegatedTaskContext = {};
  for (const k of ['threadId', 'runId', 'agentId', 'traceparent', 'tracestate', 'idempotencyKey'] as const) {
    const v = ctx[k];
    if (typeof v === 'string' && v.length > 0) out[k] = v;
  }
  return out;
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts (a dispatcher that ignores it cannot hang the parent). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * Dispatch path: refuse depth and loop violations and oversized payloads here, then hand the
 * task to the dispatcher; never rejects for dispatcher faults.
 */
export async function dispatchElsewhere(rt: DelegationRuntime, call: DelegationCall, dispatch: TaskDispatcher): Promise<ResponsePackage> {
  const refused = limitViolation(call.scope, call.target);
  if (refused) return refused;
  // Cheap and pure: keeps bloat out of the job store too (the worker checks again).
  checkPayloadBounds(call.args.input_data, rt.options.payloadLimits);
  return dispatchTask(rt, dispatch, call);
}

async function dispatchTask(
  rt: DelegationRuntime,
  dispatch: TaskDispatcher,
  { args, scope, ctx, target }: DelegationCall,
): Promise<ResponsePackage> {
  let task: DelegatedTask;
  try {
    // Exactly what a queue would carry, and the dispatcher cannot mutate our copy.
    task = JSON.parse(JSON.stringify({ args, scope, context: taskContextOf(ctx) })) as DelegatedTask;
  } catch (err) {
    throw new SkillsInputError('INVALID_ARGUMENTS', `delegate_task arguments must be JSON to run elsewhere: ${messageOf(err)}`);
  }
  const signal = callSignal(rt, ctx);
  if (signal.aborted) return failure('ERR_CANCELLED', `delegation to ${target} was cancelled before it was dispatched`);
  rt.log.info('delegation dispatched', {
    subagent: target,
    depth: scope.depth + 1,
    ...(task.context.idempotencyKey ? { idempotency_key: task.context.idempotencyKey } : {}),
  });
  let result: unknown;
  try {
    // Promise.resolve().then: a dispatcher that throws synchronously is a rejection like any other.
    result = await untilAborted(
      Promise.resolve().then(() => dispatch(task, { signal })),
      signal,
    );
  } catch (err) {
    if (signal.aborted) return failure('ERR_CANCELLED', `delegation to ${target} was cancelled while it ran elsewhere`);
    rt.log.warn('task dispatcher failed', { subagent: target, error: messageOf(err) });
    return failure('ERR_TOOL_FAILURE', `the task dispatcher failed to run ${target} elsewhere: ${messageOf(err)}`, {
      subagent_type: target,
    });
  }
  return acceptResult(rt, { scope, ctx, target }, result);
}

/** The reason code of the BLOCK the delegating run records when a task's decisions cannot be read. */
export const DISPATCHED_DECISIONS_INVALID = 'DISPATCHED_DECISIONS_INVALID';

const issuesOf = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');

/**
 * What came back from elsewhere crossed a process boundary: it is validated whole, and its
 * boundary decisions are recorded on the delegating run through `recordBoundaryDecisions` (the
 * runner's one recording path, the same as `checkBoundary`'s). Fails closed: decisions that cannot
 * be read are recorded as one BLOCK and the task is a FAILURE (`ERR_INVALID_TASK_RESULT`), as is a
 * result whose decisions the run would not record, or whose response is not a FAILURE although one of
 * its decisions is a BLOCK — a BLOCK made there never turns into an ALLOW here.
 */
async function acceptResult(
  rt: DelegationRuntime,
  { scope, ctx, target }: Pick<DelegationCall, 'scope' | 'ctx' | 'target'>,
  result: unknown,
): Promise<ResponsePackage> {
  const depth = scope.depth + 1;
  const record = async (decisions: GuardrailDecisionRecord[]): Promise<boolean> => {
    // Outside a run (delegate() called directly) there is nothing to record into, as in-process.
    if (!ctx.recordBoundaryDecisions) return true;
    try {
      return (await ctx.recordBoundaryDecisions({ decisions, boundary: 'delegation', subject: target, depth })) === true;
    } catch (err) {
      rt.log.warn('recording a dispatched task’s guardrail decisions failed', { subagent: target, error: messageOf(err) });
      return false;
    }
  };
  const parsed = DelegatedTaskResultSchema.safeParse(result);
  if (!parsed.success) {
    const decisionsOnly = DelegatedTaskResultSchema.shape.guardrail_decisions.safeParse(
      typeof result === 'object' && result !== null ? (result as { guardrail_decisions?: unknown }).guardrail_decisions : undefined,
    );
    const responseOnly = ResponsePackageSchema.safeParse(
      typeof result === 'object' && result !== null ? (result as { response?: unknown }).response : undefined,
    );
    const extraKeys =
      typeof result === 'object' && result !== null && Object.keys(result).some((k) => k !== 'response' && k !== 'guardrail_decisions');
    if (decisionsOnly.success && !responseOnly.success && !extraKeys) {
      // The decisions are sound evidence of the checks made there: recorded, then the usual failure.
      await record(decisionsOnly.data);
      rt.log.warn('task dispatcher returned garbage', { subagent: target });
      return failure(
        'ERR_TOOL_FAILURE',
        `the task dispatcher returned something that is not a ResponsePackage for ${target}: ${issuesOf(responseOnly.error.issues)}`,
        { subagent_type: target },
      );
    }
    await record([
      { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: DISPATCHED_DECISIONS_INVALID, agent_id: guardrailAgentId(target) },
    ]);
    rt.log.warn('task dispatcher returned a malformed task result', { subagent: target });
    return failure(
      'ERR_INVALID_TASK_RESULT',
      `the task dispatcher's result for ${target} is not a task result ({ response, guardrail_decisions }), so its guardrail decisions cannot be recorded; blocked (fail closed): ${issuesOf(parsed.error.issues)}`,
      { subagent_type: target },
    );
  }
  if (!(await record(parsed.data.guardrail_decisions))) {
    return failure(
      'ERR_INVALID_TASK_RESULT',
      `the guardrail decisions of the task run elsewhere for ${target} could not be recorded on this run; blocked (fail closed)`,
      { subagent_type: target },
    );
  }
  // A BLOCK at the subagent's boundary ends the task with a FAILURE where it runs (guard-boundary):
  // a result that says otherwise contradicts its own decisions and is not let through.
  if (parsed.data.response.status !== 'FAILURE' && parsed.data.guardrail_decisions.some((d) => d.decision === 'BLOCK')) {
    rt.log.warn('a dispatched task reported a guardrail BLOCK with a non-FAILURE result', { subagent: target });
    return failure(
      'ERR_INVALID_TASK_RESULT',
      `the task run elsewhere for ${target} answered ${parsed.data.response.status} although a guardrail blocked it there; blocked (fail closed)`,
      { subagent_type: target },
    );
  }
  return parsed.data.response;
}
