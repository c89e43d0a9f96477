import { reconcilePacketAudit, type PacketKeys, type ReconcileResult } from '@baton/packets';
import type { ThreadStore } from '@baton/runner';
import type { CapturedRequest } from './captures.js';
import type { PacketEntry } from './report-model.js';
import type { ObservedPacket } from './run-events.js';

/**
 * Reconciles each packet (from the runner's `handoff` events) with its two audit records in the
 * store and the recipient's first model request as captured (`onModelRequest`): the request the
 * boundary record's digest must match.
 */
export async function reconcilePackets(
  packets: readonly ObservedPacket[],
  requests: readonly CapturedRequest[],
  store: ThreadStore,
  auditKey: PacketKeys['auditKey'],
): Promise<Array<{ entry: PacketEntry; result: ReconcileResult; boundaryRecorded: boolean }>> {
  const out: Array<{ entry: PacketEntry; result: ReconcileResult; boundaryRecorded: boolean }> = [];
  for (const packet of packets) {
    const first = requests.filter((r) => r.runId === packet.toRunId).sort((a, b) => a.sequence - b.sequence)[0];
    const captured: unknown = first ? JSON.parse(first.json) : undefined;
    const records = await store.listAudit(packet.threadId);
    const decision = records.find((r) => r.kind === 'handoff_decision' && r.data.packet_id === packet.packetId);
    const boundary = records.find((r) => r.kind === 'packet_boundary' && r.data.packet_id === packet.packetId);
    const result: ReconcileResult =
      !decision || !boundary || captured === undefined
        ? {
            ok: false,
            problems: [
              `packet ${packet.packetId}: ${!decision ? 'no handoff_decision record' : !boundary ? 'no packet_boundary record' : 'no captured recipient request'}`,
            ],
          }
        : reconcilePacketAudit({ captured, boundaryRecord: boundary, decisionRecord: decision, auditKey });
    const fields = Array.isArray(decision?.data.fields) ? (decision.data.fields as Array<{ name?: unknown; class?: unknown }>) : [];
    out.push({
      result,
      boundaryRecorded: boundary !== undefined,
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
