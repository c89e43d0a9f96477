import { GuardrailResponseSchema, payloadSchemaFor, type GuardrailRequest, type GuardrailResponse } from '@baton/manifest';
import { GUARDRAIL_REASON_CODES as CLIENT_REASON_CODES, type GuardrailReasonCode as ClientReasonCode } from './outcomes.js';

/** A response we can act on, or why we can't (the caller turns that into a BLOCK). */
export type VerifiedResponse = { ok: true; response: GuardrailResponse } | { ok: false; code: ClientReasonCode; message: string };

/**
 * Checks that a decision fits the contract and this request: schema, echoed action_id, and for
 * MODIFY a `modified_payload` that is a valid payload of the same action type (for TOOL_CALL: the
 * same call id and tool name, arguments still a JSON object).
 */
export function verifyResponse(request: GuardrailRequest, body: unknown): VerifiedResponse {
  const parsed = GuardrailResponseSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
    return {
      ok: false,
      code: CLIENT_REASON_CODES.badResponse,
      message: `guardrail response does not match the contract (${where}: ${issue?.message ?? 'invalid'})`,
    };
  }
  const response = parsed.data;
  if (response.action_id !== request.action_id) {
    return {
      ok: false,
      code: CLIENT_REASON_CODES.actionIdMismatch,
      message: `guardrail response is for action ${response.action_id}, not ${request.action_id}`,
    };
  }
  if (response.decision !== 'MODIFY') return { ok: true, response };

  if (response.modified_payload === undefined) {
    return { ok: false, code: CLIENT_REASON_CODES.invalidModify, message: 'MODIFY decision without a modified_payload' };
  }
  const payload = payloadSchemaFor(request.action_type).safeParse(response.modified_payload);
  if (!payload.success) {
    const issue = payload.error.issues[0];
    const where = issue && issue.path.length > 0 ? `modified_payload.${issue.path.map(String).join('.')}` : 'modified_payload';
    return {
      ok: false,
      code: CLIENT_REASON_CODES.invalidModify,
      message: `MODIFY payload is not a valid ${request.action_type} payload (${where}: ${issue?.message ?? 'invalid'})`,
    };
  }
  if (request.action_type === 'TOOL_CALL') {
    const modified = payload.data as typeof request.payload;
    if (modified.id !== request.payload.id || modified.function.name !== request.payload.function.name) {
      return { ok: false, code: CLIENT_REASON_CODES.invalidModify, message: 'MODIFY payload changes the tool call id or tool name' };
    }
  }
  if (request.action_type === 'TOOL_OUTPUT') {
    const modified = payload.data as typeof request.payload;
    if (modified.tool_call_id !== request.payload.tool_call_id || modified.name !== request.payload.name) {
      return { ok: false, code: CLIENT_REASON_CODES.invalidModify, message: 'MODIFY payload changes the tool call id or tool name' };
    }
  }
  return { ok: true, response: { ...response, modified_payload: payload.data } };
}
