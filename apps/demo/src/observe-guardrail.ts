import type { Finding, GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { parsePacketInput } from '@baton/packets';

/** One guardrail decision as the demo saw it go by (no payload content). */
export interface ObservedDecision {
  actionType: GuardrailRequest['action_type'];
  agentId: string;
  /** The tool, for TOOL_CALL / TOOL_OUTPUT; the target, for AGENT_HANDOFF. */
  subject?: string;
  /** What was checked, when the action type alone does not say (e.g. a packet's contents). */
  about?: string;
  decision: GuardrailResponse['decision'];
  reasonCode: string;
  reasonMessage: string;
  findings: Finding[];
}

/**
 * Wraps a validator so every decision is reported as it is made. The wrapped validator decides;
 * this only watches (a throwing listener cannot change a decision).
 */
export function observeGuardrail(inner: GuardrailValidator, onDecision: (decision: ObservedDecision) => void): GuardrailValidator {
  return {
    async validate(request: GuardrailRequest, options?: GuardrailCallOptions): Promise<GuardrailResponse> {
      const response = await inner.validate(request, options);
      try {
        onDecision({
          actionType: request.action_type,
          agentId: request.source_agent_id,
          ...subjectOf(request),
          decision: response.decision,
          reasonCode: response.reason_code,
          reasonMessage: response.reason_message,
          findings: response.findings ?? [],
        });
      } catch {
        // Narration must never alter a security decision.
      }
      return response;
    },
  };
}

function subjectOf(request: GuardrailRequest): { subject?: string; about?: string } {
  switch (request.action_type) {
    case 'TOOL_CALL':
      return { subject: request.payload.function.name };
    case 'TOOL_OUTPUT':
      return { subject: request.payload.name };
    case 'AGENT_HANDOFF':
      // @baton/packets checks what crosses (the rendered packet) as a second AGENT_HANDOFF.
      return {
        subject: request.payload.target_agent_id,
        ...(parsePacketInput(request.payload.input) !== undefined ? { about: 'packet contents' } : {}),
      };
    default:
      return {};
  }
}
