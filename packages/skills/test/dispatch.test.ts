import type { ResponsePackage } from '@baton/manifest';
import { createAgentRegistry, parseDeploymentConfig, Runner } from '@baton/runner';
import type { AgentManifestLike } from '@baton/runner';
import { describe, expect, it } from 'vitest';
import { createDelegation, PayloadTooLargeError, SkillsInputError, taskIdFromKey } from '../src/index.js';
import type {
  CreateDelegationOptions,
  DelegatedTask,
  DelegatedTaskResult,
  Delegation,
  SubagentRunner,
  TaskDispatcher,
} from '../src/index.js';
import { fakeQueue, scriptedRunner } from './helpers/fake-queue.js';
import type { AgentScript, ScriptedRunner } from './helpers/fake-queue.js';
import { createScriptedProvider } from '@baton/runner/testing';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from '@baton/manifest/testing';

const ROOT = 'io.baton.test.root';
const A = 'io.baton.test.a';
const B = 'io.baton.test.b';
const C = 'io.baton.test.c';
const D = 'io.baton.test.d';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Follows `input_data.chain`: delegates to the next agent in it, or reports where it stands. */
const NESTER: AgentScript = async (req, t) => {
  const [next, ...rest] = (t.payload.chain as string[] | undefined) ?? [];
  if (!next) return { status: 'SUCCESS', output_payload: { agent: req.agentId, depth: req.depth, task_id: t.taskId } };
  const child = await t.delegate({ subagent_type: next, instruction_set: 'go deeper', input_data: { chain: rest } });
  return {
    status: child.status === 'SUCCESS' ? 'SUCCESS' : 'FAILURE',
    output_payload: { agent: req.agentId, depth: req.depth, child },
    error_report: child.error_report ?? null,
  };
};

/** A parent that only dispatches, and two worker instances (two "machines") that run the jobs. */
async function cluster(extra: Partial<CreateDelegationOptions> = {}) {
  const workspace = await tempDir();
  const workers: Delegation[] = [];
  const runners: ScriptedRunner[] = [];
  const queue = fakeQueue(() => workers);
  for (let i = 0; i < 2; i++) {
    const holder: { d?: Delegation } = {};
    const runner = scriptedRunner({ [A]: NESTER, [B]: NESTER, [C]: NESTER, [D]: NESTER }, () => holder.d as Delegation);
    holder.d = createDelegation({
      guardrails: allowAllGuardrail(),
      runner,
      agents: [A, B, C, D],
      workspace,
      dispatch: queue.dispatch,
      env: {},
      ...extra,
    });
    workers.push(holder.d);
    runners.push(runner);
  }
  const parent = createDelegation({ guardrails: allowAllGuardrail(), workspace, dispatch: queue.dispatch, env: {} });
  const ran = () => runners.flatMap((r) => r.runs);
  return { parent, workers, runners, queue, ran };
}

const leafOf = (res: ResponsePackage): Record<string, unknown> => {
  let p = res.output_payload;
  while (p.child) p = (p.child as ResponsePackage).output_payload;
  return p;
};

/** [agent, depth] of every level that ran. */
const chainOf = (res: ResponsePackage): Array<[unknown, unknown]> => {
  const out: Array<[unknown, unknown]> = [];
  for (
    let p: Record<string, unknown> | undefined = res.output_payload;
    p && p.agent;
    p = (p.child as ResponsePackage | undefined)?.output_payload
  )
    out.push([p.agent, p.depth]);
  return out;
};

describe('dispatch: delegate_task runs elsewhere', () => {
  it('sends a JSON task (args, parent scope, context) and returns what runDelegated returned on the worker', async () => {
    const { parent, queue, runners } = await cluster();
    const ctx = {
      agentId: ROOT,
      depth: 0,
      threadId: 'th_1',
      runId: 'run_1',
      traceparent: TRACEPARENT,
      tracestate: 'vendor=1',
      idempotencyKey: 'run_1/call_1',
      signal: new AbortController().signal,
    };
    const res = await parent.delegate({ subagent_type: A, instruction_set: 'Report.', input_data: { chain: [] } }, ctx);
    expect(res).toEqual({ status: 'SUCCESS', output_payload: { agent: A, depth: 1, task_id: taskIdFromKey('run_1/call_1') } });
    expect(queue.jobs).toEqual([
      {
        args: { subagent_type: A, instruction_set: 'Report.', input_data: { chain: [] }, max_iterations: 5 },
        scope: { depth: 0, maxDepth: 3, lineage: [ROOT] },
        context: {
          threadId: 'th_1',
          runId: 'run_1',
          agentId: ROOT,
          traceparent: TRACEPARENT,
          tracestate: 'vendor=1',
          idempotencyKey: 'run_1/call_1',
        },
      },
    ]);
    expect(runners[0]!.runs).toEqual([A]);
    // The subagent run gets a key derived from the task's (per attempt) for its own tool calls.
    expect(runners[0]!.requests[0]!.idempotencyKey).toBe(`delegation:${taskIdFromKey('run_1/call_1')}:attempt-1`);

    // The key is the task_id basis: the same key gives the same task_id, no key a random one.
    const again = await parent.delegate({ subagent_type: A, instruction_set: 'Report.', input_data: { chain: [] } }, ctx);
    expect(again.output_payload.task_id).toBe(taskIdFromKey('run_1/call_1'));
    expect(taskIdFromKey('run_1/call_1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const keyless = await parent.delegate({ subagent_type: A, instruction_set: 'Report.', input_data: { chain: [] } }, { agentId: ROOT });
    expect(keyless.output_payload.task_id).not.toBe(taskIdFromKey('run_1/call_1'));
    expect(queue.jobs[2]!.context).toEqual({ agentId: ROOT });
    expect(runners[0]!.requests[1]!.idempotencyKey).toBeUndefined();
  });

  it('nested delegations hop through the queue two levels deep; scope and lineage cross every hop', async () => {
    const { parent, queue, ran } = await cluster();
    const res = await parent.delegate({ subagent_type: A, instruction_set: 'start', input_data: { chain: [B, C] } }, { agentId: ROOT });
    expect(res.status).toBe('SUCCESS');
    expect(leafOf(res)).toMatchObject({ agent: C, depth: 3 });
    // Every delegate_task went through the dispatcher, with the delegating agent's scope.
    expect(queue.jobs.map((j) => [j.args.subagent_type, j.scope])).toEqual([
      [A, { depth: 0, maxDepth: 3, lineage: [ROOT] }],
      [B, { depth: 1, maxDepth: 3, lineage: [ROOT, A] }],
      [C, { depth: 2, maxDepth: 3, lineage: [ROOT, A, B] }],
    ]);
    expect(queue.jobs.map((j) => j.context.agentId)).toEqual([ROOT, A, B]);
    expect(queue.ranOn).toEqual([0, 1, 0]); // both "machines" took part
    expect(ran().sort()).toEqual([A, B, C]);
  });

  it('the depth limit holds across hops: the fourth level is refused before it is dispatched', async () => {
    const { parent, queue, ran } = await cluster();
    const res = await parent.delegate({ subagent_type: A, instruction_set: 'start', input_data: { chain: [B, C, D] } }, { agentId: ROOT });
    expect(res.status).toBe('FAILURE');
    expect(JSON.stringify(res)).toMatch(/delegation depth 4 would exceed the maximum of 3/);
    expect(chainOf(res)).toEqual([
      [A, 1],
      [B, 2],
      [C, 3],
    ]);
    expect(leafOf(res)).toEqual({}); // C's delegate_task got the refusal
    expect(queue.jobs).toHaveLength(3);
    expect(ran()).not.toContain(D);
  });

  it('a lineage loop (A → B → A) is refused across hops', async () => {
    const { parent, queue, ran } = await cluster();
    const res = await parent.delegate({ subagent_type: A, instruction_set: 'start', input_data: { chain: [B, A] } }, { agentId: ROOT });
    expect(res.status).toBe('FAILURE');
    expect(JSON.stringify(res)).toContain(`delegation loop refused: ${ROOT} → ${A} → ${B} → ${A}`);
    expect(queue.jobs).toHaveLength(2);
    expect(ran().sort()).toEqual([A, B]);
  });

  it('the parent refuses bad arguments, depth and loops itself: nothing is dispatched', async () => {
    const { parent, queue } = await cluster();
    const deep = await parent.delegate({ subagent_type: A, instruction_set: 'x', input_data: {} }, { depth: 3 });
    expect(deep).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_CONSTRAINT_VIOLATION' } });
    const loop = await parent.delegate({ subagent_type: A, instruction_set: 'x', input_data: {} }, { agentId: A });
    expect(loop.error_report?.message).toMatch(/delegation loop refused/);
    await expect(parent.delegate({ subagent_type: A, input_data: {} })).rejects.toBeInstanceOf(SkillsInputError);
    const tool = JSON.parse(await parent.delegateTaskTool.execute({ subagent_type: A, input_data: {} }, {})) as ResponsePackage;
    expect(tool.error_report?.code).toBe('ERR_INVALID_ARGUMENTS');
    await expect(
      parent.delegate({ subagent_type: A, instruction_set: 'x', input_data: { blob: Buffer.alloc(20_000, 7).toString('base64') } }),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
    expect(queue.jobs).toEqual([]);
  });

  it('the worker checks what the parent could not: an unknown subagent is a FAILURE package from the worker', async () => {
    const { parent, queue } = await cluster();
    const res = await parent.delegate({ subagent_type: 'io.baton.test.nobody', instruction_set: 'x', input_data: {} });
    expect(res).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_UNKNOWN_SUBAGENT' } });
    expect(queue.jobs).toHaveLength(1);
  });
});

describe('runDelegated', () => {
  const task = (over: Partial<DelegatedTask> = {}): DelegatedTask => ({
    args: { subagent_type: A, instruction_set: 'x', input_data: { chain: [] }, max_iterations: 5 },
    scope: { depth: 0, maxDepth: 3, lineage: [ROOT] },
    context: {},
    ...over,
  });

  it('runs the task here and never forwards it, even with a dispatcher configured', async () => {
    const { workers, runners, queue } = await cluster();
    const { response: res } = await workers[1]!.runDelegated(task());
    expect(res).toMatchObject({ status: 'SUCCESS', output_payload: { agent: A, depth: 1 } });
    expect(runners[1]!.runs).toEqual([A]);
    expect(queue.jobs).toEqual([]);
  });

  it('re-checks the limits of the scope it is given (a task past the limit or in a loop does not run)', async () => {
    const { workers, ran } = await cluster();
    const { response: deep } = await workers[0]!.runDelegated(task({ scope: { depth: 3, maxDepth: 3, lineage: [ROOT] } }));
    expect(deep.error_report?.message).toMatch(/delegation depth 4 would exceed the maximum of 3/);
    const { response: loop } = await workers[0]!.runDelegated(task({ scope: { depth: 1, maxDepth: 3, lineage: [ROOT, A] } }));
    expect(loop.error_report?.message).toMatch(/delegation loop refused/);
    // The worker's own maxDepth also applies (the stricter one wins).
    const strict = await cluster({ maxDepth: 2 });
    const { response: capped } = await strict.workers[0]!.runDelegated(task({ scope: { depth: 2, maxDepth: 5, lineage: [ROOT] } }));
    expect(capped.error_report?.message).toMatch(/delegation depth 3 would exceed the maximum of 2/);
    expect(ran()).toEqual([]);
    expect(strict.ran()).toEqual([]);
  });

  it('never rejects: a malformed task or request is a FAILURE package', async () => {
    const { workers, ran } = await cluster();
    const w = workers[0]!;
    for (const bad of [
      null,
      'task',
      {},
      { ...task(), scope: { depth: -1, maxDepth: 3, lineage: [] } },
      { ...task(), args: { subagent_type: A } },
    ]) {
      const { response: res } = await w.runDelegated(bad as unknown as DelegatedTask);
      expect(res).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_INVALID_TASK' } });
    }
    // The one DelegatedTaskSchema is strict: unknown keys anywhere are refused, not dropped.
    for (const extra of [
      { ...task(), extra: 1 },
      { ...task(), scope: { ...task().scope, extra: 1 } },
      { ...task(), context: { ...task().context, extra: 'x' } },
    ]) {
      const { response: res } = await w.runDelegated(extra as unknown as DelegatedTask);
      expect(res).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_INVALID_TASK' } });
    }
    expect(ran()).toEqual([]);
    const { response: vague } = await w.runDelegated(task({ args: { ...task().args, success_criteria: ['Do a good job'] } }));
    expect(vague.error_report?.code).toBe('ERR_VAGUE_CRITERIA');
  });
});

describe('dispatcher failures', () => {
  async function parentWith(dispatch: TaskDispatcher) {
    return createDelegation({ guardrails: allowAllGuardrail(), workspace: await tempDir(), dispatch, env: {} });
  }
  const args = { subagent_type: A, instruction_set: 'x', input_data: {} };

  it('a dispatcher that throws or rejects is FAILURE / ERR_TOOL_FAILURE, never a rejection', async () => {
    const throwers: TaskDispatcher[] = [
      async () => {
        throw new Error('redis is down');
      },
      () => Promise.reject('a bare string'),
      () => {
        throw new Error('synchronous boom');
      },
    ];
    const messages: string[] = [];
    for (const dispatch of throwers) {
      const d = await parentWith(dispatch);
      const res = await d.delegate(args);
      expect(res).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_TOOL_FAILURE' } });
      messages.push(res.error_report?.message ?? '');
      const viaTool = JSON.parse(await d.delegateTaskTool.execute(args, {})) as ResponsePackage;
      expect(viaTool.error_report?.code).toBe('ERR_TOOL_FAILURE');
    }
    expect(messages[0]).toMatch(/task dispatcher failed to run io\.baton\.test\.a elsewhere: redis is down/);
    expect(messages[1]).toMatch(/a bare string/);
    expect(messages[2]).toMatch(/synchronous boom/);
  });

  it('a dispatcher that returns something that is not a ResponsePackage is FAILURE / ERR_TOOL_FAILURE', async () => {
    for (const garbage of [
      undefined,
      null,
      'SUCCESS',
      { status: 'DONE', output_payload: {} },
      { status: 'SUCCESS' },
      { status: 'SUCCESS', output_payload: {}, extra: 1 },
    ]) {
      const d = await parentWith(async () => ({ response: garbage as unknown as ResponsePackage, guardrail_decisions: [] }));
      const res = await d.delegate(args);
      expect(res.status).toBe('FAILURE');
      expect(res.error_report?.code).toBe('ERR_TOOL_FAILURE');
      expect(res.error_report?.message).toMatch(/dispatcher returned something that is not a ResponsePackage/);
    }
  });

  it('a result whose guardrail decisions cannot be read is FAILURE / ERR_INVALID_TASK_RESULT, even with a SUCCESS response (fail closed)', async () => {
    const ok: ResponsePackage = { status: 'SUCCESS', output_payload: {} };
    const block = { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: 'X', agent_id: 'io.baton.skill.a' };
    for (const garbage of [
      ok, // a bare ResponsePackage (a worker that does not report its decisions)
      { response: ok },
      { response: ok, guardrail_decisions: 'none' },
      { response: ok, guardrail_decisions: [{ ...block, decision: 'MAYBE' }] },
      { response: ok, guardrail_decisions: [{ ...block, action_type: 'TOOL_CALL' }] },
      { response: ok, guardrail_decisions: [{ ...block, agent_id: 'not an id' }] },
      { response: ok, guardrail_decisions: [{ ...block, reason_code: 'free text, not a code' }] },
      { response: ok, guardrail_decisions: [{ ...block, extra: 1 }] },
      { response: ok, guardrail_decisions: [], extra: 1 },
    ]) {
      const d = await parentWith(async () => garbage as never);
      const res = await d.delegate(args);
      expect(res.status).toBe('FAILURE');
      expect(res.error_report?.code).toBe('ERR_INVALID_TASK_RESULT');
    }
  });

  it('a hostile worker result never becomes a SUCCESS: a BLOCK among ALLOWs, unbounded findings, non-objects, __proto__ keys', async () => {
    const ok: ResponsePackage = { status: 'SUCCESS', output_payload: {} };
    const allow = { action_type: 'AGENT_INPUT', decision: 'ALLOW', reason_code: 'OK', agent_id: 'io.baton.skill.a' };
    const block = { ...allow, action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: 'SECRET_DETECTED' };
    const finding = { detector: 'secrets', type: 'AWS_ACCESS_KEY', severity: 'high', start: 0, end: 4 };
    const cases: Array<[unknown, string]> = [
      // A BLOCK hidden among ALLOWs (within the 64 bound): the contradiction check.
      [{ response: ok, guardrail_decisions: [...Array.from({ length: 63 }, () => allow), block] }, 'ERR_INVALID_TASK_RESULT'],
      // ... and past the bound: refused whole.
      [{ response: ok, guardrail_decisions: [...Array.from({ length: 64 }, () => allow), block] }, 'ERR_INVALID_TASK_RESULT'],
      [
        { response: ok, guardrail_decisions: [{ ...allow, findings: [{ ...finding, detector: 'x'.repeat(1_000_000) }] }] },
        'ERR_INVALID_TASK_RESULT',
      ],
      [{ response: ok, guardrail_decisions: [{ ...allow, findings: [{ ...finding, start: 9, end: 1 }] }] }, 'ERR_INVALID_TASK_RESULT'],
      [{ response: ok, guardrail_decisions: [{ ...allow, reason_code: 'OK\u200b' }] }, 'ERR_INVALID_TASK_RESULT'],
      [{ response: ok, guardrail_decisions: [{ ...allow, reason_code: 'A'.repeat(10 * 1024 * 1024) }] }, 'ERR_INVALID_TASK_RESULT'],
      [
        JSON.parse('{"response":{"status":"SUCCESS","output_payload":{}},"guardrail_decisions":[],"__proto__":{"x":1}}'),
        'ERR_INVALID_TASK_RESULT',
      ],
      [[ok, []], 'ERR_INVALID_TASK_RESULT'],
      [42, 'ERR_INVALID_TASK_RESULT'],
    ];
    for (const [garbage, code] of cases) {
      const d = await parentWith(async () => garbage as never);
      const res = await d.delegate(args);
      expect(res.status).toBe('FAILURE');
      expect(res.error_report?.code).toBe(code);
    }
  });

  it('cancelling the parent or shutdown() ends a dispatch that never answers (ERR_CANCELLED); the dispatcher sees the abort', async () => {
    const seen: AbortSignal[] = [];
    const d = await parentWith((_task, { signal }) => {
      if (signal) seen.push(signal);
      return new Promise<DelegatedTaskResult>(() => undefined);
    });
    const parent = new AbortController();
    const pending = d.delegate(args, { signal: parent.signal });
    await new Promise((r) => setTimeout(r, 20));
    parent.abort();
    expect((await pending).error_report?.code).toBe('ERR_CANCELLED');
    expect(seen[0]?.aborted).toBe(true);
    const other = d.delegate(args);
    await new Promise((r) => setTimeout(r, 20));
    await d.shutdown();
    expect((await other).error_report?.code).toBe('ERR_CANCELLED');
  });
});

describe('dispatch with the real Runner on the workers (offline scripted model)', () => {
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

  it("an in-process subagent's own delegate_task goes back through the queue with its scope", async () => {
    const workspace = await tempDir();
    const parsed = parseDeploymentConfig(
      'baton.yml',
      process.cwd(),
      `agents:\n  ${A}:\n    system_tools: [delegate_task]\n  ${B}:\n    system_tools: [delegate_task]\n`,
    );
    if (!parsed.ok) throw new Error('bad baton.yml');
    const workers: Delegation[] = [];
    const queue = fakeQueue(() => workers);
    for (let i = 0; i < 2; i++) {
      const registry = createAgentRegistry({
        agents: [A, B].map((id) => ({ manifest: manifest(id), source: `${id}.agent.yml` })),
        deployment: parsed.value,
      });
      const models = createScriptedProvider({
        scripts: {
          a: (_req, n) =>
            n === 0
              ? { toolCalls: [{ name: 'delegate_task', arguments: { subagent_type: B, instruction_set: 'Say hi.', input_data: {} } }] }
              : { toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { from: 'a' } } }] },
          b: () => ({ toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS', output_payload: { from: 'b' } } }] }),
        },
      });
      const holder: { runner?: Runner } = {};
      const lazy: SubagentRunner = { run: (req) => (holder.runner as Runner).run(req) };
      const delegation = createDelegation({
        guardrails: allowAllGuardrail(),
        runner: lazy,
        agents: [A, B],
        workspace,
        dispatch: queue.dispatch,
        env: {},
      });
      holder.runner = new Runner({
        registry,
        guardrails: allowAll,
        modelProvider: models.provider,
        systemTools: [delegation.delegateTaskTool],
      });
      workers.push(delegation);
    }
    const parent = createDelegation({ guardrails: allowAllGuardrail(), workspace, dispatch: queue.dispatch, env: {} });
    const res = await parent.delegate({ subagent_type: A, instruction_set: 'Ask b.', input_data: {} }, { agentId: ROOT });
    expect(res).toEqual({ status: 'SUCCESS', output_payload: { from: 'a' } });
    expect(queue.jobs.map((j) => [j.args.subagent_type, j.scope])).toEqual([
      [A, { depth: 0, maxDepth: 3, lineage: [ROOT] }],
      [B, { depth: 1, maxDepth: 3, lineage: [ROOT, A] }],
    ]);
    expect(queue.jobs[1]!.context.agentId).toBe(A);
    expect(queue.ranOn).toEqual([0, 1]);
  });
});
