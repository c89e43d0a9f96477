import { createTestTracing } from '@baton/tracing/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { Runner } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

const A = 'io.baton.test.alpha';
const B = 'io.baton.test.beta';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('OpenTelemetry spans', () => {
  const tracing = createTestTracing({ registerGlobal: false });
  afterAll(() => tracing.shutdown());

  it('opens spans for the run, each agent run, model call, tool call, guardrail check and handoff under the caller trace', async () => {
    const models = createScriptedProvider({
      scripts: {
        alpha: [
          { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1' } }] },
          { toolCalls: [{ name: 'system__handoff', arguments: { target_agent_id: B, input: 'go', state: {} } }] },
        ],
        beta: [{ message: 'ok' }],
      },
    });
    const guard = scriptedGuardrail();
    const runner = new Runner({
      registry: registry([manifest(A, { tools: [lookupTool()] }), manifest(B)], `agents:\n  ${A}:\n    handoffs: [${B}]\n`),
      tools: { lookup_order: () => 'ok' },
      guardrails: guard.validator,
      modelProvider: models.provider,
      tracing: { tracer: tracing.tracer },
    });
    const result = await runner.run({ agentId: A, input: 'hi', traceparent: TRACEPARENT });
    const spans = await tracing.spans();
    const mine = spans.filter((s) => s.spanContext().traceId === '0af7651916cd43dd8448eb211c80319c');
    const byName = (n: string) => mine.filter((s) => s.name === n);

    const [root] = byName('baton.run');
    expect(root).toBeDefined();
    expect(root!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    const agentRuns = byName('baton.agent_run');
    expect(agentRuns.map((s) => s.attributes['gen_ai.agent.id'])).toEqual([A, B]);
    for (const s of agentRuns) expect(s.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
    expect(agentRuns[0]!.attributes['baton.run.status']).toBe('cancelled');

    const tool = byName('execute_tool lookup_order')[0]!;
    expect(tool.attributes['gen_ai.tool.name']).toBe('lookup_order');
    expect(tool.parentSpanContext?.spanId).toBe(agentRuns[0]!.spanContext().spanId);
    expect(byName('chat alpha')).toHaveLength(2);
    const handoff = byName('baton.handoff')[0]!;
    expect(handoff.attributes['baton.handoff.protocol']).toBe('system::handoff');
    expect(handoff.attributes['baton.handoff.target']).toBe(B);
    expect(byName('baton.guardrail AGENT_HANDOFF')[0]!.parentSpanContext?.spanId).toBe(handoff.spanContext().spanId);

    // Guardrail requests carry the guardrail span's own ids.
    const guardrailSpans = mine.filter((s) => s.name.startsWith('baton.guardrail '));
    expect(guardrailSpans.map((s) => s.spanContext().spanId).sort()).toEqual(guard.requests.map((r) => r.trace.span_id).sort());
    expect(result.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('starts a new trace when no traceparent is given', async () => {
    const models = createScriptedProvider({ scripts: { alpha: [{ message: 'ok' }] } });
    const runner = new Runner({
      registry: registry([manifest(A)]),
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
      tracing: { tracer: tracing.tracer },
    });
    const result = await runner.run({ agentId: A, input: 'hi' });
    const spans = await tracing.spans();
    const root = spans.find((s) => s.name === 'baton.run' && s.spanContext().traceId === result.trace_id);
    expect(root).toBeDefined();
    expect(root!.parentSpanContext).toBeUndefined();
  });
});
