import type { AgentRegistry, RegisteredAgent } from '@baton/runner';
import { StackConfigError } from './errors.js';

/**
 * The registry with extra system tools per agent id on top of baton.yml's `system_tools` (the demo
 * gives the refunds specialist `delegate_task` without putting it in the examples' baton.yml, where
 * it would make every runner built from the examples require a delegation runtime).
 */
export function withSystemTools(base: AgentRegistry, extra: Readonly<Record<string, readonly string[]>>, where: string): AgentRegistry {
  for (const id of Object.keys(extra)) {
    if (!base.get(id)) throw new StackConfigError(`extra system tools: no agent ${id} in ${where}`);
  }
  const overlay = (entry: RegisteredAgent): RegisteredAgent => {
    const tools = Object.hasOwn(extra, entry.manifest.id) ? extra[entry.manifest.id] : undefined;
    if (!tools) return entry;
    const systemTools = [...new Set([...entry.deployment.system_tools, ...tools])];
    return { ...entry, deployment: { ...entry.deployment, system_tools: systemTools } };
  };
  return {
    get: (id, version) => {
      const entry = base.get(id, version);
      return entry ? overlay(entry) : undefined;
    },
    list: () => base.list().map(overlay),
    limits: base.limits,
  };
}
