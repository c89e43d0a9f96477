import type { Decision, HandoffPayload } from './guardrail.js';

/** What a handoff check decided (no payload: a crossing is never silently rewritten here). */
export interface HandoffCheckOutcome {
  decision: Decision;
  reasonCode: string;
  reasonMessage: string;
}

/**
 * Checks what actually crosses a handoff (target, the recipient's whole input, the state it
 * receives) as one AGENT_HANDOFF guardrail decision, recorded by the runner that supplies it (its
 * trace span, audit and `RunResult.guardrail_decisions`). Never throws: a failed check is a BLOCK.
 */
export type HandoffGuardrailCheck = (crossing: HandoffPayload) => Promise<HandoffCheckOutcome>;
