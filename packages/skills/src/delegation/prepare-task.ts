import { parseCriteria } from '../criteria/parse.js';
import type { Criterion } from '../criteria/types.js';
import { VagueCriteriaError } from '../errors.js';
import { checkPayloadBounds, resolveFileRefs } from './payload.js';
import type { DelegationRuntime } from './runtime.js';
import { ioSchemaToJsonSchema } from './skill-registry.js';
import type { LocalTask, TaskPlan, Trigger } from './task.js';

/**
 * Step: what the task is checked against (criteria, the skill's output contract, the termination
 * trigger; vague criteria are refused here, before anything runs) and what it carries (payload
 * bounds, file references resolved inside the workspace), plus the capabilities it needs.
 */
export async function prepareTask(rt: DelegationRuntime, task: LocalTask): Promise<TaskPlan> {
  const { args, skill, target } = task;
  const { options } = rt;
  const criteria = parseCriteria(args.success_criteria ?? [], {
    ...(skill ? { outputSchema: ioSchemaToJsonSchema(skill.manifest.output_schema) } : {}),
    ...(options.testCommand ? { testCommand: options.testCommand } : {}),
  });
  // The skill's declared output schema is a contract, checked on every SUCCESS.
  const contract: Criterion[] = skill ? [{ type: 'json_schema', schema: ioSchemaToJsonSchema(skill.manifest.output_schema) }] : [];
  let trigger: Trigger | undefined;
  if (args.termination_trigger !== undefined) {
    try {
      trigger = { criterion: parseCriteria([args.termination_trigger])[0] as Criterion };
    } catch (err) {
      if (!(err instanceof VagueCriteriaError)) throw err;
      trigger = { literal: args.termination_trigger };
    }
  }
  checkPayloadBounds(args.input_data, options.payloadLimits);
  const payload = await resolveFileRefs(args.input_data, rt.workspace);
  const capabilities = skill ? skill.manifest.capabilities : [...(options.agentCapabilities?.[target] ?? [])];
  return { criteria, contract, trigger, payload, instructionSet: args.instruction_set, capabilities };
}
