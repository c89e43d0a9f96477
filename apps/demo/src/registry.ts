import { loadAgentRegistry, type AgentRegistry, type RegisteredAgent } from '@baton/runner';

export interface DemoRegistryOptions {
  /** Directory of the example agents and their baton.yml (routing). */
  agentsDir: string;
  /** Extra runtime tools per agent id, on top of baton.yml's `system_tools`. */
  systemTools: Record<string, string[]>;
}

/**
 * The example agents exactly as `baton run` loads them, plus demo-only system tools (the refunds
 * specialist gets `delegate_task`). Kept out of examples/agents/baton.yml on purpose: there it
 * would make every runner built from the examples require a delegation runtime.
 */
export async function loadDemoRegistry(options: DemoRegistryOptions): Promise<AgentRegistry> {
  const base = await loadAgentRegistry({ dir: options.agentsDir });
  for (const id of Object.keys(options.systemTools)) {
    if (!base.get(id)) throw new Error(`demo registry: no agent ${id} in ${options.agentsDir}`);
  }
  const overlay = (entry: RegisteredAgent): RegisteredAgent => {
    const extra = options.systemTools[entry.manifest.id];
    if (!extra) return entry;
    const systemTools = [...new Set([...entry.deployment.system_tools, ...extra])];
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
