import type { SkillPackage } from '@baton/manifest';

/** The first user message of an in-process subagent: the package, and how to finish. */
export function renderSkillPackage(pkg: SkillPackage): string {
  const lines = [
    `You are a subagent working on task ${pkg.task_id}. You know nothing but what is below.`,
    '',
    'Instructions:',
    pkg.instruction_set,
    '',
    'Input data (JSON):',
    JSON.stringify(pkg.payload, null, 2),
  ];
  if (pkg.success_criteria.length > 0) lines.push('', 'Success criteria (checked by the runtime):', JSON.stringify(pkg.success_criteria));
  if (pkg.termination_trigger) lines.push('', `You are done when: ${pkg.termination_trigger}`);
  if (pkg.previous_error)
    lines.push('', `Your previous attempt failed (${pkg.previous_error.code}): ${pkg.previous_error.message}. Correct it.`);
  lines.push(
    '',
    `Finish by calling yield_control exactly once with status SUCCESS, FAILURE, PARTIAL_COMPLETION or BLOCKED_AWAITING_CLARIFICATION (if the instructions are ambiguous: do not guess). You have at most ${pkg.constraints.max_iterations} turns.`,
  );
  return lines.join('\n');
}
