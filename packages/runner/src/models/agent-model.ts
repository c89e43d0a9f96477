import type { Model, ModelProvider } from '@openai/agents-core';

/** A provider that can pick a model for a specific agent, not only by model name. */
export interface AgentAwareModelProvider extends ModelProvider {
  /** The model for one agent; `agentId` is the manifest id, `modelName` its `model.name`. */
  getModelForAgent(agent: { agentId: string; modelName?: string }): Model | Promise<Model>;
}

/** Picks a model for an agent, using `getModelForAgent` when the provider has it. */
export function getModelForAgent(provider: ModelProvider, agent: { agentId: string; modelName?: string }): Model | Promise<Model> {
  const aware = provider as Partial<AgentAwareModelProvider>;
  return typeof aware.getModelForAgent === 'function' ? aware.getModelForAgent(agent) : provider.getModel(agent.modelName);
}
