import { scriptedGuardrail } from '@baton/manifest/testing';
import type { ModelRequest } from '@openai/agents-core';
import { describe, expect, it, vi } from 'vitest';
import {
  createMemoryThreadStore,
  Runner,
  type GuardrailDecisionEvent,
  type RunnerEvent,
  type SystemTool,
  type ToolEndEvent,
} from '../../src/index.js';
import { createScriptedModel, type ScriptedTurn } from '../../src/testing/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 60_000 });

const TRIAGE = 'io.baton.test.triage';
const REFUNDS = 'io.baton.test.refunds';
const CARD = '4242 4242 4242 4242';

/** Redacts the card number in text payloads, with a finding (score and path included, as a real detector's). */
const redacting = scriptedGuardrail((r) => {
  if (typeof r.payload !== 'string' || !r.payload.includes(CARD)) return undefined;
  const start = r.payload.indexOf(CARD);
  return {
    decision: 'MODIFY',
    reason_code: 'PII_REDACTED',
    reason_message: 'redacted',
    modified_payload: r.payload.replace(CARD, '[REDACTED:CREDIT_CARD]'),
    findings: [{ detector: 'pii', type: 'CREDIT_CARD', severity: 'high', path: '', start, end: start + CARD.length, score: 0.99 }],
  };
});

function setup(scripts: Record<string, ScriptedTurn[]>, warn: (m: string, f?: unknown) => void = () => undefined) {
  const seen: Record<string, number> = {};
  const models = createScriptedModel({
    script: (request: ModelRequest) => {
      const who = request.systemInstructions?.includes(REFUNDS) ? REFUNDS : TRIAGE;
      const n = (seen[who] = (seen[who] ?? 0) + 1);
      const turn = scripts[who]?.[n - 1];
      if (!turn) throw new Error(`no scripted reply ${n} for ${who}`);
      return turn;
    },
  });
  const store = createMemoryThreadStore();
  const runner = new Runner({
    registry: registry(
      [manifest(TRIAGE, { tools: [lookupTool()] }), manifest(REFUNDS)],
      `agents:\n  ${TRIAGE}:\n    handoffs: [${REFUNDS}]\n`,
    ),
    tools: { lookup_order: () => ({ status: 'delivered' }) },
    guardrails: redacting.validator,
    store,
    modelProvider: models.provider,
    logger: { info: () => undefined, warn, error: () => undefined },
  });
  return { runner, store };
}

function systemTool(name: string, overrides: Partial<SystemTool> = {}): SystemTool {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { ticket: { type: 'string' } }, additionalProperties: false },
    execute: () => 'filed',
    ...overrides,
  };
}

const decisions = (events: RunnerEvent[]) => events.filter((e): e is GuardrailDecisionEvent => e.type === 'guardrail_decision');
const toolEnds = (events: RunnerEvent[]) => events.filter((e): e is ToolEndEvent => e.type === 'tool_end');

describe('runner event metadata (ids, names, codes, counts; never content)', () => {
  it('names what each decision was about and what each tool ran with, without any payload text', async () => {
    const { runner } = setup({
      [TRIAGE]: [
        { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1234', note: 'urgent' } }] },
        { toolCalls: [{ name: 'system__handoff', arguments: { target_agent_id: REFUNDS, input: 'Refund order 1234', state: {} } }] },
      ],
      [REFUNDS]: [{ message: `Refund sent to card ${CARD}.` }],
    });
    const events: RunnerEvent[] = [];
    const result = await runner.run({ agentId: TRIAGE, input: 'Refund order 1234 please', onEvent: (e) => void events.push(e) });
    expect(result.status).toBe('completed');

    const [end] = toolEnds(events);
    expect(end).toMatchObject({ name: 'lookup_order', ok: true, argument_names: ['order_id', 'note'] });
    expect(end?.output_chars).toBe(JSON.stringify({ status: 'delivered' }).length);
    expect(end?.detail).toBeUndefined();

    const tool = decisions(events).filter((d) => d.action_type === 'TOOL_CALL' || d.action_type === 'TOOL_OUTPUT');
    expect(tool.map((d) => [d.action_type, d.subject, d.call_id])).toEqual([
      ['TOOL_CALL', 'lookup_order', end?.call_id],
      ['TOOL_OUTPUT', 'lookup_order', end?.call_id],
    ]);
    const handoff = decisions(events).filter((d) => d.action_type === 'AGENT_HANDOFF');
    expect(handoff.map((d) => [d.subject, d.checked])).toEqual([[REFUNDS, 'request']]);

    // The answer's card number is redacted; its event says where and what, never the number.
    const answer = decisions(events).find((d) => d.action_type === 'AGENT_RESPONSE');
    expect(answer?.decision).toBe('MODIFY');
    expect(answer?.findings?.length).toBeGreaterThan(0);
    expect(answer?.findings).toEqual([{ detector: 'pii', type: 'CREDIT_CARD', severity: 'high', path: '', start: 20, end: 39 }]);
    const text = JSON.stringify(events.filter((e) => e.type !== 'text_delta'));
    for (const secret of [CARD, 'urgent', 'Refund order 1234', 'delivered']) expect(text).not.toContain(secret);
  });

  it("carries a system tool's eventDetail: flat strings, numbers and booleans only; a failing hook reports nothing", async () => {
    const warnings: string[] = [];
    const { runner } = setup(
      {
        [TRIAGE]: [
          {
            toolCalls: [
              { name: 'file_ticket', arguments: { ticket: 'T-1' } },
              { name: 'broken_report', arguments: {} },
            ],
          },
          { message: 'Filed.' },
        ],
      },
      (m) => void warnings.push(m),
    );
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: TRIAGE,
      input: 'File a ticket',
      onEvent: (e) => void events.push(e),
      systemTools: [
        systemTool('file_ticket', {
          eventDetail: (args, output, ctx) =>
            ({
              ticket: String(args.ticket),
              output_length: output.length,
              depth: ctx.depth,
              filed: true,
              nested: { no: 'objects' },
              list: ['no', 'arrays'],
              infinite: Number.POSITIVE_INFINITY,
            }) as unknown as Record<string, string>,
        }),
        systemTool('broken_report', {
          eventDetail: () => {
            throw new Error('report hook broke');
          },
        }),
      ],
    });
    expect(result.status).toBe('completed');
    const filed = toolEnds(events).find((e) => e.name === 'file_ticket');
    const broken = toolEnds(events).find((e) => e.name === 'broken_report');
    expect(filed).toMatchObject({ name: 'file_ticket', ok: true });
    expect(filed?.detail).toEqual({ ticket: 'T-1', output_length: 5, depth: 0, filed: true });
    expect(broken).toMatchObject({ name: 'broken_report', ok: true, argument_names: [], output_chars: 5 });
    expect(broken?.detail).toBeUndefined();
    expect(warnings.some((w) => w.includes('eventDetail'))).toBe(true);
  });

  it('records a tool boundary check (ToolContext.checkBoundary) as a decision of the run, with its boundary', async () => {
    const { runner, store } = setup({
      [TRIAGE]: [{ toolCalls: [{ name: 'delegate_like', arguments: {} }] }, { message: 'Done.' }],
    });
    const outcomes: unknown[] = [];
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: TRIAGE,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        systemTool('delegate_like', {
          execute: async (_args, ctx) => {
            if (!ctx.checkBoundary) throw new Error('the runner supplies checkBoundary');
            outcomes.push(
              await ctx.checkBoundary({
                actionType: 'AGENT_INPUT',
                payload: `Pay with ${CARD}`,
                agentId: 'io.baton.skill.worker',
                boundary: 'delegation',
                subject: 'worker',
                depth: 1,
              }),
            );
            return 'ok';
          },
        }),
      ],
    });
    expect(result.status).toBe('completed');
    expect(outcomes).toEqual([expect.objectContaining({ decision: 'MODIFY', failed: false })]);
    expect((outcomes[0] as { payload: string }).payload).not.toContain(CARD);
    expect(result.guardrail_decisions).toContainEqual(
      expect.objectContaining({ action_type: 'AGENT_INPUT', agent_id: 'io.baton.skill.worker', decision: 'MODIFY' }),
    );
    const boundary = decisions(events).find((d) => d.boundary === 'delegation');
    expect(boundary).toMatchObject({ action_type: 'AGENT_INPUT', subject: 'worker', depth: 1, run_id: result.run_id, decision: 'MODIFY' });
    const audit = (await store.listAudit(result.thread_id)).find((r) => r.data.agent_id === 'io.baton.skill.worker');
    expect(audit?.data).toMatchObject({
      action_type: 'AGENT_INPUT',
      decision: 'MODIFY',
      'baton.boundary': 'delegation',
      'baton.subagent': 'worker',
    });
    expect(audit?.runId).toBe(result.run_id);
    expect(JSON.stringify(events)).not.toContain(CARD);
  });

  it('refuses a malformed boundary check as a recorded BLOCK, without asking the guardrail', async () => {
    const { runner } = setup({
      [TRIAGE]: [{ toolCalls: [{ name: 'sloppy', arguments: {} }] }, { message: 'Done.' }],
    });
    const malformed: unknown[] = [
      { actionType: 'TOOL_CALL', payload: 'x', agentId: 'io.baton.skill.worker', boundary: 'delegation', subject: 'worker', depth: 1 },
      { actionType: 'AGENT_INPUT', payload: 42, agentId: 'io.baton.skill.worker', boundary: 'delegation', subject: 'worker', depth: 1 },
      { actionType: 'AGENT_INPUT', payload: 'x', agentId: 'Not An Id', boundary: 'delegation', subject: 'worker', depth: 1 },
      {
        actionType: 'AGENT_INPUT',
        payload: 'x',
        agentId: 'io.baton.skill.worker',
        boundary: 'delegation',
        subject: 'w'.repeat(201),
        depth: 1,
      },
      { actionType: 'AGENT_INPUT', payload: 'x', agentId: 'io.baton.skill.worker', boundary: 'delegation', subject: 'worker', depth: -1 },
      null,
      { actionType: `leak ${CARD}`, payload: 'x', agentId: `agent ${CARD}`, boundary: 'delegation', subject: 'worker', depth: 1 },
    ];
    const outcomes: Array<{ decision: string; reasonCode: string }> = [];
    const before = redacting.requests.length;
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: TRIAGE,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        systemTool('sloppy', {
          execute: async (_args, ctx) => {
            for (const check of malformed) outcomes.push(await ctx.checkBoundary!(check as never));
            return 'ok';
          },
        }),
      ],
    });
    expect(result.status).toBe('completed');
    expect(outcomes).toHaveLength(malformed.length);
    for (const o of outcomes) expect(o).toMatchObject({ decision: 'BLOCK', reasonCode: 'BOUNDARY_CHECK_INVALID' });
    // Asked only for the run's own checks (input, tool call, tool output, answer), never for these.
    const asked = redacting.requests.slice(before).map((r) => r.action_type);
    expect(asked.sort()).toEqual(['AGENT_INPUT', 'AGENT_RESPONSE', 'TOOL_CALL', 'TOOL_OUTPUT']);
    expect(result.guardrail_decisions.filter((d) => d.reason_code === 'BOUNDARY_CHECK_INVALID')).toHaveLength(malformed.length);
    expect(decisions(events).filter((d) => d.reason_code === 'BOUNDARY_CHECK_INVALID')).toHaveLength(malformed.length);
    // What the tool passed is not an id or a code, so none of it is recorded.
    expect(JSON.stringify(events)).not.toContain(CARD);
    expect(JSON.stringify(result.guardrail_decisions)).not.toContain(CARD);
  });
});
