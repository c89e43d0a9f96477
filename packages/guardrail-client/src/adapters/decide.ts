import type { ActionType, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { createGuardrailChecker, type GuardrailChecker, type GuardrailCheckInput } from '../checker.js';
import type { GuardrailAdapterOptions } from './request-factory.js';

/** The adapter's checker over its validator (the one call path: timeout, verification, fail policy). */
export function adapterChecker(validator: GuardrailValidator, options: GuardrailAdapterOptions): GuardrailChecker {
  return createGuardrailChecker({
    validator,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.failOpen ? { failOpen: options.failOpen } : {}),
    ...(options.generateId ? { generateId: options.generateId } : {}),
  });
}

/** Checks through the checker and answers in the response's shape (what `outputInfo` reports). */
export async function decide<A extends ActionType>(checker: GuardrailChecker, input: GuardrailCheckInput<A>): Promise<GuardrailResponse> {
  const result = await checker.check(input);
  return {
    action_id: result.actionId,
    decision: result.decision,
    reason_code: result.reasonCode,
    reason_message: result.reasonMessage,
    ...(result.decision === 'MODIFY' ? { modified_payload: result.payload } : {}),
    ...(result.findings ? { findings: result.findings } : {}),
  };
}
