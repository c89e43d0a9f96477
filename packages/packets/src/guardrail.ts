import type { HandoffGuardrailCheck, HandoffPacket } from '@baton/manifest';
import { TaskBlockedError } from './errors.js';
import { renderPacketInput } from './render.js';
import { packetStateView } from './state-view.js';

/** How a packet is checked by a guardrail before it crosses (one AGENT_HANDOFF decision). */
export interface PacketGuardrailOptions {
  /**
   * The check, from the caller's guardrail checker: the Baton runner supplies
   * `HandoffGateRequest.checkHandoff` (recorded in its trace, audit and `guardrail_decisions`);
   * elsewhere build one over `@baton/guardrail-client`'s `createGuardrailChecker`.
   */
  check: HandoffGuardrailCheck;
  /** How the packet becomes the recipient's input (default `renderPacketInput`): what is checked is what crosses. */
  renderInput?(packet: HandoffPacket): string;
}

/**
 * Checks what crosses: the recipient, the rendered packet (its whole input) and the packet's
 * state view. Anything but ALLOW stops the packet: BLOCK, MODIFY (a packet is not silently
 * rewritten) and a failed check (the checker's BLOCK) alike; a check that throws is a block too.
 */
export async function checkPacketWithGuardrail(options: PacketGuardrailOptions, packet: HandoffPacket): Promise<void> {
  let outcome;
  try {
    outcome = await options.check({
      target_agent_id: packet.recipient,
      input: (options.renderInput ?? renderPacketInput)(packet),
      state: packetStateView(packet),
    });
  } catch (err) {
    throw new TaskBlockedError('task blocked: the guardrail could not be consulted (fail closed)', undefined, { cause: err });
  }
  if (!outcome || outcome.decision !== 'ALLOW') {
    const code = typeof outcome?.reasonCode === 'string' ? outcome.reasonCode : undefined;
    throw new TaskBlockedError(`task blocked: guardrail answered ${outcome?.decision ?? 'nothing'}${code ? ` (${code})` : ''}`, code);
  }
}
