// A delegated subtask's boundary decisions (its input, its yield) are the delegating run's, on
// both paths: in-process (the runner's checkBoundary decides and records) and through the queue
// (a worker's delegation decides with its own checker; the decisions come back as the job's
// result and the delegating run records them through ToolContext.recordBoundaryDecisions). One
// table, both paths, on a real Redis (test/global-setup.ts starts one).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuardrailRequest } from '@baton/manifest';
import { scriptedGuardrail, type ScriptedDecision } from '@baton/manifest/testing';
import { createAgentRegistry, createMemoryThreadStore, parseDeploymentConfig, Runner } from '@baton/runner';
import type { AgentManifestLike, GuardrailDecisionEvent, RunnerEvent, ToolEndEvent } from '@baton/runner';
import { createScriptedProvider, type ModelScript } from '@baton/runner/testing';
import { createDelegation, type TaskDispatcher } from '@baton/skills';
import { afterAll, describe, expect, it } from 'vitest';
import { createQueueDispatcher, startWorker } from '../src/index.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from './helpers/redis.js';

const url = testRedisUrl();
const PARENT = 'io.baton.test.parent';
const WORKER = 'io.baton.test.worker';
const cleanups: Array<() => Promise<unknown> | void> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

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

type Rule = (r: GuardrailRequest & { payload: string }) => ScriptedDecision | undefined;
/** True for delegation's own boundary checks (their payloads are the JSON it sends), not the subagent run's. */
const isBoundaryCheck = (r: GuardrailRequest) =>
  r.source_agent_id === WORKER && typeof r.payload === 'string' && /^\{"(instruction_set|status)"/.test(r.payload);
const atBoundary = (rule: Rule) => (r: GuardrailRequest) =>
  isBoundaryCheck(r) ? rule(r as GuardrailRequest & { payload: string }) : undefined;

/** A Runner with its delegation, deciding with `decide`; `dispatch` sends subtasks to the queues. */
function node(decide: Parameters<typeof scriptedGuardrail>[0], dispatch?: TaskDispatcher) {
  const parsed = parseDeploymentConfig('baton.yml', process.cwd(), `agents:\n  ${PARENT}:\n    system_tools: [delegate_task]\n`);
  if (!parsed.ok) throw new Error('bad baton.yml');
  const guardrail = scriptedGuardrail(decide);
  const store = createMemoryThreadStore();
  const workspace = mkdtempSync(join(tmpdir(), 'baton-queue-decisions-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const late: { runner?: Runner } = {};
  const delegation = createDelegation({
    guardrails: guardrail.validator,
    runner: { run: (req) => (late.runner as Runner).run(req) },
    agents: [WORKER],
    workspace,
    ...(dispatch ? { dispatch } : {}),
  });
  cleanups.push(() => delegation.shutdown());
  const runner = new Runner({
    registry: createAgentRegistry({
      agents: [PARENT, WORKER].map((id) => ({ manifest: manifest(id), source: `${id}.agent.yml` })),
      deployment: parsed.value,
    }),
    store,
    guardrails: guardrail.validator,
    modelProvider: createScriptedProvider({ scripts }).provider,
    systemTools: [delegation.delegateTaskTool],
  });
  late.runner = runner;
  return { runner, store, delegation, guardrail };
}

/** In-process: the delegating run's guardrail decides. Queue: a worker's does; the delegating side allows all. */
const paths = {
  'in-process': async (decide: Parameters<typeof scriptedGuardrail>[0]) => {
    const parent = node(decide);
    return { ...parent, decider: parent.guardrail };
  },
  queue: async (decide: Parameters<typeof scriptedGuardrail>[0]) => {
    const prefix = uniquePrefix('delegation-decisions');
    cleanups.push(() => deleteKeys(url, prefix));
    const worker = node(decide);
    const w = startWorker({ connection: url, prefix, tasks: worker.delegation });
    cleanups.push(() => w.close());
    await w.ready();
    const dispatcher = createQueueDispatcher({ connection: url, prefix });
    cleanups.push(() => dispatcher.close());
    const parent = node(
      () => undefined,
      (task, o) => dispatcher.dispatch(task, o),
    );
    return { ...parent, decider: worker.guardrail };
  },
};

const cases: Array<{ name: string; rule: Rule; expected: Array<[string, string, string]>; status: string; error_code?: string }> = [
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

      // Who decided: the run's own guardrail in-process, the worker's through the queue (never both).
      expect(decider.requests.filter(isBoundaryCheck)).toHaveLength(expected.length);
      if (decider !== guardrail) expect(guardrail.requests.filter(isBoundaryCheck)).toEqual([]);

      const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end' && e.name === 'delegate_task');
      expect(end?.detail).toMatchObject({ subagent: WORKER, depth: 1, status, ...(error_code ? { error_code } : {}) });
    },
  );
});
