// Resuming the same approvals twice (the first resumer stalled past its lease after committing the
// decisions, e.g. a redelivered approvals job) records each decision once: one `approval` item and
// one `approval_decision` audit record per approval on the thread, one `approval_decided` event
// over both calls. Memory store on a manual clock; the lease runs out by advancing it.
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, Runner, type RunnerEvent } from '../../src/index.js';
import { createScriptedProvider, manualClock } from '../../src/testing/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';

const AGENT = 'io.baton.test.clerk';
const LEASE_MS = 60_000;

describe('Runner approvals: a second resume of the same decisions', () => {
  it('does not duplicate approval items, audit records or approval_decided events', async () => {
    const clock = manualClock();
    const store = createMemoryThreadStore({ clock: clock.now });
    const calls: string[] = [];
    let release!: () => void;
    let entered!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const inTool = new Promise<void>((resolve) => (entered = resolve));
    const models = createScriptedProvider({
      scripts: {
        clerk: (_req, i) => (i === 0 ? { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] } : { message: 'done' }),
      },
    });
    const runner = new Runner({
      registry: registry(
        [manifest(AGENT, { tools: [lookupTool()] })],
        `agents:\n  ${AGENT}:\n    approval_required_tools: [lookup_order]\n`,
      ),
      tools: {
        lookup_order: async () => {
          calls.push('lookup_order');
          // The first resumer stalls in the approved tool, after its decisions were committed.
          if (calls.length === 1) {
            entered();
            await hung;
          }
          return 'found';
        },
      },
      guardrails: scriptedGuardrail().validator,
      store,
      modelProvider: models.provider,
      clock: clock.now,
      limits: { lockLeaseMs: LEASE_MS, runTimeoutMs: 600_000 },
    });

    const paused = await runner.run({ agentId: AGENT, input: 'look up 42' });
    expect(paused.status).toBe('requires_action');
    const id = paused.required_action!.approvals[0]!.id;
    const events: RunnerEvent[] = [];
    const onEvent = (event: RunnerEvent) => void events.push(event);
    const first = runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: true }], onEvent });
    await inTool;
    clock.advance(LEASE_MS + 1);

    const again = await runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: true }], onEvent });
    expect(again.status).toBe('completed');
    release();
    expect((await first).status).toBe('failed');

    const approvalItems = (await store.listItems(paused.thread_id)).filter((i) => i.item.type === 'approval');
    expect(approvalItems.map((i) => [i.runId, i.item.approval_id, i.item.decision])).toEqual([[paused.run_id, id, 'approved']]);
    const decisions = (await store.listAudit(paused.thread_id)).filter((a) => a.kind === 'approval_decision');
    expect(decisions.map((a) => [a.runId, a.data.approval_id, a.data.decision])).toEqual([[paused.run_id, id, 'approved']]);
    const decided = events.filter((e) => e.type === 'approval_decided');
    expect(decided).toEqual([{ type: 'approval_decided', run_id: paused.run_id, id, approved: true }]);
    // The approved call still ran in both resumes (at-least-once), and the run finished once.
    expect(calls).toEqual(['lookup_order', 'lookup_order']);
    expect((await store.getRun(paused.run_id))?.status).toBe('completed');

    // Both attempts committed the call's function_call item; a later run on the thread replays it once.
    const next = await runner.run({ agentId: AGENT, input: 'thanks', threadId: paused.thread_id });
    expect(next.status).toBe('completed');
    const input = models.requests.clerk!.at(-1)!.input as Array<{ type?: string; callId?: string }>;
    const replayed = input.filter((item) => item.type === 'function_call' || item.type === 'function_call_result');
    expect(replayed.map((item) => item.type)).toEqual(['function_call', 'function_call_result']);
    await store.close();
  });
});
