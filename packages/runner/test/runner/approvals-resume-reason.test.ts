// A second resume of the same rejection with another reason (the first resumer stalled past its
// lease after committing its decision): the decision on the thread is the one that counts, so the
// model is told the recorded reason, not the later one; the thread never says one thing while the
// model was told another.
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, Runner } from '../../src/index.js';
import { createScriptedProvider, manualClock } from '../../src/testing/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';

const AGENT = 'io.baton.test.clerk';
const LEASE_MS = 60_000;

describe('Runner approvals: a second resume of a rejection with another reason', () => {
  it('tells the model the recorded reason, the one on the thread', async () => {
    const clock = manualClock();
    const store = createMemoryThreadStore({ clock: clock.now });
    let release!: () => void;
    let entered!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const inModel = new Promise<void>((resolve) => (entered = resolve));
    let stalled = false;
    const models = createScriptedProvider({
      scripts: {
        clerk: async (_req, i) => {
          if (i === 0) return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] };
          // The first resumer stalls in its next model call, after its decision was committed.
          if (!stalled) {
            stalled = true;
            entered();
            await hung;
          }
          return { message: 'done' };
        },
      },
    });
    const runner = new Runner({
      registry: registry(
        [manifest(AGENT, { tools: [lookupTool()] })],
        `agents:\n  ${AGENT}:\n    approval_required_tools: [lookup_order]\n`,
      ),
      tools: { lookup_order: async () => 'found' },
      guardrails: scriptedGuardrail().validator,
      store,
      modelProvider: models.provider,
      clock: clock.now,
      limits: { lockLeaseMs: LEASE_MS, runTimeoutMs: 600_000 },
    });
    const paused = await runner.run({ agentId: AGENT, input: 'look up 42' });
    const id = paused.required_action!.approvals[0]!.id;
    const first = runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: false, reason: 'first reason' }] });
    await inModel;
    clock.advance(LEASE_MS + 1);
    const again = await runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: false, reason: 'second reason' }] });
    expect(again.status).toBe('completed');
    release();
    await first.catch(() => undefined);

    const items = (await store.listItems(paused.thread_id)).filter((i) => i.item.type === 'approval');
    expect(items.map((i) => [i.item.decision, i.item.reason])).toEqual([['rejected', 'first reason']]);
    // What the completing resume's model was told about the call.
    const told = JSON.stringify(models.requests.clerk!.at(-1)!.input);
    expect(told).toContain('first reason');
    expect(told).not.toContain('second reason');
    await store.close();
  });
});
