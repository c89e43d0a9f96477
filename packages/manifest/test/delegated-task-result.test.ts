import { describe, expect, it } from 'vitest';
import { DelegatedTaskResultSchema, GuardrailDecisionRecordSchema, MAX_DELEGATED_TASK_DECISIONS } from '../src/contracts/index.js';

// A worker's answer crosses a process boundary into the delegating run's records (RunResult,
// audit, spans): whatever a malicious or buggy worker puts there must be bounded.
const finding = (over: Record<string, unknown> = {}) => ({
  detector: 'secrets',
  type: 'AWS_ACCESS_KEY',
  severity: 'high',
  start: 0,
  end: 4,
  ...over,
});
const decision = (over: Record<string, unknown> = {}) => ({
  action_type: 'AGENT_RESPONSE',
  decision: 'ALLOW',
  reason_code: 'OK',
  agent_id: 'io.baton.sub',
  ...over,
});
const response = { status: 'SUCCESS', output_payload: {}, log_summary: 'done' };

describe('GuardrailDecisionRecordSchema (hostile worker results)', () => {
  it('accepts a well-formed record with findings', () => {
    expect(GuardrailDecisionRecordSchema.safeParse(decision({ findings: [finding({ path: '/a/0' })] })).success).toBe(true);
  });

  it('refuses findings whose strings are unbounded (they are recorded in the parent run)', () => {
    const big = 'x'.repeat(1_000_000);
    for (const over of [{ detector: big }, { type: big }, { path: `/${big}` }])
      expect(GuardrailDecisionRecordSchema.safeParse(decision({ findings: [finding(over)] })).success, Object.keys(over)[0]).toBe(false);
  });

  it('refuses findings with control or invisible characters in detector or type', () => {
    for (const over of [{ detector: 'secrets\u200b' }, { type: 'AWS\nKEY' }, { type: 'AWS\u202eKEY' }])
      expect(GuardrailDecisionRecordSchema.safeParse(decision({ findings: [finding(over)] })).success).toBe(false);
  });

  it('refuses a finding that ends before it starts, or negative / non-integer offsets', () => {
    for (const over of [{ start: 10, end: 2 }, { start: -1 }, { end: 1.5 }, { end: Infinity }])
      expect(GuardrailDecisionRecordSchema.safeParse(decision({ findings: [finding(over)] })).success).toBe(false);
  });

  it('refuses an agent id longer than a DNS name', () => {
    const long = Array.from({ length: 200_000 }, () => 'a').join('.');
    expect(GuardrailDecisionRecordSchema.safeParse(decision({ agent_id: long })).success).toBe(false);
  });

  it('refuses reason codes with invisible characters, huge reasons, extra and __proto__ keys', () => {
    expect(GuardrailDecisionRecordSchema.safeParse(decision({ reason_code: 'OK\u200b' })).success).toBe(false);
    expect(GuardrailDecisionRecordSchema.safeParse(decision({ reason_code: 'A'.repeat(10_000_000) })).success).toBe(false);
    expect(GuardrailDecisionRecordSchema.safeParse(decision({ extra: 1 })).success).toBe(false);
    expect(
      GuardrailDecisionRecordSchema.safeParse(JSON.parse(JSON.stringify(decision()).replace('{', '{"__proto__":{"decision":"ALLOW"},')))
        .success,
    ).toBe(false);
  });

  it('refuses a result that is not an object, or carries more than the maximum decisions', () => {
    for (const v of [null, 'x', 1, [], [response]]) expect(DelegatedTaskResultSchema.safeParse(v).success).toBe(false);
    const many = Array.from({ length: MAX_DELEGATED_TASK_DECISIONS + 1 }, () => decision());
    expect(DelegatedTaskResultSchema.safeParse({ response, guardrail_decisions: many }).success).toBe(false);
  });
});
