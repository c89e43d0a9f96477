// delegate_task's tool_end detail (red team): `subagent` comes from the model's arguments, so it
// is reported only when it is a subagent name the delegation knew, never free text.
import { describe, expect, it } from 'vitest';
import { delegationEventDetail } from '../src/delegation/system-tools.js';

const CARD = '4242 4242 4242 4242';
const pkg = (status: string, code?: string) =>
  JSON.stringify({
    status,
    output_payload: {},
    log_summary: 'x',
    ...(code ? { error_report: { code, message: `unknown subagent_type "${CARD}"` } } : {}),
  });

describe('delegationEventDetail', () => {
  it('names the subagent a call ran with', () => {
    expect(delegationEventDetail({ subagent_type: 'worker' }, pkg('SUCCESS'), { depth: 0 })).toMatchObject({
      subagent: 'worker',
      status: 'SUCCESS',
    });
    expect(delegationEventDetail({ subagent_type: 'io.baton.agents.refunds' }, pkg('SUCCESS'), { depth: 0 }).subagent).toBe(
      'io.baton.agents.refunds',
    );
  });

  it('leaves out a subagent_type that is free text or that named no subagent', () => {
    const free = delegationEventDetail({ subagent_type: `pay with ${CARD}` }, pkg('FAILURE', 'ERR_UNKNOWN_SUBAGENT'), { depth: 0 });
    expect(free).not.toHaveProperty('subagent');
    expect(free.error_code).toBe('ERR_UNKNOWN_SUBAGENT');
    const unknown = delegationEventDetail({ subagent_type: '4242424242424242' }, pkg('FAILURE', 'ERR_UNKNOWN_SUBAGENT'), { depth: 0 });
    expect(unknown).not.toHaveProperty('subagent');
    expect(JSON.stringify([free, unknown])).not.toMatch(/4242/);
  });
});
