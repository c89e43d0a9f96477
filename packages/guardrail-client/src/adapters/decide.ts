import type { GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { CLIENT_REASON_CODES } from '../outcomes.js';
import { verifyResponse } from '../verify-response.js';

/**
 * Asks the validator and holds the answer to the contract, whatever validator it is (a raw
 * engine, a test double): a throw or an unusable response is a BLOCK that says why.
 */
export async function decide(validator: GuardrailValidator, request: GuardrailRequest, call: GuardrailCallOptions): Promise<GuardrailResponse> {
  let body: unknown;
  try {
    body = await validator.validate(request, call);
  } catch (err) {
    const name = err instanceof Error ? err.name : typeof err;
    return { action_id: request.action_id, decision: 'BLOCK', reason_code: CLIENT_REASON_CODES.engineError, reason_message: `guardrail validator threw ${name}` };
  }
  const verified = verifyResponse(request, body);
  if (verified.ok) return verified.response;
  return { action_id: request.action_id, decision: 'BLOCK', reason_code: verified.code, reason_message: verified.message };
}
