// Bridges a real @openai/agents-core Runner run into OpenTelemetry. The model is the only
// stand-in: the one public scripted model (@baton/manifest/testing, labelled as such), wrapped so
// that, like the SDK's OpenAI model classes, it records each call in a generation span.
import { createScriptedModel, type ScriptedTurn } from '@baton/manifest/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Agent, Runner, handoff, tool, withGenerationSpan, type Model } from '@openai/agents-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installAgentsTraceBridge } from '../src/agents.js';
import { createTestTracing, type TestTracing } from '../src/testing.js';

/**
 * The scripted model under `modelName`, each call in a generation span (model, input, output and
 * a fixed token usage), as the SDK's model classes record theirs; streaming is not scripted here.
 */
function generatingModel(modelName: string, script: ScriptedTurn[]): Model {
  const { model } = createScriptedModel({ script });
  return {
    getResponse: (request) =>
      withGenerationSpan(async (span) => {
        const response = await model.getResponse(request);
        span.spanData.model = modelName;
        span.spanData.input = [{ role: 'user', content: JSON.stringify(request.input) }];
        span.spanData.output = response.output as unknown as Record<string, unknown>[];
        span.spanData.usage = { input_tokens: 11, output_tokens: 7 };
        return response;
      }),
    getStreamedResponse: () => {
      throw new Error(`scripted model ${modelName}: streaming is not scripted in this test`);
    },
  };
}

function buildAgents() {
  const refunds = new Agent({
    name: 'refunds',
    instructions: 'Handle refunds.',
    model: generatingModel('offline-refunds', [{ message: 'Refund for 10042 started.' }]),
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
    model: generatingModel('offline-triage', [
      { toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { order_id: '10042' } }] },
      { toolCalls: [{ id: 'c2', name: 'transfer_to_refunds', arguments: {} }] },
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
