import {
  reconcilePacketAudit,
  type PacketGateRequest,
  type PacketHandoffGate,
  type PacketKeys,
  type ReconcileResult,
} from '@baton/packets';
import type { HandoffGate, ThreadStore } from '@baton/runner';
import type { PacketEntry } from './report-model.js';

/** A packet handoff as the demo saw it. */
export interface ObservedPacket {
  packetId: string;
  threadId: string;
  /** The source agent's run, cancelled by the handoff. */
  runId: string;
  source: string;
  destination: string;
  /** The exact first model request sent to the recipient (for reconciliation). */
  captured?: unknown;
}

/** What the demo narrates about handoffs through the packet gate. */
export interface PacketGateObserver {
  onPrepared(packet: ObservedPacket): void;
  onDenied(info: { source: string; destination: string; code: string; message: string }): void;
  onBoundary(packet: ObservedPacket): void;
}

/**
 * Wraps the stack's packet gate (@baton/packets' transfer gate over the example contract and
 * cases, with proof in the SQLite store) so the demo can narrate it and keep the recipient's
 * captured request for reconciliation. It only watches: decisions and errors pass through.
 */
export function observePacketGate(
  inner: PacketHandoffGate,
  observer: PacketGateObserver,
): { gate: HandoffGate; packets: ObservedPacket[] } {
  const packets: ObservedPacket[] = [];
  const gate: HandoffGate = {
    async prepare(request) {
      let prepared;
      try {
        prepared = await inner.prepare(request as PacketGateRequest);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        observer.onDenied({
          source: request.sourceAgentId,
          destination: request.targetAgentId,
          code: typeof code === 'string' ? code : 'ERROR',
          message: (err as Error).message,
        });
        throw err;
      }
      const packet: ObservedPacket = {
        packetId: prepared.packetId,
        threadId: request.threadId,
        runId: request.runId,
        source: request.sourceAgentId,
        destination: request.targetAgentId,
      };
      packets.push(packet);
      observer.onPrepared(packet);
      return {
        input: prepared.input,
        packetId: prepared.packetId,
        async onRecipientModelRequest(modelRequest: unknown) {
          packet.captured ??= modelRequest;
          await prepared.onRecipientModelRequest(modelRequest);
          observer.onBoundary(packet);
        },
      };
    },
  };
  return { gate, packets };
}

/** Reconciles each packet's captured request with its two audit records in the store. */
export async function reconcilePackets(
  packets: readonly ObservedPacket[],
  store: ThreadStore,
  auditKey: PacketKeys['auditKey'],
): Promise<Array<{ entry: PacketEntry; result: ReconcileResult }>> {
  const out: Array<{ entry: PacketEntry; result: ReconcileResult }> = [];
  for (const packet of packets) {
    const records = await store.listAudit(packet.threadId);
    const decision = records.find((r) => r.kind === 'handoff_decision' && r.data.packet_id === packet.packetId);
    const boundary = records.find((r) => r.kind === 'packet_boundary' && r.data.packet_id === packet.packetId);
    const result: ReconcileResult =
      !decision || !boundary || packet.captured === undefined
        ? {
            ok: false,
            problems: [
              `packet ${packet.packetId}: ${!decision ? 'no handoff_decision record' : !boundary ? 'no packet_boundary record' : 'no captured recipient request'}`,
            ],
          }
        : reconcilePacketAudit({ captured: packet.captured, boundaryRecord: boundary, decisionRecord: decision, auditKey });
    const fields = Array.isArray(decision?.data.fields) ? (decision.data.fields as Array<{ name?: unknown; class?: unknown }>) : [];
    out.push({
      result,
      entry: {
        packetId: packet.packetId,
        destination: packet.destination,
        purpose: String(decision?.data.purpose ?? ''),
        contractVersion: String(decision?.data.contract_version ?? ''),
        fields: fields.map((f) => ({ name: String(f.name), dataClass: String(f.class) })),
        // Stored as `hmac-sha256:<hex>`; the report shows the 64 hex digits.
        digest: String(boundary?.data.digest ?? '').replace(/^hmac-sha256:/, ''),
        reconciled: result.ok,
      },
    });
  }
  return out;
}
