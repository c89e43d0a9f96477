import { randomBytes, randomUUID } from 'node:crypto';
import type { GuardrailValidator } from '@baton/manifest';
import { TaskBlockedError } from './errors.js';

/** How a packet is checked by a guardrail before it crosses (an AGENT_HANDOFF request). */
export interface PacketGuardrailOptions {
  /** The guardrail engine or HTTP client. */
  validator: GuardrailValidator;
  /** The coordinator agent's id (reverse-DNS), reported as `source_agent_id`. */
  sourceAgentId: string;
  /** Thread the handoff happens on. */
  threadId: string;
  /** Trace id (32 hex) to correlate with; a random one otherwise. */
  traceId?: string;
  /** Aborts the guardrail call (an abort is a block). */
  signal?: AbortSignal;
}

/**
 * Sends the task and the packet's fields as an AGENT_HANDOFF request. Anything but ALLOW stops the
 * packet: BLOCK, MODIFY (a packet is not silently rewritten) and a failing validator alike.
 */
export async function checkPacketWithGuardrail(
  options: PacketGuardrailOptions,
  payload: { targetAgentId: string; task: string; state: Record<string, unknown> },
): Promise<void> {
  let response;
  try {
    response = await options.validator.validate(
      {
        action_id: randomUUID(),
        action_type: 'AGENT_HANDOFF',
        source_agent_id: options.sourceAgentId,
        thread_id: options.threadId,
        trace: { trace_id: options.traceId ?? randomBytes(16).toString('hex'), span_id: randomBytes(8).toString('hex') },
        payload: { target_agent_id: payload.targetAgentId, input: payload.task, state: payload.state },
      },
      options.signal ? { signal: options.signal } : undefined,
    );
  } catch (err) {
    throw new TaskBlockedError('task blocked: the guardrail could not be consulted (fail closed)', undefined, { cause: err });
  }
  if (response.decision !== 'ALLOW') {
    throw new TaskBlockedError(`task blocked: guardrail answered ${response.decision} (${response.reason_code})`, response.reason_code);
  }
}
