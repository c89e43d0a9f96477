import { GuardrailResponseSchema } from '@baton/manifest';
import { describe, expect, it } from 'vitest';
import type { ActionType, Detector, DetectorInput } from '../src/detector.js';
import { BUDGET_CLOCK_IS_CPU_TIME, budgetClock } from '../src/budget-clock.js';
import { builtInDetectors } from '../src/engine-detectors.js';
import { REASONS, type ReasonCode } from '../src/engine-reasons.js';
import { createEngine } from '../src/engine.js';
import { indexSystemPrompts } from '../src/detectors/system-prompt-leak.js';
import { DEFAULT_POLICY, PolicySchema } from '../src/policy/schema.js';
import { agentInput, agentResponse, toolCall } from './helpers.js';

const ALL: ReadonlySet<ActionType> = new Set(['AGENT_INPUT', 'AGENT_RESPONSE', 'TOOL_CALL', 'TOOL_OUTPUT', 'AGENT_HANDOFF']);

/** Redacts every occurrence of `word`, as detector `name` with `reason`. */
function wordDetector(
  name: string,
  word: string,
  reason: ReasonCode,
  decision: 'MODIFY' | 'BLOCK' = 'MODIFY',
  calls: string[] = [],
): Detector {
  return {
    name,
    actionTypes: ALL,
    redacts: true,
    inspect({ text }: DetectorInput) {
      calls.push(`${name}:${text}`);
      const spans = [];
      for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length))
        spans.push({ type: word.toUpperCase(), start: i, end: i + word.length, severity: 'high' as const });
      if (spans.length === 0) return { verdicts: [] };
      return {
        verdicts: [{ decision, reason, spans, replacements: spans.map((s) => ({ start: s.start, end: s.end, with: `[${name}]` })) }],
      };
    },
  };
}

describe('the detector loop', () => {
  it('runs the configured detectors in order, over every field, and lists findings in that order', () => {
    const calls: string[] = [];
    const engine = createEngine({}, () => [
      wordDetector('second', 'beta', 'PII_REDACTED', 'MODIFY', calls),
      wordDetector('first', 'alpha', 'SECRET_REDACTED', 'MODIFY', calls),
    ]);
    const res = engine.validateSync(toolCall('send', { a: 'alpha beta', b: 'beta' }));
    expect(GuardrailResponseSchema.safeParse(res).success).toBe(true);
    expect(res.decision).toBe('MODIFY');
    // The table, not the list, picks the reason: SECRET_REDACTED outranks PII_REDACTED.
    expect(res.reason_code).toBe('SECRET_REDACTED');
    expect(res.reason_message).toMatch(/^Modified: secrets were redacted; personal data was redacted in /);
    expect(res.findings?.map((f) => [f.detector, f.type, f.path])).toEqual([
      ['second', 'BETA', '/function/arguments/a'],
      ['first', 'ALPHA', '/function/arguments/a'],
      ['second', 'BETA', '/function/arguments/b'],
    ]);
    expect(calls.filter((c) => c.endsWith('alpha beta'))).toEqual(['second:alpha beta', 'first:alpha beta']);
    const args = JSON.parse((res.modified_payload as { function: { arguments: string } }).function.arguments);
    expect(args).toEqual({ a: '[first] [second]', b: '[second]' });
  });

  it('skips a detector for action types it does not inspect', () => {
    const calls: string[] = [];
    const onlyResponses: Detector = {
      ...wordDetector('resp', 'alpha', 'CANARY_LEAK', 'BLOCK', calls),
      actionTypes: new Set<ActionType>(['AGENT_RESPONSE']),
    };
    const engine = createEngine({}, () => [onlyResponses]);
    expect(engine.validateSync(agentInput('alpha')).decision).toBe('ALLOW');
    expect(calls).toEqual([]);
    const res = engine.validateSync(agentResponse('alpha'));
    expect([res.decision, res.reason_code]).toEqual(['BLOCK', 'CANARY_LEAK']);
    expect(res.reason_message).toBe('Blocked: a canary token (ALPHA) was found in the agent response.');
  });

  it('fails closed when a detector throws: BLOCK DETECTOR_FAILED naming it, nothing later runs', () => {
    const calls: string[] = [];
    const broken: Detector = {
      name: 'broken',
      actionTypes: ALL,
      redacts: false,
      inspect() {
        throw new TypeError('boom');
      },
    };
    const engine = createEngine({}, () => [
      wordDetector('before', 'alpha', 'PII_REDACTED', 'MODIFY', calls),
      broken,
      wordDetector('after', 'alpha', 'PII_REDACTED', 'MODIFY', calls),
    ]);
    const res = engine.validateSync(agentInput('alpha'));
    expect(GuardrailResponseSchema.safeParse(res).success).toBe(true);
    expect(res).toMatchObject({
      decision: 'BLOCK',
      reason_code: 'DETECTOR_FAILED',
      reason_message: 'Blocked: the broken detector failed: boom.',
    });
    expect(res.modified_payload).toBeUndefined();
    expect(calls).toEqual(['before:alpha']);
  });

  it('fails closed through validate() too, and keeps answering afterwards', async () => {
    let fail = true;
    const flaky: Detector = {
      name: 'flaky',
      actionTypes: ALL,
      redacts: false,
      inspect() {
        if (fail) throw 'not an Error';
        return { verdicts: [] };
      },
    };
    const engine = createEngine({}, () => [flaky]);
    expect(await engine.validate(agentInput('x'))).toMatchObject({
      decision: 'BLOCK',
      reason_code: 'DETECTOR_FAILED',
      reason_message: 'Blocked: the flaky detector failed: not an Error.',
    });
    fail = false;
    expect((await engine.validate(agentInput('x'))).decision).toBe('ALLOW');
  });

  it('fails closed on a verdict the reason table does not allow', () => {
    const answering = (decision: 'MODIFY' | 'BLOCK', reason: string, redacts = true): Detector => ({
      ...wordDetector('odd', 'alpha', reason as ReasonCode, decision),
      redacts,
    });
    for (const [decision, reason, redacts] of [
      ['BLOCK', 'NOT_A_CODE', true],
      ['BLOCK', '__proto__', true],
      ['BLOCK', 'PII_REDACTED', true],
      ['MODIFY', 'SECRET_DETECTED', true],
      ['MODIFY', 'PII_REDACTED', false],
    ] as const) {
      const res = createEngine({}, () => [answering(decision, reason, redacts)]).validateSync(agentInput('alpha'));
      expect([res.decision, res.reason_code], `${decision} ${reason}`).toEqual(['BLOCK', 'DETECTOR_FAILED']);
      expect(res.reason_message).toContain('the odd detector failed');
    }
  });

  it('counts a detector’s matches against the findings budget', () => {
    const engine = createEngine({ budget: { maxFindings: 3 } }, () => [wordDetector('w', 'a', 'PII_REDACTED')]);
    expect(engine.validateSync(agentInput('a a a')).decision).toBe('MODIFY');
    const res = engine.validateSync(agentInput('a a a a'));
    expect([res.decision, res.reason_code]).toEqual(['BLOCK', 'PAYLOAD_TOO_COMPLEX']);
  });

  it('charges the time budget in CPU time where Node can tell, so a descheduled thread is not refused', () => {
    // The detector holds the thread 120 ms without using the CPU (what a loaded machine does to
    // it); the budget is 50 ms. On CPU time the request is inspected; on wall-clock time (Node
    // without process.threadCpuUsage) it is refused, as before.
    const sleeper: Detector = {
      name: 'sleeper',
      actionTypes: ALL,
      redacts: false,
      inspect() {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120);
        return { verdicts: [] };
      },
    };
    // A still wall clock: the wall-clock ceiling (4 × timeMs) is not what this test is about.
    const res = createEngine({ budget: { timeMs: 50 }, wallNow: () => 0 }, () => [sleeper, sleeper]).validateSync(agentInput('hello'));
    if (BUDGET_CLOCK_IS_CPU_TIME) expect([res.decision, res.reason_code]).toEqual(['ALLOW', 'OK']);
    else expect([res.decision, res.reason_code]).toEqual(['BLOCK', 'PAYLOAD_TOO_COMPLEX']);
  });

  it('refuses a request past the wall-clock ceiling whatever the CPU budget says (the event loop stays bounded)', () => {
    // The budget clock never moves (a thread descheduled for good); the wall clock moves 1 s per
    // reading: past 4 × timeMs the request is refused, so an inline inspection cannot hold the
    // event loop without bound on a loaded machine.
    let wall = 0;
    const calls: string[] = [];
    const engine = createEngine({ budget: { timeMs: 100 }, now: () => 0, wallNow: () => (wall += 1000) }, () => [
      wordDetector('a', 'zzz', 'SECRET_REDACTED', 'MODIFY', calls),
      wordDetector('b', 'zzz', 'SECRET_REDACTED', 'MODIFY', calls),
    ]);
    const res = engine.validateSync(agentInput('hello'));
    expect([res.decision, res.reason_code]).toEqual(['BLOCK', 'PAYLOAD_TOO_COMPLEX']);
    // Within the ceiling it is inspected as usual.
    const calm = createEngine({ budget: { timeMs: 100 }, now: () => 0, wallNow: () => 0 }, () => [
      wordDetector('a', 'zzz', 'SECRET_REDACTED'),
    ]).validateSync(agentInput('hello'));
    expect([calm.decision, calm.reason_code]).toEqual(['ALLOW', 'OK']);
  });

  it('still refuses, on CPU time, a request whose detectors burn more than the budget', () => {
    const spinner: Detector = {
      name: 'spinner',
      actionTypes: ALL,
      redacts: false,
      inspect() {
        const until = budgetClock() + 60;
        while (budgetClock() < until);
        return { verdicts: [] };
      },
    };
    const res = createEngine({ budget: { timeMs: 50 } }, () => [spinner, spinner]).validateSync(agentInput('hello'));
    expect([res.decision, res.reason_code]).toEqual(['BLOCK', 'PAYLOAD_TOO_COMPLEX']);
  });

  it('computes a shared value once per field for every detector that asks', () => {
    let computed = 0;
    const seen: Record<string, string[]> = { a: [], b: [] };
    const sharing = (name: string): Detector => ({
      name,
      actionTypes: ALL,
      redacts: false,
      inspect(input) {
        seen[name]!.push(`${input.text}=${input.shared('k', () => ++computed)}`);
        return { verdicts: [] };
      },
    });
    createEngine({}, () => [sharing('a'), sharing('b')]).validateSync(toolCall('t', { x: 'one', y: 'two' }));
    expect(seen.a).toEqual(['x=1', 'one=2', 'y=3', 'two=4']);
    expect(seen.b).toEqual(seen.a);
  });
});

describe('the built-in detectors and the reason table', () => {
  it('runs the built-in detectors in the documented order; an ALLOW policy drops the action type', () => {
    const policy = PolicySchema.parse({ ...DEFAULT_POLICY, pii: { ...DEFAULT_POLICY.pii, agent_input: 'ALLOW' } });
    const list = builtInDetectors(policy, { canaries: [], promptIndex: indexSystemPrompts([], 8) });
    expect(list.map((d) => d.name)).toEqual(['secrets', 'canary', 'system_prompt_leak', 'exfiltration', 'prompt_injection', 'pii']);
    expect(list.find((d) => d.name === 'pii')!.actionTypes.has('AGENT_INPUT')).toBe(false);
    expect(list.find((d) => d.name === 'canary')!.actionTypes.has('AGENT_INPUT')).toBe(false);
  });

  it('gives every MODIFY reason a BLOCK counterpart, and distinct ranks within a decision', () => {
    const entries = Object.entries(REASONS) as Array<[string, (typeof REASONS)[ReasonCode]]>;
    for (const [code, e] of entries) {
      if (e.decision !== 'MODIFY') continue;
      const blockedAs = (e as { blockedAs?: string }).blockedAs;
      expect(blockedAs, code).toBeDefined();
      expect(REASONS[blockedAs as ReasonCode]?.decision, code).toBe('BLOCK');
    }
    for (const decision of ['BLOCK', 'MODIFY']) {
      const ranks = entries.filter(([, e]) => e.decision === decision).map(([, e]) => e.rank);
      expect(new Set(ranks).size).toBe(ranks.length);
    }
  });
});
