// A worker stack as `baton worker` wires it, in this process: the Redis thread store, a Runner on
// the scale-out example agents, delegation that dispatches subtasks to the queues, the edit ledger.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { Runner, createOfflineModelProvider, loadAgentRegistry, type RunnerOptions, type ScenarioInput } from '@baton/runner';
import { createDelegation } from '@baton/skills';
import {
  createQueueDispatcher,
  createRedisEditLedger,
  createRedisThreadStore,
  startWorker,
  type BatonWorkerOptions,
  type WorkerJobEvent,
} from '../../src/index.js';

export const EXAMPLE = fileURLToPath(new URL('../../../../examples/scale-out/', import.meta.url));

/** The scale-out example's scenario without the simulated latency (unless asked for). */
export function scenario(latencyMs = 0): ScenarioInput {
  return {
    version: 1,
    name: 'queue-test',
    latency_ms: latencyMs,
    agents: {
      'io.baton.scaleout.coordinator': {
        rules: [
          {
            name: 'delegate',
            when: { turn: 1, input_matches: '(T-[0-9]+)' },
            call: {
              name: 'delegate_task',
              arguments: {
                subagent_type: 'appender',
                instruction_set: 'Record the ticket.',
                input_data: { ticket: '{{input_match.1}}' },
                max_iterations: 1,
              },
            },
          },
          {
            name: 'hand off',
            when: { tool: 'delegate_task', input_matches: '(T-[0-9]+)' },
            handoff: {
              target: 'closer',
              input: 'Ticket {{input_match.1}}: {{last_tool_output.json.status}}',
              state: { ticket: '{{input_match.1}}', recorded: '{{last_tool_output.json.status}}' },
            },
          },
          { name: 'plain', when: { turn: 1 }, message: 'no ticket' },
        ],
      },
      'io.baton.scaleout.closer': { rules: [{ name: 'confirm', when: { turn: 1 }, message: 'Closed. {{input}}' }] },
    },
  };
}

export interface Stack {
  workspace: string;
  events: WorkerJobEvent[];
  store: ReturnType<typeof createRedisThreadStore>;
  close(): Promise<void>;
}

/** A workspace with `ledger/T-<n>.txt` files holding only the END marker. */
export function makeWorkspace(tickets: number): string {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-queue-ws-'));
  mkdirSync(join(workspace, 'ledger'));
  for (let i = 1; i <= tickets; i++) writeFileSync(join(workspace, 'ledger', `T-${i}.txt`), 'END\n');
  return workspace;
}

export async function startStack(options: {
  url: string;
  prefix: string;
  workspace: string;
  latencyMs?: number;
  worker?: Partial<BatonWorkerOptions>;
  /** Extra Runner options (e.g. `approvals`). */
  runner?: Partial<RunnerOptions>;
}): Promise<Stack> {
  const { url, prefix, workspace } = options;
  const store = createRedisThreadStore({ connection: url, prefix });
  const dispatcher = createQueueDispatcher({ connection: url, prefix });
  const ledger = createRedisEditLedger({ connection: url, prefix });
  const guardrails = createInProcessGuardrail(createGuardrailEngine());
  const late: { runner?: Runner } = {};
  const delegation = createDelegation({
    skillsDir: join(EXAMPLE, 'skills'),
    workspace,
    applyEdits: true,
    editLedger: ledger,
    dispatch: (task, o) => dispatcher.dispatch(task, o),
    runner: { run: (request) => (late.runner as Runner).run(request as Parameters<Runner['run']>[0]) },
    guardrails,
  });
  const runner = new Runner({
    registry: await loadAgentRegistry({ dir: join(EXAMPLE, 'agents') }),
    guardrails,
    store,
    modelProvider: await createOfflineModelProvider({ scenario: scenario(options.latencyMs ?? 0) }),
    systemTools: [delegation.delegateTaskTool as never],
    limits: { lockLeaseMs: 3_000 },
    ...options.runner,
  });
  late.runner = runner;
  const events: WorkerJobEvent[] = [];
  const worker = startWorker({
    connection: url,
    prefix,
    runner,
    tasks: delegation,
    lockDurationMs: 3_000,
    stalledIntervalMs: 1_000,
    onJobEvent: (e) => events.push(e),
    ...options.worker,
  });
  await worker.ready();
  return {
    workspace,
    events,
    store,
    async close() {
      await worker.close();
      await delegation.shutdown();
      await Promise.allSettled([dispatcher.close(), ledger.close()]);
      await store.close();
    },
  };
}

export function removeWorkspace(workspace: string): void {
  rmSync(workspace, { recursive: true, force: true });
}
