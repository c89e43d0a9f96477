import { randomBytes, randomUUID } from 'node:crypto';
import type { GuardrailValidator } from '@baton/manifest';

const AGENT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** A reverse-DNS id for a skill or agent, as guardrail requests require. */
export function guardrailAgentId(name: string): string {
  if (AGENT_ID.test(name)) return name;
  const label = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63) || 'unnamed';
  return `io.baton.skill.${label}`;
}

function traceFrom(traceparent: string | undefined): { trace_id: string; span_id: string } {
  const m = traceparent ? /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(traceparent) : null;
  if (m && !/^0+$/.test(m[1] as string)) return { trace_id: m[1] as string, span_id: m[2] as string };
  return { trace_id: randomBytes(16).toString('hex'), span_id: randomBytes(8).toString('hex') };
}

/** The outcome of a text guardrail check: the text to use, or why it was blocked. */
export type TextCheck = { ok: true; text: string; modified: boolean } | { ok: false; reason: string };

/**
 * Runs an AGENT_INPUT or AGENT_RESPONSE check. Fail closed: a thrown error, or a MODIFY without a
 * string `modified_payload`, is a block.
 */
export async function checkText(
  validator: GuardrailValidator | undefined,
  actionType: 'AGENT_INPUT' | 'AGENT_RESPONSE',
  agent: string,
  text: string,
  opts: { threadId?: string; traceparent?: string; signal?: AbortSignal },
): Promise<TextCheck> {
  if (!validator) return { ok: true, text, modified: false };
  try {
    const res = await validator.validate(
      {
        action_id: randomUUID(),
        action_type: actionType,
        source_agent_id: guardrailAgentId(agent),
        thread_id: opts.threadId ?? `delegation-${randomUUID()}`,
        trace: traceFrom(opts.traceparent),
        payload: text,
      },
      { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.traceparent ? { traceparent: opts.traceparent } : {}) },
    );
    if (res.decision === 'ALLOW') return { ok: true, text, modified: false };
    if (res.decision === 'MODIFY' && typeof res.modified_payload === 'string') return { ok: true, text: res.modified_payload, modified: true };
    return { ok: false, reason: `${actionType} guardrail ${res.decision === 'MODIFY' ? 'returned an unusable MODIFY' : 'blocked'} (${res.reason_code}): ${res.reason_message}` };
  } catch (err) {
    return { ok: false, reason: `${actionType} guardrail failed, so the action is blocked (fail closed): ${(err as Error).message}` };
  }
}
