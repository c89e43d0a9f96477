// One table, two paths: a delegated subtask's boundary decisions (its input, its yield) show up in
// the delegating run's RunResult.guardrail_decisions, events and audit the same way whether the
// subtask ran in-process (checked through ToolContext.checkBoundary) or was dispatched and run
// elsewhere (checked by the worker's own checker, returned with the result, recorded through
// ToolContext.recordBoundaryDecisions). The queue package runs the same table over Redis.
import type { GuardrailRequest } from '@baton/manifest';
import { scriptedGuardrail, type ScriptedDecision } from '@baton/manifest/testing';
import { createAgentRegistry, createMemoryThreadStore, parseDeploymentConfig, Runner } from '@baton/runner';
import type { AgentManifestLike, GuardrailDecisionEvent, RunnerEvent, ToolEndEvent } from '@baton/runner';
import { createScriptedProvider, type ModelScript } from '@baton/runner/testing';
import { describe, expect, it } from 'vitest';
import { createDelegation } from '../src/index.js';
import type { Delegation, SubagentRunner, TaskDispatcher } from '../src/index.js';
import { fakeQueue } from './helpers/fake-queue.js';
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

const scripts: Record<string, ModelScript> = {
  parent: (_req, i) =>
    i === 0
      ? {
          toolCalls: [
            {
              name: 'delegate_task',
              arguments: { subagent_type: WORKER, instruction_set: 'Summarise the ticket.', input_data: { ticket: 'printer on fire' } },
            },
          ],
        }
      : { message: 'done' },
  worker: () => ({
    toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { summary: 'fire' }, log_summary: 'ok' } }],
  }),
};

/** Decides only the delegation boundary's checks (their payloads are the JSON delegation sends). */
type Rule = (r: GuardrailRequest & { payload: string }) => ScriptedDecision | undefined;
const atBoundary =
  (rule: Rule) =>
  (r: GuardrailRequest): ScriptedDecision | undefined =>
    r.source_agent_id === WORKER && typeof r.payload === 'string' && /^\{"(instruction_set|status)"/.test(r.payload)
      ? rule(r as GuardrailRequest & { payload: string })
      : undefined;

const registry = () => {
  const parsed = parseDeploymentConfig('baton.yml', process.cwd(), `agents:\n  ${PARENT}:\n    system_tools: [delegate_task]\n`);
  if (!parsed.ok) throw new Error('bad baton.yml');
  return createAgentRegistry({
    agents: [PARENT, WORKER].map((id) => ({ manifest: manifest(id), source: `${id}.agent.yml` })),
    deployment: parsed.value,
  });
};

/** A Runner (with its delegation) whose guardrail is `decide`; `dispatch` sends subtasks elsewhere. */
async function node(decide: Parameters<typeof scriptedGuardrail>[0], dispatch?: TaskDispatcher) {
  const guardrail = scriptedGuardrail(decide);
  const store = createMemoryThreadStore();
  const holder: { runner?: Runner } = {};
  const lazy: SubagentRunner = { run: (req) => (holder.runner as Runner).run(req) };
  const delegation = createDelegation({
    guardrails: guardrail.validator,
    runner: lazy,
    agents: [WORKER],
    workspace: await tempDir(),
    ...(dispatch ? { dispatch } : {}),
  });
  const runner = new Runner({
    registry: registry(),
    store,
    guardrails: guardrail.validator,
    modelProvider: createScriptedProvider({ scripts }).provider,
    systemTools: [delegation.delegateTaskTool],
  });
  holder.runner = runner;
  return { runner, store, delegation, guardrail };
}

/**
 * In-process: the delegating run's own guardrail decides. Dispatched: a worker (its own runner,
 * delegation and guardrail) decides, and the delegating side's guardrail allows everything.
 */
const paths = {
  'in-process': async (decide: Parameters<typeof scriptedGuardrail>[0]) => {
    const parent = await node(decide);
    return { ...parent, decider: parent.guardrail };
  },
  dispatched: async (decide: Parameters<typeof scriptedGuardrail>[0]) => {
    const workers: Delegation[] = [];
    const queue = fakeQueue(() => workers);
    const worker = await node(decide);
    workers.push(worker.delegation);
    const parent = await node(() => undefined, queue.dispatch);
    return { ...parent, decider: worker.guardrail };
  },
};

const cases: Array<{
  name: string;
  rule: Rule;
  expected: Array<[string, string, string]>;
  status: string;
  error_code?: string;
}> = [
  {
    name: 'input BLOCKed',
    rule: (r) => (r.action_type === 'AGENT_INPUT' ? { decision: 'BLOCK', reason_code: 'INPUT_BLOCKED', reason_message: 'no' } : undefined),
    expected: [['AGENT_INPUT', 'BLOCK', 'INPUT_BLOCKED']],
    status: 'FAILURE',
    error_code: 'ERR_CONSTRAINT_VIOLATION',
  },
  {
    name: 'input MODIFYed',
    rule: (r) =>
      r.action_type === 'AGENT_INPUT'
        ? {
            decision: 'MODIFY',
            reason_code: 'INPUT_REDACTED',
            reason_message: 'r',
            modified_payload: r.payload.replace('printer on fire', '[x]'),
          }
        : undefined,
    expected: [
      ['AGENT_INPUT', 'MODIFY', 'INPUT_REDACTED'],
      ['AGENT_RESPONSE', 'ALLOW', 'OK'],
    ],
    status: 'SUCCESS',
  },
  {
    name: 'output BLOCKed',
    rule: (r) =>
      r.action_type === 'AGENT_RESPONSE' ? { decision: 'BLOCK', reason_code: 'YIELD_BLOCKED', reason_message: 'no' } : undefined,
    expected: [
      ['AGENT_INPUT', 'ALLOW', 'OK'],
      ['AGENT_RESPONSE', 'BLOCK', 'YIELD_BLOCKED'],
    ],
    status: 'FAILURE',
    error_code: 'ERR_CONSTRAINT_VIOLATION',
  },
  {
    name: 'output MODIFYed',
    rule: (r) =>
      r.action_type === 'AGENT_RESPONSE'
        ? { decision: 'MODIFY', reason_code: 'YIELD_REDACTED', reason_message: 'r', modified_payload: r.payload.replace('"fire"', '"[x]"') }
        : undefined,
    expected: [
      ['AGENT_INPUT', 'ALLOW', 'OK'],
      ['AGENT_RESPONSE', 'MODIFY', 'YIELD_REDACTED'],
    ],
    status: 'SUCCESS',
  },
];

describe.each(Object.keys(paths) as Array<keyof typeof paths>)("a subtask's boundary decisions are the delegating run's (%s)", (path) => {
  it.each(cases)(
    '$name: in guardrail_decisions, events and audit of the delegating run',
    async ({ rule, expected, status, error_code }) => {
      const { runner, store, guardrail, decider } = await paths[path](atBoundary(rule));
      const events: RunnerEvent[] = [];
      const result = await runner.run({ agentId: PARENT, input: 'handle ticket 7', onEvent: (e) => void events.push(e) });
      expect(result.status).toBe('completed');
      const runId = result.runs[0]?.run_id;

      const boundary = result.guardrail_decisions.filter((d) => d.agent_id === WORKER);
      expect(boundary.map((d) => [d.action_type, d.decision, d.reason_code])).toEqual(expected);

      const evs = events.filter((e): e is GuardrailDecisionEvent => e.type === 'guardrail_decision' && e.boundary === 'delegation');
      expect(evs.map((e) => [e.action_type, e.decision, e.reason_code, e.subject, e.depth, e.run_id])).toEqual(
        expected.map(([a, d, c]) => [a, d, c, WORKER, 1, runId]),
      );
      expect(events.filter((e) => e.type === 'guardrail_decision')).toHaveLength(result.guardrail_decisions.length);

      const audit = (await store.listAudit(result.thread_id)).filter(
        (r) => r.kind === 'guardrail_decision' && r.data.agent_id === WORKER && r.data['baton.boundary'] === 'delegation',
      );
      expect(audit.map((r) => [r.data.action_type, r.data.decision, r.data.reason_code, r.runId, r.data['baton.subagent']])).toEqual(
        expected.map(([a, d, c]) => [a, d, c, runId, WORKER]),
      );
      for (const a of audit) expect(a.data.trace_id).toBe(result.trace_id);

      // Who decided: the run's own guardrail in-process, the worker's when dispatched (never both).
      const isBoundaryCheck = (r: GuardrailRequest) =>
        r.source_agent_id === WORKER && /^\{"(instruction_set|status)"/.test(String(r.payload));
      expect(decider.requests.filter(isBoundaryCheck)).toHaveLength(expected.length);
      if (decider !== guardrail) expect(guardrail.requests.filter(isBoundaryCheck)).toEqual([]);

      const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end' && e.name === 'delegate_task');
      expect(end?.detail).toMatchObject({ subagent: WORKER, depth: 1, status, ...(error_code ? { error_code } : {}) });
    },
  );
});

describe('a dispatched result whose decisions cannot be recorded (fail closed)', () => {
  it('a SUCCESS with malformed decisions is recorded as a BLOCK and answered FAILURE / ERR_INVALID_TASK_RESULT', async () => {
    const forged = {
      action_type: 'AGENT_RESPONSE',
      decision: 'BLOCK',
      reason_code: 'YIELD_BLOCKED',
      agent_id: 'io.baton.test.worker',
      extra: 'x',
    };
    const dispatch: TaskDispatcher = async () =>
      ({ response: { status: 'SUCCESS', output_payload: { summary: 'fire' } }, guardrail_decisions: [forged] }) as never;
    const { runner, store } = await node(() => undefined, dispatch);
    const events: RunnerEvent[] = [];
    const result = await runner.run({ agentId: PARENT, input: 'handle ticket 7', onEvent: (e) => void events.push(e) });
    expect(result.guardrail_decisions.filter((d) => d.agent_id === WORKER)).toEqual([
      { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: 'DISPATCHED_DECISIONS_INVALID', agent_id: WORKER },
    ]);
    const audit = (await store.listAudit(result.thread_id)).filter((r) => r.kind === 'guardrail_decision' && r.data.agent_id === WORKER);
    expect(audit.map((r) => [r.data.decision, r.data.reason_code, r.data['baton.subagent']])).toEqual([
      ['BLOCK', 'DISPATCHED_DECISIONS_INVALID', WORKER],
    ]);
    const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end' && e.name === 'delegate_task');
    expect(end?.detail).toMatchObject({ status: 'FAILURE', error_code: 'ERR_INVALID_TASK_RESULT' });
  });

  it('a SUCCESS that contradicts a recorded BLOCK is FAILURE / ERR_INVALID_TASK_RESULT; the BLOCK is recorded', async () => {
    const dispatch: TaskDispatcher = async () => ({
      response: { status: 'SUCCESS', output_payload: { summary: 'fire' } },
      guardrail_decisions: [
        { action_type: 'AGENT_INPUT', decision: 'ALLOW', reason_code: 'OK', agent_id: WORKER },
        { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: 'YIELD_BLOCKED', agent_id: WORKER },
      ],
    });
    const { runner } = await node(() => undefined, dispatch);
    const events: RunnerEvent[] = [];
    const result = await runner.run({ agentId: PARENT, input: 'handle ticket 7', onEvent: (e) => void events.push(e) });
    expect(result.guardrail_decisions.filter((d) => d.agent_id === WORKER).map((d) => d.decision)).toEqual(['ALLOW', 'BLOCK']);
    const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end' && e.name === 'delegate_task');
    expect(end?.detail).toMatchObject({ status: 'FAILURE', error_code: 'ERR_INVALID_TASK_RESULT' });
  });

  it('a recorder that refuses (the call ended) turns the result into FAILURE, never a SUCCESS', async () => {
    const dispatch: TaskDispatcher = async () => ({
      response: { status: 'SUCCESS', output_payload: {} },
      guardrail_decisions: [{ action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: 'YIELD_BLOCKED', agent_id: WORKER }],
    });
    const { delegation } = await node(() => undefined, dispatch);
    const args = { subagent_type: WORKER, instruction_set: 'x', input_data: {} };
    const refused = await delegation.delegate(args, { depth: 0, recordBoundaryDecisions: async () => false });
    expect(refused).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_INVALID_TASK_RESULT' } });
    const threw = await delegation.delegate(args, {
      depth: 0,
      recordBoundaryDecisions: async () => {
        throw new Error('store down');
      },
    });
    expect(threw).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_INVALID_TASK_RESULT' } });
  });
});
