// Bridges a real @openai/agents-core Runner run into OpenTelemetry. The model is the only
// stand-in: an offline scripted model (labelled as such) that, like the SDK's OpenAI model
// classes, records each call in a generation span.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  Agent,
  Runner,
  Usage,
  handoff,
  tool,
  withGenerationSpan,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installAgentsTraceBridge } from '../src/agents.js';
import { createTestTracing, type TestTracing } from '../src/testing.js';

/** Offline scripted model: returns the next scripted output on each call. */
class OfflineScriptedModel implements Model {
  readonly calls: ModelRequest[] = [];
  constructor(
    private readonly modelName: string,
    private readonly script: AgentOutputItem[][],
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.calls.push(request);
    const output = this.script[this.calls.length - 1];
    if (!output) throw new Error(`offline scripted model ${this.modelName}: no step ${this.calls.length}`);
    return withGenerationSpan(async (span) => {
      span.spanData.model = this.modelName;
      span.spanData.input = [{ role: 'user', content: JSON.stringify(request.input) }];
      span.spanData.output = output as unknown as Record<string, unknown>[];
      span.spanData.usage = { input_tokens: 11, output_tokens: 7 };
      return { output, usage: new Usage({ inputTokens: 11, outputTokens: 7, requests: 1 }), responseId: `resp_${this.calls.length}` };
    });
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('offline scripted model: streaming is not scripted');
  }
}

const call = (callId: string, name: string, args: object): AgentOutputItem => ({
  type: 'function_call',
  callId,
  name,
  status: 'completed',
  arguments: JSON.stringify(args),
});
const message = (text: string): AgentOutputItem => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text }],
});

function buildAgents() {
  const refunds = new Agent({
    name: 'refunds',
    instructions: 'Handle refunds.',
    model: new OfflineScriptedModel('offline-refunds', [[message('Refund for 10042 started.')]]),
  });
  const lookupOrder = tool({
    name: 'lookup_order',
    description: 'Look up an order',
    parameters: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => ({ order_id, status: 'delivered' }),
  });
  const triage = new Agent({
    name: 'triage',
    instructions: 'Route requests.',
    model: new OfflineScriptedModel('offline-triage', [
      [call('c1', 'lookup_order', { order_id: '10042' })],
      [call('c2', 'transfer_to_refunds', {})],
    ]),
    tools: [lookupOrder],
    handoffs: [handoff(refunds)],
    inputGuardrails: [{ name: 'input_check', runInParallel: false, execute: async () => ({ tripwireTriggered: false, outputInfo: {} }) }],
  });
  return { triage };
}

describe('Agents SDK → OpenTelemetry bridge', () => {
  let tracing: TestTracing;
  beforeEach(() => {
    tracing = createTestTracing();
  });
  afterEach(() => tracing.shutdown());

  async function runUnderOuterSpan(includeSensitiveData = false) {
    installAgentsTraceBridge({ tracer: tracing.tracer, includeSensitiveData });
    const { triage } = buildAgents();
    const runner = new Runner({ tracingDisabled: false });
    const { outer, result } = await tracing.tracer.startActiveSpan('baton.run', async (span) => {
      const output = await runner.run(triage, 'I want a refund for order 10042');
      span.end();
      return { outer: span, result: output };
    });
    return { outer, result, spans: await tracing.spans() };
  }

  const byName = (spans: ReadableSpan[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(
      found.map((s) => s.name),
      `span ${name} among ${spans.map((s) => s.name).join(', ')}`,
    ).toHaveLength(1);
    return found[0]!;
  };
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const idOf = (span: ReadableSpan) => span.spanContext().spanId;

  it('maps a run with a tool call and a handoff into correctly parented GenAI spans', async () => {
    const { outer, result, spans } = await runUnderOuterSpan();
    expect(result.finalOutput).toBe('Refund for 10042 started.');

    const traceId = outer.spanContext().traceId;
    expect(spans.every((s) => s.spanContext().traceId === traceId)).toBe(true);

    // The SDK's shape: workflow → task → agent → turn → (model call, tool, handoff).
    const ids = new Map(spans.map((s) => [idOf(s), s]));
    const parentSpan = (span: ReadableSpan) => ids.get(parentOf(span) ?? '');
    const workflow = byName(spans, 'workflow Agent workflow');
    expect(parentOf(workflow)).toBe(outer.spanContext().spanId);
    const task = byName(spans, 'task Agent workflow');
    expect(parentSpan(task)).toBe(workflow);

    const triageSpan = byName(spans, 'invoke_agent triage');
    const refundsSpan = byName(spans, 'invoke_agent refunds');
    expect(triageSpan.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'triage' });
    expect(triageSpan.attributes['openai_agents.agent.tools']).toEqual(['lookup_order']);

    const tool = byName(spans, 'execute_tool lookup_order');
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.type': 'function',
    });
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(parentSpan(triageSpan)).toBe(task);
    expect(parentSpan(refundsSpan)).toBe(task);
    const turn1 = byName(spans, 'turn 1 triage');
    expect(turn1.attributes).toMatchObject({ 'gen_ai.agent.name': 'triage', 'openai_agents.turn': 1 });
    expect(parentSpan(turn1)).toBe(triageSpan);
    expect(parentSpan(tool)).toBe(turn1);

    const hand = byName(spans, 'handoff triage -> refunds');
    const turn2 = byName(spans, 'turn 2 triage');
    expect(parentSpan(hand)).toBe(turn2);
    expect(parentSpan(turn2)).toBe(triageSpan);
    expect(parentSpan(byName(spans, 'turn 3 refunds'))).toBe(refundsSpan);

    const generations = spans.filter((s) => s.name.startsWith('chat '));
    expect(generations.map((s) => s.name).sort()).toEqual(['chat offline-refunds', 'chat offline-triage', 'chat offline-triage']);
    for (const generation of generations) {
      expect(generation.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 7,
      });
      expect(generation.attributes['gen_ai.input.messages']).toBeUndefined();
      const expectedAgent = generation.name === 'chat offline-refunds' ? refundsSpan : triageSpan;
      const turn = parentSpan(generation)!;
      expect(turn.name).toMatch(/^turn \d /);
      expect(parentSpan(turn)).toBe(expectedAgent);
    }
    expect(generations.find((g) => g.name === 'chat offline-refunds')!.attributes['gen_ai.request.model']).toBe('offline-refunds');

    const guardrail = byName(spans, 'guardrail input_check');
    expect(guardrail.attributes['openai_agents.guardrail.triggered']).toBe(false);
    expect(parentSpan(guardrail)).toBe(triageSpan);

    // Every bridged span hangs off the workflow span, transitively.
    for (const span of spans) {
      if (span === workflow || span.name === 'baton.run') continue;
      let cursor: ReadableSpan | undefined = span;
      while (cursor && cursor !== workflow) cursor = ids.get(parentOf(cursor) ?? '');
      expect(cursor, `${span.name} is under the workflow span`).toBe(workflow);
    }
  });

  it('records content only when asked', async () => {
    const { spans } = await runUnderOuterSpan(true);
    const tool = spans.find((s) => s.name === 'execute_tool lookup_order')!;
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ order_id: '10042' });
    expect(String(tool.attributes['gen_ai.tool.call.result'])).toContain('delivered');
    const generation = spans.find((s) => s.name === 'chat offline-refunds')!;
    expect(String(generation.attributes['gen_ai.output.messages'])).toContain('Refund for 10042 started.');
  });
});
