import { scriptedGuardrail } from '@baton/manifest/testing';
import {
  createAgentRegistry,
  createMemoryThreadStore,
  parseDeploymentConfig,
  Runner,
  type AgentManifestLike,
  type AgentRegistry,
  type RunnerOptions,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing/index.js';

export function manifest(id: string, overrides: Partial<AgentManifestLike> = {}): AgentManifestLike {
  return {
    schema_version: '1.0',
    id,
    version: '1.0.0',
    name: id.split('.').pop() ?? id,
    instructions: `You are ${id}.`,
    model: { provider: 'openai', name: id.split('.').pop() ?? id },
    tools: [],
    ...overrides,
  };
}

export function lookupTool(name = 'lookup_order') {
  return {
    type: 'function' as const,
    function: {
      name,
      description: 'Looks up an order.',
      parameters: {
        type: 'object' as const,
        properties: { order_id: { type: 'string', pattern: '^[0-9]+$' }, note: { type: 'string' } },
        required: ['order_id'],
        additionalProperties: false,
      },
    },
  };
}

/** A registry from manifests and a baton.yml text. */
export function registry(manifests: AgentManifestLike[], batonYml?: string): AgentRegistry {
  let deployment;
  if (batonYml !== undefined) {
    const parsed = parseDeploymentConfig('baton.yml', process.cwd(), batonYml);
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => `${p.line}:${p.col} ${p.message}`).join('\n'));
    deployment = parsed.value;
  }
  return createAgentRegistry({
    agents: manifests.map((m) => ({ manifest: m, source: `${m.id}.agent.yml` })),
    ...(deployment ? { deployment } : {}),
  });
}

/**
 * A Runner on one agent (no tools of its own) whose scripted model calls `tool` once with `args`,
 * then answers "Done."; memory store, an allow-all scripted guardrail, a silent logger. The tool
 * itself comes with the request (`systemTools`).
 */
export function oneCallRunner(options: {
  agent: string;
  tool: string;
  args?: Record<string, unknown>;
  tracing?: RunnerOptions['tracing'];
}) {
  const guard = scriptedGuardrail(() => undefined);
  const store = createMemoryThreadStore();
  let turn = 0;
  const models = createScriptedModel({
    script: () => (++turn === 1 ? { toolCalls: [{ name: options.tool, arguments: options.args ?? {} }] } : { message: 'Done.' }),
  });
  const runner = new Runner({
    registry: registry([manifest(options.agent)]),
    tools: {},
    guardrails: guard.validator,
    store,
    modelProvider: models.provider,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  return { runner, guard, store };
}
