/**
 * The one reason table: every reason code the engine answers with, its decision, its severity
 * rank (when several verdicts apply, the lowest rank of the winning decision is reported) and
 * what its message says. The engine derives its priorities, messages and MODIFY-to-BLOCK
 * fallbacks from this table alone.
 */
export interface ReasonEntry {
  readonly decision: 'ALLOW' | 'MODIFY' | 'BLOCK';
  /** 0 is the most severe; compared among reasons of the same decision. */
  readonly rank: number;
  /** What was found (BLOCK) or done (MODIFY), for the reason message. */
  readonly message: string;
  /** For MODIFY: the BLOCK reason when its redaction cannot be applied (a renamed key collides). */
  readonly blockedAs?: string;
  /** The message names no field (the verdict is about the whole call). */
  readonly wholeRequest?: boolean;
  /** The message leaves out the finding types (one type, or a score, says nothing more). */
  readonly omitTypes?: boolean;
}

export const REASONS = {
  CANARY_LEAK: { decision: 'BLOCK', rank: 0, message: 'a canary token' },
  SECRET_DETECTED: { decision: 'BLOCK', rank: 1, message: 'a secret or credential' },
  SYSTEM_PROMPT_LEAK: { decision: 'BLOCK', rank: 2, message: 'a verbatim fragment of a system prompt' },
  TOOL_POLICY_VIOLATION: {
    decision: 'BLOCK',
    rank: 3,
    message: 'a call to a sink tool on a thread that has read untrusted content',
    wholeRequest: true,
  },
  PROMPT_INJECTION: { decision: 'BLOCK', rank: 4, message: 'a prompt injection', omitTypes: true },
  EXFILTRATION_LINK: { decision: 'BLOCK', rank: 5, message: 'a URL that carries data to an outside host' },
  PII_DETECTED: { decision: 'BLOCK', rank: 6, message: 'personal data' },
  DETECTOR_FAILED: { decision: 'BLOCK', rank: 7, message: 'a detector failed', wholeRequest: true },
  PAYLOAD_TOO_COMPLEX: { decision: 'BLOCK', rank: 8, message: 'a payload that could not be inspected', wholeRequest: true },
  ABORTED: { decision: 'BLOCK', rank: 9, message: 'the validation was aborted before it ran', wholeRequest: true },
  SECRET_REDACTED: { decision: 'MODIFY', rank: 0, message: 'secrets were redacted', blockedAs: 'SECRET_DETECTED' },
  INJECTION_REMOVED: { decision: 'MODIFY', rank: 1, message: 'injected instructions were removed', blockedAs: 'PROMPT_INJECTION' },
  EXFILTRATION_LINK_REMOVED: { decision: 'MODIFY', rank: 2, message: 'data-carrying links were removed', blockedAs: 'EXFILTRATION_LINK' },
  PII_REDACTED: { decision: 'MODIFY', rank: 3, message: 'personal data was redacted', blockedAs: 'PII_DETECTED' },
  OK: { decision: 'ALLOW', rank: 0, message: 'no policy violation found' },
} as const satisfies Record<string, ReasonEntry>;

export type ReasonCode = keyof typeof REASONS;

/** The table's entry for a code. */
export function reasonOf(code: ReasonCode): ReasonEntry {
  return REASONS[code];
}

/** A MODIFY reason, or its BLOCK counterpart when the policy says BLOCK. */
export function reasonFor(decision: 'MODIFY' | 'BLOCK', modifyReason: ReasonCode): ReasonCode {
  const entry: ReasonEntry = REASONS[modifyReason];
  return decision === 'BLOCK' ? ((entry.blockedAs as ReasonCode | undefined) ?? modifyReason) : modifyReason;
}
