import { ResponsePackageSchema } from '@baton/manifest';
import type { SkillPackage } from '@baton/manifest';
import { SkillsConfigError } from '../errors.js';
import type { AttemptOutcome } from './outcome.js';
import { failure } from './outcome.js';
import type { DelegationRuntime } from './runtime.js';
import { scopeStorage } from './scope.js';
import type { Scope } from './scope.js';
import { renderSkillPackage } from './skill-package.js';
import type { Trigger } from './task.js';
import { subagentRunKey } from './task-id.js';
import { YIELD_CONTROL_NAME } from './tools.js';
import type { DelegationBoundary, DelegationContext } from './types.js';

/**
 * Dispatch to an in-process agent through the runner, one attempt: the child's scope rides the
 * async context, a hard timeout cancels the run, and only a `yield_control` (or a literal
 * termination trigger in the final text) counts as a yield.
 */
export async function runAgentAttempt(
  rt: DelegationRuntime,
  agentId: string,
  pkg: SkillPackage,
  signal: AbortSignal,
  trigger: Pick<Trigger, 'literal'> | undefined,
  ctx: DelegationContext,
  boundary?: DelegationBoundary,
): Promise<AttemptOutcome> {
  const runner = rt.options.runner;
  if (!runner) throw new SkillsConfigError('NO_RUNNER', `subagent ${agentId} is an agent, but no runner was given to createDelegation`);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('timeout')), pkg.constraints.timeout_ms);
  const runSignal = AbortSignal.any([signal, timeout.signal]);
  let stop: (() => void) | undefined;
  const stopped = new Promise<'stopped'>((resolve) => {
    stop = () => resolve('stopped');
    runSignal.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  try {
    const scope: Scope = { depth: pkg.depth, maxDepth: pkg.max_depth, lineage: [...pkg.lineage, agentId] };
    const run = scopeStorage.run(scope, () =>
      runner.run({
        agentId,
        input: renderSkillPackage(pkg),
        systemTools: [rt.yieldControlTool],
        depth: pkg.depth,
        maxTurns: pkg.constraints.max_iterations,
        signal: runSignal,
        ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
        ...(ctx.traceparent && ctx.tracestate ? { tracestate: ctx.tracestate } : {}),
        ...(ctx.idempotencyKey ? { idempotencyKey: subagentRunKey(ctx.idempotencyKey, pkg.attempt ?? 1) } : {}),
        ...(boundary ? { inputBoundary: boundary } : {}),
      }),
    );
    run.catch(() => undefined);
    const result = await Promise.race([run, stopped]);
    if (result === 'stopped' || runSignal.aborted) {
      if (timeout.signal.aborted)
        return {
          kind: 'final',
          response: failure(
            'ERR_TIMEOUT',
            `agent ${agentId} did not yield within ${pkg.constraints.timeout_ms} ms; its run was cancelled`,
            { timeout_ms: pkg.constraints.timeout_ms },
          ),
        };
      return { kind: 'final', response: failure('ERR_CANCELLED', `delegation to ${agentId} was cancelled`) };
    }
    if (result.terminal?.name === YIELD_CONTROL_NAME) {
      const parsed = ResponsePackageSchema.safeParse(result.terminal.arguments);
      if (parsed.success) return { kind: 'yield', response: parsed.data };
      return {
        kind: 'retryable',
        error: {
          code: 'ERR_TOOL_FAILURE',
          message: `agent ${agentId} called yield_control with invalid arguments: ${parsed.error.issues[0]?.message ?? ''}`,
        },
      };
    }
    if (result.error?.code === 'MAX_TURNS_EXCEEDED') {
      // Seed 002: a spent budget is ERR_RESOURCE_EXHAUSTED (the self-correction gets what is left of it).
      return {
        kind: 'retryable',
        error: {
          code: 'ERR_RESOURCE_EXHAUSTED',
          message: `agent ${agentId} spent its budget of ${pkg.constraints.max_iterations} turn${pkg.constraints.max_iterations === 1 ? '' : 's'} without calling yield_control`,
        },
      };
    }
    if (trigger?.literal !== undefined && result.response !== null && result.response.includes(trigger.literal)) {
      return {
        kind: 'yield',
        response: { status: 'SUCCESS', output_payload: { response: result.response }, log_summary: 'ended by termination_trigger' },
      };
    }
    return {
      kind: 'retryable',
      error: { code: 'ERR_TOOL_FAILURE', message: `agent ${agentId} ended its run (${result.status}) without calling yield_control` },
    };
  } catch (err) {
    if (err instanceof SkillsConfigError) throw err;
    return { kind: 'retryable', error: { code: 'ERR_TOOL_FAILURE', message: `agent ${agentId}'s run failed: ${(err as Error).message}` } };
  } finally {
    clearTimeout(timer);
    stop?.();
  }
}
