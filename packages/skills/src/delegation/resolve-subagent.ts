import { SkillsConfigError, SkillsInputError } from '../errors.js';
import type { DelegationRuntime } from './runtime.js';
import type { SkillDefinition, SkillRegistry } from './skill-registry.js';

/**
 * The names `subagent_type` may take when agents are listed: every skill and every agent. A name
 * that is both is refused (the skill would shadow the agent). Undefined = no enum (any name).
 */
export function checkSubagentNames(registry: SkillRegistry, agents: readonly string[] | undefined): string[] | undefined {
  if (agents === undefined) return undefined;
  const seen = new Set<string>();
  for (const a of agents) {
    if (typeof a !== 'string' || a.length === 0)
      throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: agents must be non-empty strings, got ${JSON.stringify(a)}`);
    if (seen.has(a))
      throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: agent ${JSON.stringify(a)} is listed twice in agents`);
    seen.add(a);
  }
  if (!registry.names) return undefined; // A registry that cannot list synchronously: no enum rather than unreachable skills.
  const skills = registry.names();
  const both = skills.filter((n) => seen.has(n));
  if (both.length > 0) {
    throw new SkillsConfigError(
      'SUBAGENT_NAME_COLLISION',
      `createDelegation: ${both.map((n) => JSON.stringify(n)).join(', ')} ${both.length === 1 ? 'is' : 'are'} both a skill and an agent; subagent_type could not tell them apart — rename the skill directory or the agent`,
    );
  }
  return [...skills, ...agents];
}

/** Step: the skill `target` names, undefined for an in-process agent; throws for an unknown name. */
export async function resolveSubagent(rt: DelegationRuntime, target: string): Promise<SkillDefinition | undefined> {
  const { options } = rt;
  const skill = await rt.registry.get(target);
  if (skill && options.agents?.includes(target)) {
    // A registry without names() could not be checked at creation: refuse here rather than pick one.
    throw new SkillsConfigError('SUBAGENT_NAME_COLLISION', `${JSON.stringify(target)} is both a skill and an agent; rename one of them`);
  }
  if (!skill && (!options.runner || (options.agents && !options.agents.includes(target)))) {
    const known = [...(await rt.registry.list()).map((s) => s.name), ...(options.agents ?? [])];
    throw new SkillsInputError(
      'UNKNOWN_SUBAGENT',
      `unknown subagent_type ${JSON.stringify(target)}; known: ${known.length ? known.join(', ') : '(none)'}`,
    );
  }
  return skill;
}
