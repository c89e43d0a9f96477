// ToolContext.checkBoundary misused by a tool (red team): a request whose fields change between
// reads or throw when read, a subject that is free text, a call after the tool's run ended, and
// many calls at once. Each fails closed (a BLOCK the tool gets back) and none is recorded as ALLOW.
import type { BoundaryCheck, BoundaryGuardrailCheck } from '@baton/manifest';
import { createTestTracing } from '@baton/tracing/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { GuardrailDecisionEvent, RunnerEvent, SystemTool } from '../../src/index.js';
import { oneCallRunner } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 60_000 });

const AGENT = 'io.baton.test.triage';
const CARD = '4242 4242 4242 4242';

const setup = () => oneCallRunner({ agent: AGENT, tool: 'delegate_like' });

function tool(execute: SystemTool['execute']): SystemTool {
  return {
    name: 'delegate_like',
    description: 'Delegates.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    execute,
  };
}

const good = (): BoundaryCheck => ({
  actionType: 'AGENT_INPUT',
  payload: 'Summarise the report',
  agentId: 'io.baton.skill.worker',
  boundary: 'delegation',
  subject: 'worker',
  depth: 1,
});

const decisionsOf = (events: RunnerEvent[]) => events.filter((e): e is GuardrailDecisionEvent => e.type === 'guardrail_decision');

describe('ToolContext.checkBoundary misuse', () => {
  it('judges the request it validated: a field that changes between reads cannot slip another action past', async () => {
    const { runner, guard } = setup();
    let reads = 0;
    const flipping = {
      ...good(),
      get actionType() {
        // AGENT_INPUT while checked, something else when the guardrail request is built.
        return (++reads === 1 ? 'AGENT_INPUT' : 'TOOL_CALL') as 'AGENT_INPUT';
      },
    };
    const outcomes: unknown[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      systemTools: [tool(async (_a, ctx) => (outcomes.push(await ctx.checkBoundary!(flipping)), 'ok'))],
    });
    expect(result.status).toBe('completed');
    const asked = guard.requests.filter((r) => r.source_agent_id === 'io.baton.skill.worker').map((r) => r.action_type);
    // Either refused or asked as what was validated, never as the other action.
    expect(asked.every((a) => a === 'AGENT_INPUT')).toBe(true);
    expect(result.guardrail_decisions.filter((d) => d.agent_id === 'io.baton.skill.worker').map((d) => d.action_type)).not.toContain(
      'TOOL_CALL',
    );
  });

  it('answers a request whose fields throw when read with a recorded BLOCK, not a rejection', async () => {
    const { runner } = setup();
    const hostile = new Proxy(good(), {
      get(target, key) {
        if (key === 'payload') throw new Error(`trap ${CARD}`);
        return Reflect.get(target, key);
      },
    });
    const outcomes: Array<{ decision?: string; reasonCode?: string; error?: string }> = [];
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        tool(async (_a, ctx) => {
          outcomes.push(await ctx.checkBoundary!(hostile).catch((e: Error) => ({ error: e.message })));
          return 'ok';
        }),
      ],
    });
    expect(result.status).toBe('completed');
    expect(outcomes).toEqual([expect.objectContaining({ decision: 'BLOCK', reasonCode: 'BOUNDARY_CHECK_INVALID' })]);
    expect(decisionsOf(events).filter((d) => d.reason_code === 'BOUNDARY_CHECK_INVALID')).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(CARD);
  });

  it('records a request it cannot make like every decision: result, event, audit and its own span under the tool call', async () => {
    const tracing = createTestTracing({ registerGlobal: false });
    afterAll(() => tracing.shutdown());
    const { runner, store } = oneCallRunner({ agent: AGENT, tool: 'delegate_like', tracing: { tracer: tracing.tracer } });
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [tool(async (_a, ctx) => (await ctx.checkBoundary!({ ...good(), subject: `pay with ${CARD}` }), 'ok'))],
    });
    expect(result.status).toBe('completed');
    const blocked = {
      action_type: 'AGENT_INPUT',
      decision: 'BLOCK',
      reason_code: 'BOUNDARY_CHECK_INVALID',
      agent_id: 'io.baton.skill.worker',
    };
    expect(result.guardrail_decisions.filter((d) => d.reason_code === 'BOUNDARY_CHECK_INVALID')).toEqual([blocked]);
    expect(decisionsOf(events).filter((d) => d.reason_code === 'BOUNDARY_CHECK_INVALID')).toEqual([
      expect.objectContaining({ ...blocked, run_id: result.run_id, boundary: 'delegation' }),
    ]);
    const audit = (await store.listAudit(result.thread_id)).filter(
      (r) => r.kind === 'guardrail_decision' && r.data.reason_code === 'BOUNDARY_CHECK_INVALID',
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      runId: result.run_id,
      data: { ...blocked, trace_id: result.trace_id, 'baton.boundary': 'delegation' },
    });
    const spans = (await tracing.spans()).filter((s) => s.spanContext().traceId === result.trace_id);
    const span = spans.find((s) => s.spanContext().spanId === audit[0]!.data.span_id);
    expect(span?.name).toBe('baton.guardrail AGENT_INPUT');
    expect(span?.attributes).toMatchObject({
      'baton.guardrail.decision': 'BLOCK',
      'baton.guardrail.reason_code': 'BOUNDARY_CHECK_INVALID',
    });
    const toolSpan = spans.find((s) => s.name === 'execute_tool delegate_like');
    expect(span?.parentSpanContext?.spanId).toBe(toolSpan?.spanContext().spanId);
    expect(JSON.stringify(audit)).not.toContain(CARD);
    expect(JSON.stringify(span?.attributes)).not.toContain(CARD);
  });

  it('refuses a subject that is free text (it is recorded in events and spans), keeping the text out', async () => {
    const { runner, guard } = setup();
    const outcomes: Array<{ decision: string; reasonCode: string }> = [];
    const events: RunnerEvent[] = [];
    const before = guard.requests.length;
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        tool(async (_a, ctx) => {
          outcomes.push(await ctx.checkBoundary!({ ...good(), subject: `pay with ${CARD}` }));
          outcomes.push(await ctx.checkBoundary!({ ...good(), subject: 'worker\nINFO forged log line' }));
          return 'ok';
        }),
      ],
    });
    expect(result.status).toBe('completed');
    for (const o of outcomes) expect(o).toMatchObject({ decision: 'BLOCK', reasonCode: 'BOUNDARY_CHECK_INVALID' });
    expect(guard.requests.slice(before).filter((r) => r.source_agent_id === 'io.baton.skill.worker')).toHaveLength(0);
    expect(JSON.stringify(events)).not.toContain(CARD);
    expect(JSON.stringify(result.guardrail_decisions)).not.toContain(CARD);
  });

  it('answers a check made after the run ended with a BLOCK, never an ALLOW, and asks no guardrail', async () => {
    const { runner, guard } = setup();
    let kept: BoundaryGuardrailCheck | undefined;
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        tool((_a, ctx) => {
          kept = ctx.checkBoundary;
          return 'ok';
        }),
      ],
    });
    expect(result.status).toBe('completed');
    const asked = guard.requests.length;
    const late = await kept!(good());
    expect(late.decision).toBe('BLOCK');
    expect(guard.requests.length).toBe(asked);
    expect(decisionsOf(events).some((d) => d.decision === 'ALLOW' && d.agent_id === 'io.baton.skill.worker')).toBe(false);
  });

  it('records each of many concurrent checks once, in the run result and the events', async () => {
    const { runner } = setup();
    const events: RunnerEvent[] = [];
    const n = 50;
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        tool(async (_a, ctx) => {
          const all = await Promise.all(
            Array.from({ length: n }, (_, i) =>
              ctx.checkBoundary!(i % 2 === 0 ? good() : ({ ...good(), actionType: 'TOOL_CALL' } as never)),
            ),
          );
          return all.map((o) => o.decision).join(',');
        }),
      ],
    });
    expect(result.status).toBe('completed');
    const mine = result.guardrail_decisions.filter((d) => d.agent_id === 'io.baton.skill.worker');
    expect(mine.filter((d) => d.decision === 'ALLOW')).toHaveLength(n / 2);
    expect(mine.filter((d) => d.reason_code === 'BOUNDARY_CHECK_INVALID')).toHaveLength(n / 2);
    expect(decisionsOf(events).filter((d) => d.agent_id === 'io.baton.skill.worker')).toHaveLength(n);
  });
});
