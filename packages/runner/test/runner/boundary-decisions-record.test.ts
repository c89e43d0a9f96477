// ToolContext.recordBoundaryDecisions: decisions a dispatched subtask's worker made come back to
// the delegating tool, which hands them to its run. They are recorded through the same function
// as checkBoundary's (result, events, audit, spans); a malformed report is one recorded BLOCK and
// false (fail closed); a report after the call ended records nothing and is answered false.
import type { BoundaryDecisionRecorder, BoundaryDecisionReport } from '@baton/manifest';
import { describe, expect, it, vi } from 'vitest';
import type { GuardrailDecisionEvent, RunnerEvent, SystemTool } from '../../src/index.js';
import { oneCallRunner } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 60_000 });

const AGENT = 'io.baton.test.triage';
const WORKER = 'io.baton.skill.worker';
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

const report = (over: Partial<BoundaryDecisionReport> = {}): BoundaryDecisionReport => ({
  decisions: [
    { action_type: 'AGENT_INPUT', decision: 'MODIFY', reason_code: 'PII_REDACTED', agent_id: WORKER },
    { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: 'SECRET_FOUND', agent_id: WORKER },
  ],
  boundary: 'delegation',
  subject: 'worker',
  depth: 1,
  ...over,
});

const boundaryEvents = (events: RunnerEvent[]) =>
  events.filter((e): e is GuardrailDecisionEvent => e.type === 'guardrail_decision' && e.boundary === 'delegation');

describe('ToolContext.recordBoundaryDecisions', () => {
  it('records them like checkBoundary decisions: result, events and audit of the calling run; no guardrail asked', async () => {
    const { runner, guard, store } = setup();
    const events: RunnerEvent[] = [];
    const answers: boolean[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [tool(async (_a, ctx) => (answers.push(await ctx.recordBoundaryDecisions!(report())), 'ok'))],
    });
    expect(result.status).toBe('completed');
    expect(answers).toEqual([true]);
    expect(result.guardrail_decisions.filter((d) => d.agent_id === WORKER)).toEqual(report().decisions);
    expect(boundaryEvents(events).map((e) => [e.action_type, e.decision, e.reason_code, e.subject, e.depth, e.run_id])).toEqual([
      ['AGENT_INPUT', 'MODIFY', 'PII_REDACTED', 'worker', 1, result.run_id],
      ['AGENT_RESPONSE', 'BLOCK', 'SECRET_FOUND', 'worker', 1, result.run_id],
    ]);
    const audit = (await store.listAudit(result.thread_id)).filter((r) => r.kind === 'guardrail_decision' && r.data.agent_id === WORKER);
    expect(
      audit.map((r) => [r.data.action_type, r.data.decision, r.runId, r.data['baton.subagent'], r.data['baton.decision.origin']]),
    ).toEqual([
      ['AGENT_INPUT', 'MODIFY', result.run_id, 'worker', 'dispatched'],
      ['AGENT_RESPONSE', 'BLOCK', result.run_id, 'worker', 'dispatched'],
    ]);
    for (const a of audit) expect(a.data.trace_id).toBe(result.trace_id);
    expect(guard.requests.filter((r) => r.source_agent_id === WORKER)).toEqual([]);
  });

  it('records a malformed report as one BLOCK (BOUNDARY_DECISIONS_INVALID) and answers false; nothing it held is recorded', async () => {
    const { runner } = setup();
    const bad = report().decisions[0]!;
    const malformed: unknown[] = [
      report({ decisions: [{ ...bad, decision: 'MAYBE' }] }),
      report({ decisions: [{ ...bad, reason_code: `card ${CARD}` }] }),
      report({ decisions: [{ ...bad, action_type: 'TOOL_CALL' }] }),
      report({ decisions: [{ ...bad, agent_id: CARD }] }),
      report({ decisions: Array.from({ length: 65 }, () => bad) }),
      report({ subject: `pay with ${CARD}` }),
      report({ depth: -1 }),
      { ...report(), boundary: 'handoff' },
      null,
      new Proxy(report(), {
        get(target, key) {
          if (key === 'decisions') throw new Error(`trap ${CARD}`);
          return Reflect.get(target, key);
        },
      }),
    ];
    const answers: boolean[] = [];
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        tool(async (_a, ctx) => {
          for (const m of malformed) answers.push(await ctx.recordBoundaryDecisions!(m as BoundaryDecisionReport));
          return 'ok';
        }),
      ],
    });
    expect(result.status).toBe('completed');
    expect(answers).toEqual(malformed.map(() => false));
    const recorded = result.guardrail_decisions.filter((d) => d.reason_code === 'BOUNDARY_DECISIONS_INVALID');
    expect(recorded).toHaveLength(malformed.length);
    for (const d of recorded) expect(d.decision).toBe('BLOCK');
    expect(result.guardrail_decisions.filter((d) => d.decision !== 'BLOCK' && d.agent_id === WORKER)).toEqual([]);
    expect(JSON.stringify(events)).not.toContain(CARD);
    expect(JSON.stringify(result.guardrail_decisions)).not.toContain(CARD);
  });

  it('refuses an oversized decisions list without copying it (a huge list costs no more than the bound)', async () => {
    const { runner } = setup();
    const bad = report().decisions[0]!;
    // 100,000 entries; one far past the bound counts how often it is read.
    const huge: unknown[] = Array.from({ length: 100_000 }, () => bad);
    let reads = 0;
    Object.defineProperty(huge, 99_999, {
      enumerable: true,
      get: () => {
        reads += 1;
        return bad;
      },
    });
    const answers: boolean[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      systemTools: [
        tool(async (_a, ctx) => (answers.push(await ctx.recordBoundaryDecisions!(report({ decisions: huge as never }))), 'ok')),
      ],
    });
    expect(answers).toEqual([false]);
    expect(reads).toBe(0);
    expect(result.guardrail_decisions.filter((d) => d.reason_code === 'BOUNDARY_DECISIONS_INVALID')).toHaveLength(1);
  });

  it('answers a report made after the call ended with false and records nothing', async () => {
    const { runner } = setup();
    let kept: BoundaryDecisionRecorder | undefined;
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      systemTools: [
        tool((_a, ctx) => {
          kept = ctx.recordBoundaryDecisions;
          return 'ok';
        }),
      ],
    });
    const before = result.guardrail_decisions.length;
    expect(await kept!(report())).toBe(false);
    expect(result.guardrail_decisions).toHaveLength(before);
  });
});
