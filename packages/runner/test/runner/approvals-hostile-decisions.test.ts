// Red-team probes of submitApprovals: two concurrent resumes with opposite decisions, and hostile
// decision lists (__proto__ keys, duplicates, more entries than approvals). One decision wins; the
// approved tool runs at most once; a refused request changes nothing.
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, Runner } from '../../src/index.js';
import { createScriptedProvider, manualClock } from '../../src/testing/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';

const AGENT = 'io.baton.test.clerk';

function setup() {
  const clock = manualClock();
  const store = createMemoryThreadStore({ clock: clock.now });
  const calls: string[] = [];
  const models = createScriptedProvider({
    scripts: {
      clerk: (_req, i) => (i === 0 ? { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] } : { message: 'done' }),
    },
  });
  const runner = new Runner({
    registry: registry([manifest(AGENT, { tools: [lookupTool()] })], `agents:\n  ${AGENT}:\n    approval_required_tools: [lookup_order]\n`),
    tools: { lookup_order: async () => (calls.push('lookup_order'), 'found') },
    guardrails: scriptedGuardrail().validator,
    store,
    modelProvider: models.provider,
    clock: clock.now,
  });
  return { runner, store, calls };
}

describe('submitApprovals under attack', () => {
  it('two concurrent resumes with opposite decisions: one wins, the other is a conflict, the tool runs at most once', async () => {
    const { runner, store, calls } = setup();
    const paused = await runner.run({ agentId: AGENT, input: 'look up 42' });
    const id = paused.required_action!.approvals[0]!.id;
    const results = await Promise.allSettled([
      runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: true }] }),
      runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: false, reason: 'no' }] }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: expect.stringMatching(/APPROVAL_CONFLICT|THREAD_BUSY/) });
    const items = (await store.listItems(paused.thread_id)).filter((i) => i.item.type === 'approval');
    expect(items).toHaveLength(1);
    expect(calls.length).toBe(items[0]!.item.decision === 'approved' ? 1 : 0);
    // After it finished, neither decision is accepted again.
    await expect(runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: true }] })).rejects.toMatchObject({
      code: 'APPROVAL_CONFLICT',
    });
  });

  it('refuses __proto__ keys, duplicate ids and oversized lists, and changes nothing', async () => {
    const { runner, store, calls } = setup();
    const paused = await runner.run({ agentId: AGENT, input: 'look up 42' });
    const id = paused.required_action!.approvals[0]!.id;
    const hostile: unknown[] = [
      JSON.parse(`[{"id":${JSON.stringify(id)},"approve":true,"__proto__":{"approve":false}}]`),
      JSON.parse(`[{"__proto__":{"id":${JSON.stringify(id)},"approve":true}}]`),
      [
        { id, approve: true },
        { id, approve: false },
      ],
      Array.from({ length: 100_000 }, () => ({ id, approve: true })),
      Object.assign(Object.create({ id, approve: true }) as object, {}),
    ];
    for (const decisions of hostile)
      await expect(runner.submitApprovals({ runId: paused.run_id, decisions: decisions as never })).rejects.toMatchObject({
        code: 'APPROVAL_INVALID',
      });
    expect(calls).toEqual([]);
    expect((await store.listItems(paused.thread_id)).filter((i) => i.item.type === 'approval')).toEqual([]);
    expect((await runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: false }] })).status).toBe('completed');
    expect(calls).toEqual([]);
  });
});
