import type { Decision, HandoffPayload } from './guardrail.js';
import type { GuardrailDecisionRecord } from './run.js';

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

/**
 * A guardrail check a tool makes at a boundary it opens itself: `delegate_task` checks what a
 * subagent is told (AGENT_INPUT) and what it yields (AGENT_RESPONSE). The runner that supplies it
 * (`ToolContext.checkBoundary`) makes it through its own checker and records it like its own
 * decisions: trace span, audit, `RunResult.guardrail_decisions` and a `guardrail_decision` event.
 */
export interface BoundaryCheck {
  actionType: 'AGENT_INPUT' | 'AGENT_RESPONSE';
  /** The text that crosses. */
  payload: string;
  /** The agent or skill whose boundary it is, as a reverse-DNS id (the request's `source_agent_id`). */
  agentId: string;
  /** The boundary's kind (only delegation today). */
  boundary: 'delegation';
  /** The subagent's name as the caller asked for it (`subagent_type`), for events. */
  subject: string;
  /** The subagent's delegation depth (the caller's + 1). */
  depth: number;
  signal?: AbortSignal;
}

/** What a boundary check decided: the text to go on with (the modified one after a MODIFY). */
export interface BoundaryCheckOutcome {
  decision: Decision;
  reasonCode: string;
  reasonMessage: string;
  payload: string;
  /** True when no guardrail answered (timeout, outage, unverifiable answer) and the fail policy decided. */
  failed: boolean;
}

/** Makes and records one {@link BoundaryCheck}. Never throws: a failed check is a BLOCK (or ALLOW where fail-open is configured). */
export type BoundaryGuardrailCheck = (check: BoundaryCheck) => Promise<BoundaryCheckOutcome>;

/**
 * Boundary decisions made elsewhere, for the runner to record: a dispatched delegation's worker
 * checked its subagent's input and yield with its own checker, and the delegating tool hands the
 * decisions it got back to its run.
 */
export interface BoundaryDecisionReport {
  /** The decisions, in the order they were made (validated: `GuardrailDecisionRecordSchema`). */
  decisions: readonly GuardrailDecisionRecord[];
  /** The boundary's kind (only delegation today). */
  boundary: 'delegation';
  /** The subagent's name as the caller asked for it (`subagent_type`). */
  subject: string;
  /** The subagent's delegation depth (the caller's + 1). */
  depth: number;
}

/**
 * Records a {@link BoundaryDecisionReport} exactly as a {@link BoundaryGuardrailCheck}'s decision
 * is recorded. Resolves to true when every decision was recorded, false when the runner could not
 * record them (the tool's call ended, or the report is malformed: then it records one BLOCK in
 * their place). A caller given false must not let the subtask's result count as allowed (fail
 * closed). Never throws.
 */
export type BoundaryDecisionRecorder = (report: BoundaryDecisionReport) => Promise<boolean>;
