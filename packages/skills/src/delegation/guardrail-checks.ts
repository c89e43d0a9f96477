import { randomBytes, randomUUID } from 'node:crypto';
import { createGuardrailChecker, type GuardrailChecker } from '@baton/guardrail-client';
import type { BoundaryGuardrailCheck, GuardrailValidator } from '@baton/manifest';
import type { GuardrailDecisionRecord } from '@baton/manifest/contracts';
import { SkillsConfigError } from '../errors.js';

const AGENT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** A reverse-DNS id for a skill or agent, as guardrail requests require. */
export function guardrailAgentId(name: string): string {
  if (AGENT_ID.test(name)) return name;
  const label =
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'unnamed';
  return `io.baton.skill.${label}`;
}

/**
 * The checker delegation calls through: the one given (the runner's `guardrailChecker`, so its
 * timeout and fail policy apply) or one over the given validator. Without either, delegation is
 * refused like the runner refuses to start: Baton never crosses a boundary unchecked.
 */
export function delegationChecker(guardrails: GuardrailValidator | GuardrailChecker | undefined): GuardrailChecker {
  if (guardrails && typeof (guardrails as GuardrailChecker).check === 'function') return guardrails as GuardrailChecker;
  if (!guardrails || typeof (guardrails as GuardrailValidator).validate !== 'function') {
    throw new SkillsConfigError(
      'GUARDRAILS_REQUIRED',
      "createDelegation: `guardrails` (the runner's guardrailChecker, or a GuardrailValidator) is required; delegation never runs without guardrails",
    );
  }
  return createGuardrailChecker({ validator: guardrails as GuardrailValidator });
}

function traceFrom(traceparent: string | undefined): { trace_id: string; span_id: string } {
  const m = traceparent ? /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(traceparent) : null;
  if (m && !/^0+$/.test(m[1] as string)) return { trace_id: m[1] as string, span_id: m[2] as string };
  return { trace_id: randomBytes(16).toString('hex'), span_id: randomBytes(8).toString('hex') };
}

/** The outcome of a text guardrail check: the text to use, or why it was blocked. */
export type TextCheck = { ok: true; text: string; modified: boolean } | { ok: false; reason: string };

/** Where a boundary check goes: the run's recorded check when there is one, else the checker. */
export interface TextCheckOptions {
  threadId?: string;
  traceparent?: string;
  signal?: AbortSignal;
  /** The runner's recorded check (`ToolContext.checkBoundary`); preferred over the checker. */
  checkBoundary?: BoundaryGuardrailCheck;
  /** The subagent's delegation depth (the caller's + 1), for the recorded decision. */
  depth: number;
}

/**
 * A boundary check through the delegation's own checker (no run to record into): it builds the
 * request, bounds it in time, verifies the answer and applies the fail policy. With `sink`, each
 * decision is also kept as the record a run would list, so a dispatched task's worker can hand
 * its decisions back to the delegating run (`runDelegated`'s `guardrail_decisions`).
 */
export function checkerBoundaryCheck(
  checker: GuardrailChecker,
  opts: { threadId?: string; traceparent?: string },
  sink?: GuardrailDecisionRecord[],
): BoundaryGuardrailCheck {
  return async (check) => {
    const r = await checker.check({
      actionType: check.actionType,
      payload: check.payload,
      sourceAgentId: check.agentId,
      threadId: opts.threadId ?? `delegation-${randomUUID()}`,
      trace: traceFrom(opts.traceparent),
      ...(opts.traceparent ? { headers: { traceparent: opts.traceparent } } : {}),
      ...(check.signal ? { signal: check.signal } : {}),
    });
    sink?.push({
      action_type: check.actionType,
      decision: r.decision,
      reason_code: r.reasonCode,
      agent_id: check.agentId,
      ...(r.findings && r.findings.length > 0 ? { findings: r.findings } : {}),
    });
    return {
      decision: r.decision,
      reasonCode: r.reasonCode,
      reasonMessage: r.reasonMessage,
      payload: r.payload,
      failed: r.failure !== undefined,
    };
  };
}

/**
 * Runs an AGENT_INPUT or AGENT_RESPONSE check at a subagent's boundary. Inside a run it goes
 * through the runner's `checkBoundary`, which calls the runner's checker and records the decision
 * like the run's own; on a worker running a dispatched task, through a check that keeps the
 * decisions for the delegating run; otherwise through the checker. Either way one checker decides.
 */
export async function checkText(
  checker: GuardrailChecker,
  actionType: 'AGENT_INPUT' | 'AGENT_RESPONSE',
  agent: string,
  text: string,
  opts: TextCheckOptions,
): Promise<TextCheck> {
  const check = opts.checkBoundary ?? checkerBoundaryCheck(checker, opts);
  const res = await check({
    actionType,
    payload: text,
    agentId: guardrailAgentId(agent),
    boundary: 'delegation',
    subject: agent,
    depth: opts.depth,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (res.decision === 'ALLOW') return { ok: true, text, modified: false };
  if (res.decision === 'MODIFY') return { ok: true, text: res.payload, modified: true };
  const closed = res.failed ? ' (fail closed)' : '';
  return { ok: false, reason: `${actionType} guardrail blocked${closed} (${res.reasonCode}): ${res.reasonMessage}` };
}
