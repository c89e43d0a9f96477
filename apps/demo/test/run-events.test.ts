import { describe, expect, it } from 'vitest';
import type { RunnerEvent } from '@baton/runner';
import { Progress } from '../src/progress.js';
import { RunNarrator } from '../src/run-events.js';

const REFUNDS = 'io.baton.examples.refunds';

function narrate(events: RunnerEvent[]) {
  const lines: string[] = [];
  let t = 0;
  const progress = new Progress({ write: (l) => void lines.push(l), color: false, now: () => t++ });
  const narrator = new RunNarrator(progress);
  for (const e of events) narrator.onEvent(e);
  return { narrator, lines: lines.map((l) => l.replace(/^\s*\+[\d.]+s /, '')) };
}

const decision = (over: Partial<Extract<RunnerEvent, { type: 'guardrail_decision' }>>): RunnerEvent => ({
  type: 'guardrail_decision',
  run_id: 'run_1',
  agent_id: REFUNDS,
  action_type: 'TOOL_CALL',
  decision: 'ALLOW',
  reason_code: 'OK',
  ...over,
});

describe('RunNarrator', () => {
  it('tells a tool before its output decision, and a delegation with its boundary checks indented under it', () => {
    const { narrator, lines } = narrate([
      { type: 'run_start', thread_id: 't', run_id: 'run_1', agent_id: REFUNDS },
      decision({ call_id: 'c1', subject: 'get_order' }),
      decision({ action_type: 'TOOL_OUTPUT', call_id: 'c1', subject: 'get_order' }),
      {
        type: 'tool_end',
        run_id: 'run_1',
        agent_id: REFUNDS,
        call_id: 'c1',
        name: 'get_order',
        ok: true,
        argument_names: ['order_id'],
        output_chars: 104,
      },
      decision({ call_id: 'c2', subject: 'delegate_task' }),
      decision({ action_type: 'AGENT_INPUT', agent_id: 'io.baton.skill.coder', boundary: 'delegation', subject: 'coder', depth: 1 }),
      decision({
        action_type: 'AGENT_RESPONSE',
        agent_id: 'io.baton.skill.coder',
        boundary: 'delegation',
        subject: 'coder',
        depth: 1,
        decision: 'MODIFY',
        reason_code: 'PII_REDACTED',
        findings: [{ detector: 'pii', type: 'EMAIL', severity: 'medium', start: 3, end: 9 }],
      }),
      decision({ action_type: 'TOOL_OUTPUT', call_id: 'c2', subject: 'delegate_task' }),
      {
        type: 'tool_end',
        run_id: 'run_1',
        agent_id: REFUNDS,
        call_id: 'c2',
        name: 'delegate_task',
        ok: true,
        argument_names: ['subagent_type'],
        output_chars: 300,
        detail: { subagent: 'coder', depth: 1, requires_approval: false, status: 'SUCCESS' },
      },
    ]);
    expect(lines).toEqual([
      'GUARDRAIL  refunds: TOOL_CALL get_order ALLOW',
      'TOOL       refunds: get_order(order_id) — returned 104 characters',
      'GUARDRAIL  refunds: TOOL_OUTPUT get_order ALLOW',
      'GUARDRAIL  refunds: TOOL_CALL delegate_task ALLOW',
      '  DELEGATION refunds: delegate_task → coder',
      '  GUARDRAIL  coder: AGENT_INPUT ALLOW',
      '  GUARDRAIL  coder: AGENT_RESPONSE MODIFY — PII_REDACTED [pii/EMAIL@3-9]',
      '  DELEGATION coder: coder yielded SUCCESS',
      'GUARDRAIL  refunds: TOOL_OUTPUT delegate_task ALLOW',
    ]);
    expect(narrator.decisions.filter((d) => d.boundary === 'delegation').map((d) => [d.actionType, d.subject, d.depth])).toEqual([
      ['AGENT_INPUT', 'coder', 1],
      ['AGENT_RESPONSE', 'coder', 1],
    ]);
    expect(narrator.toolEnds.map((e) => e.tool)).toEqual(['get_order', 'delegate_task']);
  });

  it('tells a refused delegation once, as an approval, and a packet handoff with the run it cancelled', () => {
    const { narrator, lines } = narrate([
      {
        type: 'tool_end',
        run_id: 'run_1',
        agent_id: REFUNDS,
        call_id: 'c3',
        name: 'delegate_task',
        ok: true,
        argument_names: [],
        output_chars: 10,
        detail: {
          subagent: 'cleaner',
          depth: 1,
          requires_approval: true,
          status: 'FAILURE',
          error_code: 'ERR_CONSTRAINT_VIOLATION',
          approval_refused: true,
          capabilities: 'file_delete',
        },
      },
      { type: 'run_end', thread_id: 't', run_id: 'run_0', agent_id: 'io.baton.examples.triage', status: 'cancelled' },
      {
        type: 'handoff',
        thread_id: 't',
        from_run_id: 'run_0',
        from_agent_id: 'io.baton.examples.triage',
        to_agent_id: REFUNDS,
        to_run_id: 'run_1',
        packet_id: 'pkt_1',
      },
    ]);
    expect(lines).toEqual([
      '  DELEGATION refunds: delegate_task → cleaner (requires approval)',
      '  APPROVAL   cleaner: cleaner needs file_delete: denied by the default approval policy DENIED — ERR_CONSTRAINT_VIOLATION',
      'RUN        triage: run run_0 ended cancelled — HANDED_OFF to refunds',
      'HANDOFF    triage: system::handoff → refunds through packet pkt_1 ALLOWED — only the purpose’s approved fields cross; decision recorded in SQLite',
    ]);
    expect(narrator.packets).toEqual([
      { packetId: 'pkt_1', threadId: 't', runId: 'run_0', source: 'io.baton.examples.triage', destination: REFUNDS, toRunId: 'run_1' },
    ]);
    expect([...narrator.endedRuns]).toEqual(['run_0']);
  });
});
