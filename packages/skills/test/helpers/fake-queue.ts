// Test stand-ins for the queue side of dispatch: a "queue" that serialises every task through JSON
// (as job data would be) and runs it with `runDelegated` on worker delegation instances, and a
// scripted SubagentRunner whose agents may call `delegate_task` themselves.
import type { ResponsePackage } from '@baton/manifest';
import type {
  DelegatedTask,
  DelegatedTaskResult,
  Delegation,
  SubagentRunner,
  SubagentRunRequest,
  TaskDispatcher,
} from '../../src/index.js';

export interface FakeQueue {
  dispatch: TaskDispatcher;
  /** Every task as it crossed the wire (JSON round trip), in dispatch order. */
  jobs: DelegatedTask[];
  /** Which worker ran each job (index into the workers array). */
  ranOn: number[];
}

/** Round-robins jobs over `workers()` (bound late: workers need the dispatcher, the queue needs workers). */
export function fakeQueue(workers: () => Delegation[]): FakeQueue {
  const jobs: DelegatedTask[] = [];
  const ranOn: number[] = [];
  let next = 0;
  const dispatch: TaskDispatcher = async (task, { signal }) => {
    const wire = JSON.parse(JSON.stringify(task)) as DelegatedTask;
    jobs.push(wire);
    const pool = workers();
    const i = next++ % pool.length;
    ranOn.push(i);
    const result = await (pool[i] as Delegation).runDelegated(wire, signal ? { signal } : {});
    return JSON.parse(JSON.stringify(result)) as DelegatedTaskResult;
  };
  return { dispatch, jobs, ranOn };
}

/** What a scripted agent can do: call delegate_task like a model would (through the tool). */
export interface AgentTools {
  delegate(args: Record<string, unknown>, extra?: { idempotencyKey?: string }): Promise<ResponsePackage>;
  /** The task_id the subagent was given (from the rendered SkillPackage). */
  taskId: string;
  /** The payload it was given. */
  payload: Record<string, unknown>;
}
export type AgentScript = (request: SubagentRunRequest, tools: AgentTools) => Promise<ResponsePackage>;

export interface ScriptedRunner extends SubagentRunner {
  /** Agent ids in the order their runs started. */
  runs: string[];
  /** Every run request, in order. */
  requests: SubagentRunRequest[];
}

/**
 * OFFLINE SCRIPTED SUBAGENT RUNNER (test stand-in for the Baton Runner): each agent is a script
 * that may call `delegate_task` (through `delegation().delegateTaskTool`, with the context a runner
 * gives a tool call: the agent's id, depth and — when the run has an idempotency key — a per-call
 * key derived from it, as the Baton Runner does) and ends with a `yield_control`.
 */
export function scriptedRunner(scripts: Record<string, AgentScript>, delegation: () => Delegation): ScriptedRunner {
  const runs: string[] = [];
  const requests: SubagentRunRequest[] = [];
  return {
    runs,
    requests,
    async run(request) {
      runs.push(request.agentId);
      requests.push(request);
      let calls = 0;
      const script = scripts[request.agentId];
      if (!script) throw new Error(`scripted runner: no script for ${request.agentId}`);
      const taskId = /working on task (\S+)\./.exec(request.input)?.[1] ?? '';
      const payloadText =
        /Input data \(JSON\):\n([\s\S]*?)\n\n(?:Success criteria|You are done|Your previous|Finish by)/.exec(request.input)?.[1] ?? '{}';
      const tools: AgentTools = {
        taskId,
        payload: JSON.parse(payloadText) as Record<string, unknown>,
        async delegate(args, extra = {}) {
          const key = request.idempotencyKey ? { idempotencyKey: `${request.idempotencyKey}/call-${calls++}` } : {};
          const out = await delegation().delegateTaskTool.execute(args, {
            agentId: request.agentId,
            depth: request.depth ?? 0,
            ...(request.signal ? { signal: request.signal } : {}),
            ...key,
            ...extra,
          });
          return JSON.parse(out) as ResponsePackage;
        },
      };
      const yielded = await script(request, tools);
      return {
        status: 'completed',
        response: null,
        terminal: { name: 'yield_control', arguments: yielded as unknown as Record<string, unknown> },
      };
    },
  };
}
