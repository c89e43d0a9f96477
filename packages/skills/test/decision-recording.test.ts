import { createAgentRegistry, createMemoryThreadStore, parseDeploymentConfig, Runner } from '@baton/runner';
import type { AgentManifestLike, GuardrailDecisionEvent, RunnerEvent, ToolEndEvent } from '@baton/runner';
import { createScriptedProvider, type ModelScript } from '@baton/runner/testing';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { describe, expect, it } from 'vitest';
import { createDelegation } from '../src/index.js';
import type { SubagentRunner } from '../src/index.js';
import { tempDir } from './helpers/tmp.js';

const PARENT = 'io.baton.test.parent';
const WORKER = 'io.baton.test.worker';

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

const delegateOnce = (_req: unknown, i: number) =>
  i === 0
    ? {
        toolCalls: [
          {
            name: 'delegate_task',
            arguments: { subagent_type: WORKER, instruction_set: 'Summarise the ticket.', input_data: { ticket: 'printer on fire' } },
          },
        ],
      }
    : { message: 'done' };

/** A Runner whose parent delegates to an in-process worker; delegation gets its own (unused in a run) validator. */
async function setup(scripts: Record<string, ModelScript>) {
  const parsed = parseDeploymentConfig('baton.yml', process.cwd(), `agents:\n  ${PARENT}:\n    system_tools: [delegate_task]\n`);
  if (!parsed.ok) throw new Error('bad baton.yml');
  const registry = createAgentRegistry({
    agents: [PARENT, WORKER].map((id) => ({ manifest: manifest(id), source: `${id}.agent.yml` })),
    deployment: parsed.value,
  });
  // The runner's guardrail blocks the worker's yield; delegation's own validator would allow
  // everything, so a BLOCK at the boundary shows the check went through the runner.
  const runnerGuardrail = scriptedGuardrail((r) =>
    r.action_type === 'AGENT_RESPONSE' && r.source_agent_id === WORKER
      ? { decision: 'BLOCK', reason_code: 'WORKER_YIELD_BLOCKED', reason_message: 'blocked in test' }
      : undefined,
  );
  const delegationGuardrail = scriptedGuardrail();
  const store = createMemoryThreadStore();
  const holder: { runner?: Runner } = {};
  const lazy: SubagentRunner = { run: (req) => (holder.runner as Runner).run(req) };
  const delegation = createDelegation({
    guardrails: delegationGuardrail.validator,
    runner: lazy,
    agents: [WORKER],
    workspace: await tempDir(),
  });
  const runner = new Runner({
    registry,
    store,
    guardrails: runnerGuardrail.validator,
    modelProvider: createScriptedProvider({ scripts }).provider,
    systemTools: [delegation.delegateTaskTool],
  });
  holder.runner = runner;
  return { runner, store, delegation, runnerGuardrail, delegationGuardrail };
}

describe("delegation's boundary checks are runner decisions", () => {
  it('records the subagent input and yield checks in guardrail_decisions, events, audit and trace ids of the run', async () => {
    const { runner, store, runnerGuardrail, delegationGuardrail } = await setup({
      parent: delegateOnce,
      worker: () => ({
        toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { summary: 'fire' }, log_summary: 'ok' } }],
      }),
    });
    const events: RunnerEvent[] = [];
    const result = await runner.run({ agentId: PARENT, input: 'handle ticket 7', onEvent: (e) => void events.push(e) });
    expect(result.status).toBe('completed');

    // In the run's result, with the subagent's id and action type.
    expect(result.guardrail_decisions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action_type: 'AGENT_INPUT', agent_id: WORKER, decision: 'ALLOW' }),
        expect.objectContaining({
          action_type: 'AGENT_RESPONSE',
          agent_id: WORKER,
          decision: 'BLOCK',
          reason_code: 'WORKER_YIELD_BLOCKED',
        }),
      ]),
    );
    // As events of the parent's run, marked as a delegation boundary with the subagent and its depth.
    const boundary = events.filter((e): e is GuardrailDecisionEvent => e.type === 'guardrail_decision' && e.boundary === 'delegation');
    expect(boundary.map((e) => [e.action_type, e.decision, e.subject, e.depth, e.run_id])).toEqual([
      ['AGENT_INPUT', 'ALLOW', WORKER, 1, result.runs[0]?.run_id],
      ['AGENT_RESPONSE', 'BLOCK', WORKER, 1, result.runs[0]?.run_id],
    ]);
    // One event per recorded decision, nothing recorded twice.
    expect(events.filter((e) => e.type === 'guardrail_decision')).toHaveLength(result.guardrail_decisions.length);

    // In the audit, on the parent's run, with the boundary attributes.
    const audit = (await store.listAudit(result.thread_id)).filter(
      (r) => r.kind === 'guardrail_decision' && r.data.agent_id === WORKER && r.data['baton.boundary'] === 'delegation',
    );
    expect(audit.map((r) => [r.data.action_type, r.data.decision, r.runId, r.data['baton.subagent']])).toEqual([
      ['AGENT_INPUT', 'ALLOW', result.runs[0]?.run_id, WORKER],
      ['AGENT_RESPONSE', 'BLOCK', result.runs[0]?.run_id, WORKER],
    ]);

    // Through the runner's checker, in the run's thread and trace; the delegation's own validator is never asked.
    expect(delegationGuardrail.requests).toEqual([]);
    expect(runnerGuardrail.requests).toContainEqual(
      expect.objectContaining({ action_type: 'AGENT_RESPONSE', source_agent_id: WORKER, thread_id: result.thread_id }),
    );
    for (const a of audit) expect(a.data.trace_id).toBe(result.trace_id);

    // delegate_task's tool_end says how it ended: codes and names only.
    const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end' && e.name === 'delegate_task');
    expect(end?.detail).toEqual({
      subagent: WORKER,
      depth: 1,
      requires_approval: false,
      status: 'FAILURE',
      error_code: 'ERR_CONSTRAINT_VIOLATION',
    });
    expect(JSON.stringify(end)).not.toContain('printer on fire');
    expect(JSON.stringify(events)).not.toContain('Summarise the ticket');
  });

  it('without a run (delegate() called directly) checks through the delegation checker', async () => {
    const { delegation, delegationGuardrail } = await setup({
      worker: () => ({ toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: {}, log_summary: 'ok' } }] }),
    });
    const res = await delegation.delegate({ subagent_type: WORKER, instruction_set: 'x', input_data: {} }, { depth: 0 });
    expect(res.status).toBe('SUCCESS');
    expect(delegationGuardrail.requests.map((r) => [r.action_type, r.source_agent_id])).toEqual([
      ['AGENT_INPUT', WORKER],
      ['AGENT_RESPONSE', WORKER],
    ]);
  });
});
