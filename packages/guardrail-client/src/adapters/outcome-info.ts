import type { GuardrailResponse } from '@baton/manifest';

/** What adapters put in the SDK's `outputInfo`: the decision and findings, never payload text. */
export interface GuardrailOutcomeInfo {
  action_id: string;
  decision: GuardrailResponse['decision'];
  reason_code: string;
  reason_message: string;
  findings: NonNullable<GuardrailResponse['findings']>;
}

export function outcomeInfo(response: GuardrailResponse): GuardrailOutcomeInfo {
  return {
    action_id: response.action_id,
    decision: response.decision,
    reason_code: response.reason_code,
    reason_message: response.reason_message,
    findings: response.findings ?? [],
  };
}

/** The model-visible text for a refused call or output. Reasons never carry payload values. */
export function refusalMessage(what: string, response: GuardrailResponse): string {
  return `${what} blocked by guardrail (${response.reason_code}): ${response.reason_message}`;
}
