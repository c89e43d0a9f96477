import type { ResponsePackage } from '@baton/manifest';
import { asFailure } from './as-failure.js';
import { taskContextOf } from './dispatch.js';
import { DelegatedTaskSchema } from './edit-ledger.js';
import { failure } from './outcome.js';
import type { DelegationRuntime } from './runtime.js';
import { scopeStorage } from './scope.js';
import type { Scope } from './scope.js';
import type { DelegatedTask, DelegationContext } from './types.js';

/**
 * Runs a dispatched task here with the parent's scope; never rejects (a malformed task or a
 * failing step is a FAILURE package). `run` is the local pipeline, tracked for `shutdown()`.
 */
export async function runDelegatedTask(
  rt: DelegationRuntime,
  task: DelegatedTask,
  runOptions: { signal?: AbortSignal },
  run: (args: unknown, ctx: DelegationContext) => Promise<ResponsePackage>,
): Promise<ResponsePackage> {
  const parsed = DelegatedTaskSchema.safeParse(task);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return failure('ERR_INVALID_TASK', `runDelegated: not a DelegatedTask: ${issues}`);
  }
  const { args, scope, context } = parsed.data;
  const ctx: DelegationContext = { ...taskContextOf(context), ...(runOptions.signal ? { signal: runOptions.signal } : {}) };
  // The parent's scope becomes this async context's scope: currentScope() sees it, and so do
  // the in-process subagents started below (whose delegate_task calls dispatch again).
  const parentScope: Scope = { depth: scope.depth, maxDepth: scope.maxDepth, lineage: [...scope.lineage] };
  try {
    return await scopeStorage.run(parentScope, () => run(args, ctx));
  } catch (err) {
    return asFailure(rt.log, err);
  }
}
