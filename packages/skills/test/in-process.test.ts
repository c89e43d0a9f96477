import { createAgentRegistry, parseDeploymentConfig, Runner } from '@baton/runner';
import type { AgentManifestLike } from '@baton/runner';
import { describe, expect, it } from 'vitest';
import { createDelegation } from '../src/index.js';
import type { SubagentRunner } from '../src/index.js';
import { requestText, createScriptedProvider, type ModelScript } from '@baton/runner/testing';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from '@baton/manifest/testing';

const PARENT = 'io.baton.test.parent';
const WORKER = 'io.baton.test.worker';
const allowAll = allowAllGuardrail();

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

async function setup(scripts: Record<string, ModelScript>, opts: { timeoutMs?: number } = {}) {
  const parsed = parseDeploymentConfig('baton.yml', process.cwd(), `agents:\n  ${PARENT}:\n    system_tools: [delegate_task]\n`);
  if (!parsed.ok) throw new Error('bad baton.yml');
  const registry = createAgentRegistry({
    agents: [PARENT, WORKER].map((id) => ({ manifest: manifest(id), source: `${id}.agent.yml` })),
    deployment: parsed.value,
  });
  const models = createScriptedProvider({ scripts: scripts });
  // The runner needs delegate_task and delegation needs the runner: bind late.
  const holder: { runner?: Runner } = {};
  const lazy: SubagentRunner = { run: (req) => (holder.runner as Runner).run(req) };
  const delegation = createDelegation({
    guardrails: allowAllGuardrail(),
    runner: lazy,
    agents: [WORKER],
    workspace: await tempDir(),
    ...opts,
  });
  const runner = new Runner({ registry, guardrails: allowAll, modelProvider: models.provider, systemTools: [delegation.delegateTaskTool] });
  holder.runner = runner;
  return { runner, delegation, models };
}

describe('in-process agent subagents (real Runner, offline scripted model)', () => {
  it("the subagent sees only the rendered SkillPackage; its yield_control becomes the parent's tool output", async () => {
    const { runner, models } = await setup({
      parent: (_req, i) =>
        i === 0
          ? {
              toolCalls: [
                {
                  name: 'delegate_task',
                  arguments: {
                    subagent_type: WORKER,
                    instruction_set: 'Summarise the ticket.',
                    input_data: { ticket: 'printer on fire' },
                    success_criteria: ['Output has field summary'],
                  },
                },
              ],
            }
          : { message: 'done' },
      worker: () => ({
        toolCalls: [
          { name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { summary: 'fire' }, log_summary: 'summarised' } },
        ],
      }),
    });
    const result = await runner.run({ agentId: PARENT, input: 'SECRET-PARENT-HISTORY: please handle ticket 7' });
    expect(result.status).toBe('completed');
    const workerInput = requestText(models.requests['worker']![0]!);
    expect(workerInput).toContain('Summarise the ticket.');
    expect(workerInput).toContain('printer on fire');
    expect(workerInput).not.toContain('SECRET-PARENT-HISTORY');
    const parentSecond = requestText(models.requests['parent']![1]!);
    expect(parentSecond).toContain('\\"status\\":\\"SUCCESS\\"');
    expect(parentSecond).toContain('\\"summary\\":\\"fire\\"');
  });

  it('a subagent that ends without yield_control is FAILURE / ERR_TOOL_FAILURE (after one self-correction)', async () => {
    const { delegation, models } = await setup({ worker: () => ({ message: 'I am done, I think.' }) });
    const res = await delegation.delegate({ subagent_type: WORKER, instruction_set: 'x', input_data: {} }, { depth: 0 });
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.code).toBe('ERR_TOOL_FAILURE');
    expect(res.error_report?.message).toMatch(/without calling yield_control/);
    expect(models.requests['worker']).toHaveLength(2);
    expect(requestText(models.requests['worker']![1]!)).toMatch(/previous attempt failed \(ERR_TOOL_FAILURE\)/);
  });

  it('termination_trigger: a final answer that meets it ends the run successfully', async () => {
    const { delegation } = await setup({ worker: () => ({ message: 'Report ready. TASK_COMPLETE' }) });
    const res = await delegation.delegate({
      subagent_type: WORKER,
      instruction_set: 'x',
      input_data: {},
      termination_trigger: 'TASK_COMPLETE',
    });
    expect(res).toMatchObject({ status: 'SUCCESS', output_payload: { response: 'Report ready. TASK_COMPLETE' } });
  });

  it('max_iterations bounds the subagent run (maxTurns), across both attempts', async () => {
    const { delegation, models } = await setup({
      worker: () => ({ toolCalls: [{ name: 'yield_control', arguments: { status: 'MAYBE', output_payload: {} } }] }),
    });
    const res = await delegation.delegate({ subagent_type: WORKER, instruction_set: 'x', input_data: {}, max_iterations: 2 });
    expect(res.status).toBe('FAILURE');
    // Seed 002: a spent turn budget is ERR_RESOURCE_EXHAUSTED, not a tool failure.
    expect(res.error_report?.code).toBe('ERR_RESOURCE_EXHAUSTED');
    expect(res.error_report?.message).toMatch(/spent its budget of 1 turn without calling yield_control/);
    // Attempt 1 may use 2 turns, the self-correction the 1 left.
    expect(models.requests['worker']).toHaveLength(3);
  });
});
