import type { GuardrailValidator } from '@baton/manifest';

/** A labelled test guardrail that allows everything (delegation refuses to run without one). */
export const allowAllGuardrail: GuardrailValidator = {
  validate: async (request) => ({ action_id: request.action_id, decision: 'ALLOW', reason_code: 'TEST_ALLOW', reason_message: 'test guardrail' }),
};
