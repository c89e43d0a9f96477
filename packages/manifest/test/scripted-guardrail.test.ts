// The one scripted guardrail (@baton/manifest/testing).
import { describe, expect, it } from 'vitest';
import type { GuardrailRequest } from '../src/index.js';
import { allowAllGuardrail, scriptedGuardrail } from '../src/testing/index.js';

const input = (text: string): GuardrailRequest => ({
  action_id: '11111111-1111-4111-8111-111111111111',
  action_type: 'AGENT_INPUT',
  source_agent_id: 'io.baton.test.a',
  thread_id: 'thread_1',
  trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
  payload: text,
});

describe('scriptedGuardrail', () => {
  it('allows by default, echoes the action id, answers with scripted fields and records copies', async () => {
    const g = scriptedGuardrail((r) => (r.payload === 'bad' ? { decision: 'BLOCK', reason_code: 'NOPE' } : undefined));
    const req = input('fine');
    expect(await g.validator.validate(req)).toEqual({
      action_id: req.action_id,
      decision: 'ALLOW',
      reason_code: 'OK',
      reason_message: 'ok',
    });
    expect(await g.validator.validate(input('bad'))).toMatchObject({ decision: 'BLOCK', reason_code: 'NOPE' });
    (req as { payload: unknown }).payload = 'changed later';
    expect(g.requests.map((r) => r.payload)).toEqual(['fine', 'bad']);
    expect((await allowAllGuardrail().validate(input('x'))).decision).toBe('ALLOW');
  });

  it('throws, answers garbage, or hangs until the caller aborts', async () => {
    await expect(scriptedGuardrail(() => 'throw').validator.validate(input('x'))).rejects.toThrow('guardrail service unreachable');
    expect(await scriptedGuardrail(() => 'garbage').validator.validate(input('x'))).toEqual({ nonsense: true });
    const controller = new AbortController();
    const hanging = scriptedGuardrail(() => 'hang').validator.validate(input('x'), { signal: controller.signal });
    controller.abort();
    await expect(hanging).rejects.toThrow('aborted');
    await expect(scriptedGuardrail(() => 'hang').validator.validate(input('x'), { signal: AbortSignal.abort() })).rejects.toThrow(
      'aborted',
    );
  });
});
