import type { ErrorReport, ResponsePackage, SkillPackage } from '@baton/manifest';
import { checkOutput } from './check-output.js';
import { guardResponse } from './guard-boundary.js';
import { failure } from './outcome.js';
import type { AttemptOutcome } from './outcome.js';
import type { GatedPackage } from './package-gate.js';
import { runAgentAttempt } from './run-agent.js';
import { runSkillAttempt } from './run-skill.js';
import type { DelegationRuntime } from './runtime.js';
import type { LocalTask, TaskPlan } from './task.js';

/** Step: one attempt at the subagent, in a subprocess (skill) or through the runner (agent). */
function runAttempt(
  rt: DelegationRuntime,
  task: LocalTask,
  plan: TaskPlan,
  attemptPkg: SkillPackage,
  gated: GatedPackage,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  return task.skill
    ? runSkillAttempt(rt, task.skill, attemptPkg, signal, gated.boundary)
    : runAgentAttempt(rt, task.target, attemptPkg, signal, plan.trigger, task.ctx, gated.boundary);
}

/**
 * Step: run the subagent under the concurrency limit, at most twice (one self-correction with the
 * previous error), each yield through the response guardrail and the output checks; package the
 * result (SUCCESS, PARTIAL_COMPLETION, or FAILURE with the last error).
 */
export async function runAttempts(
  rt: DelegationRuntime,
  task: LocalTask,
  plan: TaskPlan,
  gated: GatedPackage,
  signal: AbortSignal,
): Promise<ResponsePackage> {
  const { args, target, taskId, keyed } = task;
  const { pkg } = gated;
  let release: () => void;
  try {
    release = await rt.semaphore.acquire(signal);
  } catch {
    return failure('ERR_CANCELLED', `delegation to ${target} was cancelled before it started`);
  }
  try {
    const maxAttempts = Math.min(2, args.max_iterations);
    let lastError: ErrorReport = { code: 'ERR_TOOL_FAILURE', message: 'no attempt ran' };
    let partial: ResponsePackage | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const attemptPkg: SkillPackage = {
        ...pkg,
        attempt,
        constraints: { ...pkg.constraints, max_iterations: args.max_iterations - (attempt - 1) },
        ...(attempt > 1 ? { previous_error: lastError } : {}),
      };
      const outcome = await runAttempt(rt, task, plan, attemptPkg, gated, signal);
      if (outcome.kind === 'final') return outcome.response;
      if (outcome.kind === 'retryable') {
        lastError = outcome.error;
        rt.log.warn('subagent attempt failed', { task_id: taskId, attempt, code: lastError.code });
        continue;
      }
      const guarded = await guardResponse(rt, task, outcome.response, signal);
      if (!guarded.ok) return guarded.response;
      const response = guarded.value;
      if (response.status !== 'SUCCESS') return response;
      const check = await checkOutput(rt, response, plan, attemptPkg, signal, keyed);
      if (check.ledgerFailure !== undefined)
        return failure('ERR_TOOL_FAILURE', check.ledgerFailure, keyed ? { ledger_key: keyed.key } : undefined);
      if (check.forbidden !== undefined)
        return failure('ERR_CONSTRAINT_VIOLATION', check.forbidden, { capabilities: attemptPkg.constraints.capabilities });
      if (check.ok) {
        rt.log.info('delegation succeeded', { task_id: taskId, subagent: target, attempt, ms: Math.round(rt.clock() - task.started) });
        return response;
      }
      lastError = { code: 'ERR_CRITERIA_NOT_MET', message: check.problems.join('; '), details: { criteria: check.results } };
      if (check.partial) partial = { ...response, status: 'PARTIAL_COMPLETION', error_report: lastError };
      else partial = undefined;
    }
    if (partial) return partial;
    return failure(lastError.code, `${lastError.message} (after ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'})`, lastError.details);
  } finally {
    release();
  }
}
