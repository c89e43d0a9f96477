import type { SkillPackage } from '@baton/manifest';
import { failure } from './outcome.js';
import type { Checked } from './guard-boundary.js';
import type { DelegationRuntime } from './runtime.js';
import type { LocalTask, TaskPlan } from './task.js';
import type { DelegationBoundary } from './types.js';

/** The SkillPackage every attempt starts from, and the packet gate's proof hooks for it. */
export interface GatedPackage {
  pkg: SkillPackage;
  boundary: DelegationBoundary | undefined;
}

/** Step: build the SkillPackage and pass it through the packet gate (when one is set; a throw refuses). */
export async function gatePackage(rt: DelegationRuntime, task: LocalTask, plan: TaskPlan): Promise<Checked<GatedPackage>> {
  const { args, scope, target } = task;
  let pkg: SkillPackage = {
    task_id: task.taskId,
    subagent_type: target,
    instruction_set: plan.instructionSet,
    payload: plan.payload,
    success_criteria: plan.criteria,
    constraints: { max_iterations: args.max_iterations, timeout_ms: rt.timeoutMs, capabilities: [...plan.capabilities] },
    requires_approval: args.requires_approval ?? false,
    ...(args.termination_trigger !== undefined ? { termination_trigger: args.termination_trigger } : {}),
    depth: scope.depth + 1,
    max_depth: scope.maxDepth,
    lineage: scope.lineage,
    attempt: 1,
  };
  let boundary: DelegationBoundary | undefined;
  if (rt.options.packetGate) {
    try {
      const gated = await rt.options.packetGate.prepare({ skillPackage: pkg, recipient: target, purpose: 'delegation' });
      pkg = gated.skillPackage;
      boundary = gated.boundary;
    } catch (err) {
      return {
        ok: false,
        response: failure('ERR_CONSTRAINT_VIOLATION', `the packet gate refused the hand-off: ${(err as Error).message}`),
      };
    }
  }
  return { ok: true, value: { pkg, boundary } };
}
