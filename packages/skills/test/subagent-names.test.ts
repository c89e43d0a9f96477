import { createAgentRegistry, parseDeploymentConfig, Runner } from '@baton/runner';
import type { AgentManifestLike } from '@baton/runner';
import { describe, expect, it } from 'vitest';
import { createDelegation, createSkillRegistry, SkillsConfigError } from '../src/index.js';
import type { SkillRegistry, SubagentRunner } from '../src/index.js';
import { createScriptedProvider } from '@baton/runner/testing';
import { nodeSkill, skillsDir } from './helpers/skills.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from '@baton/manifest/testing';

const PARENT = 'io.baton.test.parent';
const WORKER = 'io.baton.test.worker';
const allowAll = allowAllGuardrail();
const ECHO = nodeSkill(`return { status: 'SUCCESS', output_payload: { from: 'skill' } };`);

function manifest(id: string): AgentManifestLike {
  const name = id.split('.').pop() as string;
  return {
    schema_version: '1.0',
    id,
    version: '1.0.0',
    name,
    instructions: `You are ${name}.`,
    model: { provider: 'openai', name },
    tools: [],
  };
}

function enumOf(parameters: Record<string, unknown>): unknown {
  return (parameters as { properties: { subagent_type: { enum?: unknown } } }).properties.subagent_type.enum;
}

describe('subagent_type lists skills and agents', () => {
  it('with both skills and agents, the enum lists both and the model reaches both through the real Runner', async () => {
    const dir = await skillsDir([
      { name: 'echo', source: ECHO },
      { name: 'lint', source: ECHO },
    ]);
    const parsed = parseDeploymentConfig('baton.yml', process.cwd(), `agents:\n  ${PARENT}:\n    system_tools: [delegate_task]\n`);
    if (!parsed.ok) throw new Error('bad baton.yml');
    const registry = createAgentRegistry({
      agents: [PARENT, WORKER].map((id) => ({ manifest: manifest(id), source: `${id}.agent.yml` })),
      deployment: parsed.value,
    });
    const outputs: string[] = [];
    const models = createScriptedProvider({
      scripts: {
        parent: (_req, i) =>
          i === 0
            ? {
                toolCalls: [
                  { name: 'delegate_task', arguments: { subagent_type: 'echo', instruction_set: 'to the skill', input_data: {} } },
                  { name: 'delegate_task', arguments: { subagent_type: WORKER, instruction_set: 'to the agent', input_data: {} } },
                ],
              }
            : { message: 'done' },
        worker: () => ({ toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { from: 'agent' } } }] }),
      },
    });
    const holder: { runner?: Runner } = {};
    const lazy: SubagentRunner = { run: (req) => (holder.runner as Runner).run(req) };
    const delegation = createDelegation({
      guardrails: allowAllGuardrail(),
      skillsDir: dir,
      runner: lazy,
      agents: [WORKER],
      workspace: await tempDir(),
    });
    expect(enumOf(delegation.delegateTaskTool.parameters)).toEqual(['echo', 'lint', WORKER]);
    const tool = {
      ...delegation.delegateTaskTool,
      execute: async (a: Record<string, unknown>, c: Parameters<typeof delegation.delegateTaskTool.execute>[1]) => {
        const out = await delegation.delegateTaskTool.execute(a, c);
        outputs.push(out);
        return out;
      },
    };
    holder.runner = new Runner({ registry, guardrails: allowAll, modelProvider: models.provider, systemTools: [tool] });
    const result = await holder.runner.run({ agentId: PARENT, input: 'go' });
    expect(result.status).toBe('completed');
    expect(
      outputs
        .map((o) => JSON.parse(o) as { status: string; output_payload: unknown })
        .map((o) => [o.status, o.output_payload])
        .sort(),
    ).toEqual([
      ['SUCCESS', { from: 'agent' }],
      ['SUCCESS', { from: 'skill' }],
    ]);
  });

  it('without agents there is no enum (any skill or agent name), as before', async () => {
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const d = createDelegation({ guardrails: allowAllGuardrail(), skillsDir: dir, workspace: await tempDir() });
    expect(enumOf(d.delegateTaskTool.parameters)).toBeUndefined();
  });

  it('a name that is both a skill and an agent is refused at creation, saying which', async () => {
    const dir = await skillsDir([
      { name: 'echo', source: ECHO },
      { name: 'worker', source: ECHO },
    ]);
    const err = (() => {
      try {
        createDelegation({ guardrails: allowAllGuardrail(), skillsDir: dir, agents: ['worker', WORKER], workspace: dir });
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SkillsConfigError);
    expect(err).toMatchObject({ code: 'SUBAGENT_NAME_COLLISION' });
    expect((err as Error).message).toMatch(/"worker" is both a skill and an agent/);
    expect(() => createDelegation({ guardrails: allowAllGuardrail(), skillsDir: dir, agents: [WORKER, WORKER], workspace: dir })).toThrow(
      /listed twice/,
    );
  });

  it('a registry that cannot list names synchronously: no enum, and a collision is refused when it is used', async () => {
    const dir = await skillsDir([{ name: 'worker', source: ECHO }]);
    const inner = createSkillRegistry(dir);
    const asyncOnly: SkillRegistry = { get: (n) => inner.get(n), list: () => inner.list() };
    const d = createDelegation({
      guardrails: allowAllGuardrail(),
      skills: asyncOnly,
      agents: ['worker'],
      runner: { run: async () => ({ status: 'completed', response: 'x' }) },
      workspace: dir,
    });
    expect(enumOf(d.delegateTaskTool.parameters)).toBeUndefined();
    await expect(d.delegate({ subagent_type: 'worker', instruction_set: 'x', input_data: {} })).rejects.toMatchObject({
      code: 'SUBAGENT_NAME_COLLISION',
    });
    const viaTool = JSON.parse(await d.delegateTaskTool.execute({ subagent_type: 'worker', instruction_set: 'x', input_data: {} }, {})) as {
      error_report: { code: string };
    };
    expect(viaTool.error_report.code).toBe('ERR_CONFIGURATION');
  });
});
