// Runner events never carry unchecked text (red team): a guardrail's findings whose fields carry
// text (the matched value in `type`, a long `path`, odd offsets) and a system tool's eventDetail
// with long strings, free-form keys or too many entries are reduced to codes, names and counts.
import { describe, expect, it, vi } from 'vitest';
import type { GuardrailDecisionEvent, RunnerEvent, SystemTool, ToolEndEvent } from '../../src/index.js';
import { decisionEvent } from '../../src/runner/events.js';
import { oneCallRunner } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 60_000 });

const AGENT = 'io.baton.test.triage';
const CARD = '4242 4242 4242 4242';
const base = { action_type: 'TOOL_OUTPUT', decision: 'MODIFY', reason_code: 'PII_REDACTED', agent_id: AGENT };

describe('guardrail_decision findings', () => {
  it('keeps a well-formed finding', () => {
    const e = decisionEvent(
      { ...base, findings: [{ detector: 'pii', type: 'CREDIT_CARD', severity: 'high', path: '/output', start: 3, end: 22 }] },
      'run_1',
    );
    expect(e.findings).toEqual([{ detector: 'pii', type: 'CREDIT_CARD', severity: 'high', path: '/output', start: 3, end: 22 }]);
  });

  it('drops findings whose code fields carry text, and paths or offsets that are not positions', () => {
    const e = decisionEvent(
      {
        ...base,
        findings: [
          { detector: 'pii', type: `CREDIT_CARD ${CARD}`, severity: 'high', path: '', start: 0, end: 19 },
          { detector: `pii: matched ${CARD}`, type: 'CREDIT_CARD', severity: 'high', start: 0, end: 19 },
          { detector: 'pii', type: 'CREDIT_CARD', severity: 'x'.repeat(500), start: 0, end: 19 },
          { detector: 'pii', type: 'CREDIT_CARD', severity: 'high', path: `/${'k'.repeat(300)}`, start: 0, end: 19 },
          { detector: 'pii', type: 'CREDIT_CARD', severity: 'high', path: `/note\n${CARD}`, start: 0, end: 19 },
          { detector: 'pii', type: 'CREDIT_CARD', severity: 'high', start: -1, end: 19 },
          { detector: 'pii', type: 'CREDIT_CARD', severity: 'high', start: 5, end: 2 },
          { detector: 'pii', type: 'CREDIT_CARD', severity: 'high', start: 0.5, end: Number.POSITIVE_INFINITY },
          { detector: 'pii', type: 'EMAIL', severity: 'medium', start: 0, end: 10 },
        ],
      },
      'run_1',
    );
    expect(e.findings).toEqual([{ detector: 'pii', type: 'EMAIL', severity: 'medium', start: 0, end: 10 }]);
    expect(JSON.stringify(e)).not.toContain(CARD);
    expect(JSON.stringify(e)).not.toContain('kkkkkkkkkk'.repeat(20));
  });
});

describe("a system tool's eventDetail", () => {
  it('drops long strings, keys that are not names and entries past the cap', async () => {
    const { runner } = oneCallRunner({ agent: AGENT, tool: 'reporter' });
    const output = `Statement: ${'lorem ipsum '.repeat(100)} card ${CARD}`;
    const tool: SystemTool = {
      name: 'reporter',
      description: 'Reports.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: () => output,
      eventDetail: (_a, out) => {
        const many: Record<string, number> = {};
        for (let i = 0; i < 100; i++) many[`k${i}`] = i;
        return { status: 'ok', echoed: out, [`note ${CARD}`]: true, ...many };
      },
    };
    const events: RunnerEvent[] = [];
    const result = await runner.run({ agentId: AGENT, input: 'Go', systemTools: [tool], onEvent: (e) => void events.push(e) });
    expect(result.status).toBe('completed');
    const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end');
    expect(end?.detail?.status).toBe('ok');
    expect(end?.detail && 'echoed' in end.detail).toBe(false);
    expect(Object.keys(end?.detail ?? {}).length).toBeLessThanOrEqual(32);
    expect(JSON.stringify(events)).not.toContain(CARD);
    expect(JSON.stringify(events)).not.toContain('lorem ipsum');
    expect(events.filter((e): e is GuardrailDecisionEvent => e.type === 'guardrail_decision').length).toBeGreaterThan(0);
  });
});

describe('tool_end.argument_names', () => {
  it("names only the arguments the tool's schema declares (a schema open to other members lets the model write names)", async () => {
    const { runner } = oneCallRunner({ agent: AGENT, tool: 'open_schema', args: { [`card ${CARD}`]: 'x', ok: 1 } });
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: AGENT,
      input: 'Go',
      onEvent: (e) => void events.push(e),
      systemTools: [
        {
          name: 'open_schema',
          description: 'Takes anything.',
          parameters: { type: 'object', properties: { ok: { type: 'number' } } },
          execute: () => 'ok',
        },
      ],
    });
    expect(result.status).toBe('completed');
    const end = events.find((e): e is ToolEndEvent => e.type === 'tool_end');
    expect(end?.argument_names).toEqual(['ok']);
    expect(JSON.stringify(events)).not.toContain(CARD);
  });
});
