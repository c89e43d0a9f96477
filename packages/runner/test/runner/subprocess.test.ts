import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, Runner, type ThreadStore } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'scripted-agent.mjs');
const PROC = 'io.baton.test.proc';
const BETA = 'io.baton.test.beta';
const YML = `
agents:
  ${PROC}:
    mode: subprocess
    handoffs: [${BETA}]
    process:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(FIXTURE)}]
      timeout_ms: 3000
    config:
      region: EU
`;

function setup(decide?: Parameters<typeof scriptedGuardrail>[0]) {
  const models = createScriptedProvider({ scripts: { beta: [{ message: 'beta took over' }] } });
  const guard = scriptedGuardrail(decide);
  const store = createMemoryThreadStore();
  const toolRuns: unknown[] = [];
  const runner = new Runner({
    registry: registry([manifest(PROC, { tools: [lookupTool()] }), manifest(BETA)], YML),
    tools: { lookup_order: (a) => (toolRuns.push(a), 'found') },
    guardrails: guard.validator,
    store,
    modelProvider: models.provider,
  });
  return { runner, models, guard, store, toolRuns };
}

describe('subprocess agents', () => {
  it("gets the seed's stdin object and its state is merged into the thread", async () => {
    const { runner } = setup();
    const first = await runner.run({
      agentId: PROC,
      input: 'inspect',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(first.status).toBe('completed');
    const seen = JSON.parse(first.response!);
    expect(seen).toMatchObject({ config: { region: 'EU' }, state: {}, thread_id: first.thread_id, run_id: first.run_id });
    expect(seen.trace.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(seen.trace.parent_span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(first.state).toEqual({ count: 1 });
    const second = await runner.run({ agentId: PROC, input: 'inspect', threadId: first.thread_id });
    expect(JSON.parse(second.response!).state).toEqual({ count: 1 });
    expect(second.state).toEqual({ count: 2 });
  });

  it('the state it returns replaces the thread state for the keys it was given: a key it leaves out is deleted', async () => {
    const { runner, store } = setup();
    const first = await runner.run({ agentId: PROC, input: 'inspect' });
    expect(first.state).toEqual({ count: 1 });
    const second = await runner.run({ agentId: PROC, input: 'forget', threadId: first.thread_id });
    expect(second.status).toBe('completed');
    expect(second.state).toEqual({ forgot: true });
    expect((await store.getThread(first.thread_id))?.state).toEqual({ forgot: true });
    // A store that cannot replace state refuses a deletion with a clear code instead of keeping the key.
    const withoutReplace: ThreadStore = { ...createMemoryThreadStore() };
    delete withoutReplace.replaceState;
    const bare = new Runner({
      registry: registry([manifest(PROC, { tools: [lookupTool()] }), manifest(BETA)], YML),
      guardrails: scriptedGuardrail().validator,
      store: withoutReplace,
      modelProvider: createScriptedProvider({ scripts: {} }).provider,
    });
    const a = await bare.run({ agentId: PROC, input: 'inspect' });
    const b = await bare.run({ agentId: PROC, input: 'forget', threadId: a.thread_id });
    expect(b.status).toBe('failed');
    expect(b.error?.code).toBe('STATE_DELETE_UNSUPPORTED');
    expect(b.state).toEqual({ count: 1 });
  });

  it('a returned `__proto__` key is data, never a prototype (also when keys are deleted)', async () => {
    const { runner, store } = setup();
    const first = await runner.run({ agentId: PROC, input: 'inspect' });
    const result = await runner.run({ agentId: PROC, input: 'proto', threadId: first.thread_id });
    expect(result.status).toBe('completed');
    const state = (await store.getThread(first.thread_id))!.state;
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
    expect((state as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(state['ok']).toBe(1);
    expect(Object.hasOwn(state, 'count')).toBe(false);
  });

  it('its response passes AGENT_RESPONSE and its tool calls pass TOOL_CALL before running', async () => {
    const { runner, guard, toolRuns } = setup();
    const result = await runner.run({ agentId: PROC, input: 'tool' });
    expect(result.response).toBe('asked for a lookup');
    expect(toolRuns).toEqual([{ order_id: '9' }]);
    expect(guard.requests.map((r) => r.action_type)).toEqual(['AGENT_INPUT', 'TOOL_CALL', 'TOOL_OUTPUT', 'AGENT_RESPONSE']);

    const blocked = setup((r) =>
      r.action_type === 'TOOL_CALL' ? { decision: 'BLOCK', reason_code: 'NO', reason_message: 'no' } : undefined,
    );
    await blocked.runner.run({ agentId: PROC, input: 'tool' });
    expect(blocked.toolRuns).toEqual([]);
  });

  it('a system::handoff in its tool calls hands off (first one honoured)', async () => {
    const { runner, models, store } = setup();
    const result = await runner.run({ agentId: PROC, input: 'handoff' });
    expect(result.status).toBe('completed');
    expect(result.response).toBe('beta took over');
    expect(result.runs.map((r) => [r.agent_id, r.status])).toEqual([
      [PROC, 'cancelled'],
      [BETA, 'completed'],
    ]);
    expect(result.state).toEqual({ from_process: true, handed: 1 });
    expect(models.requests['beta']![0]!.input).toEqual([{ type: 'message', role: 'user', content: 'from the process' }]);
    const statuses = (await store.listItems(result.thread_id))
      .map((i) => i.item)
      .filter((i) => i['type'] === 'handoff')
      .map((i) => i['status']);
    expect(statuses).toEqual(['ignored', 'honoured']);
  });

  it.each([
    ['crash', 'AGENT_PROCESS_NON_ZERO_EXIT'],
    ['garbage', 'AGENT_PROCESS_BAD_JSON'],
    ['hang', 'AGENT_PROCESS_TIMEOUT'],
  ])('a process that does "%s" fails the run with %s', async (input, code) => {
    const { runner } = setup();
    const result = await runner.run({ agentId: PROC, input });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe(code);
    expect(result.runs[0]!.status).toBe('failed');
  });
});
