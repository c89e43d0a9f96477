import type { ResponsePackage } from '@baton/manifest';
import type { DelegatedTaskResult, GuardrailDecisionRecord } from '@baton/manifest/contracts';
import { asFailure } from './as-failure.js';
import { taskContextOf } from './dispatch.js';
import { DelegatedTaskSchema } from './edit-ledger.js';
import { checkerBoundaryCheck } from './guardrail-checks.js';
import { failure } from './outcome.js';
import type { DelegationRuntime } from './runtime.js';
import { scopeStorage } from './scope.js';
import type { Scope } from './scope.js';
import type { DelegatedTask, DelegationContext } from './types.js';

/**
 * Runs a dispatched task here with the parent's scope; never rejects (a malformed task or a
 * failing step is a FAILURE package). `run` is the local pipeline, tracked for `shutdown()`.
 * The task's boundary checks (its subagent's input and yields) go through this delegation's
 * checker and come back in `guardrail_decisions`, for the delegating run to record.
 */
export async function runDelegatedTask(
  rt: DelegationRuntime,
  task: DelegatedTask,
  runOptions: { signal?: AbortSignal },
  run: (args: unknown, ctx: DelegationContext) => Promise<ResponsePackage>,
): Promise<DelegatedTaskResult> {
  const parsed = DelegatedTaskSchema.safeParse(task);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return { response: failure('ERR_INVALID_TASK', `runDelegated: not a DelegatedTask: ${issues}`), guardrail_decisions: [] };
  }
  const { args, scope, context } = parsed.data;
  const decisions: GuardrailDecisionRecord[] = [];
  const ctx: DelegationContext = {
    ...taskContextOf(context),
    ...(runOptions.signal ? { signal: runOptions.signal } : {}),
    // No run here to record into: the decisions travel back with the result instead.
    checkBoundary: checkerBoundaryCheck(rt.guardrails, context, decisions),
  };
  // The parent's scope becomes this async context's scope: currentScope() sees it, and so do
  // the in-process subagents started below (whose delegate_task calls dispatch again).
  const parentScope: Scope = { depth: scope.depth, maxDepth: scope.maxDepth, lineage: [...scope.lineage] };
  let response: ResponsePackage;
  try {
    response = await scopeStorage.run(parentScope, () => run(args, ctx));
  } catch (err) {
    response = asFailure(rt.log, err);
  }
  // A copy: a check still running after a cancelled task cannot change what was returned.
  return { response, guardrail_decisions: [...decisions] };
}
