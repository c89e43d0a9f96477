import { inputDigest, viewModelRequest } from './audit/boundary.js';
import type { AuditRecordLike, FieldClassification } from './audit/records.js';
import { HANDOFF_DECISION_KIND, PACKET_BOUNDARY_KIND } from './audit/records.js';
import { digestsEqual } from './keys.js';
import { parsePacketInput } from './render.js';
import { stateIsPacketView } from './state-view.js';

export interface ReconcilePacketAuditOptions {
  /** The captured model request sent to the recipient (or its bare `input`), or the object written to a subprocess recipient's stdin. */
  captured: unknown;
  /** The `packet_boundary` audit record. */
  boundaryRecord: AuditRecordLike;
  /** The `handoff_decision` audit record. */
  decisionRecord: AuditRecordLike;
  /** The audit key the digest was made with. */
  auditKey: string | Uint8Array;
}

export interface ReconcileResult {
  ok: boolean;
  /** One sentence per disagreement; empty when `ok`. */
  problems: string[];
}

/**
 * Checks that a captured recipient request, its boundary record and the handoff decision agree:
 * the digest recomputes, the input is exactly one packet whose manifest (id, destination, contract
 * version, fields and classes) matches both records, the decision allowed it, and no server-managed
 * history id went along.
 */
export function reconcilePacketAudit(options: ReconcilePacketAuditOptions): ReconcileResult {
  const problems: string[] = [];
  const b = options.boundaryRecord.data;
  const d = options.decisionRecord.data;
  if (options.boundaryRecord.kind !== PACKET_BOUNDARY_KIND)
    problems.push(`boundary record has kind '${options.boundaryRecord.kind}', expected '${PACKET_BOUNDARY_KIND}'`);
  if (options.decisionRecord.kind !== HANDOFF_DECISION_KIND)
    problems.push(`decision record has kind '${options.decisionRecord.kind}', expected '${HANDOFF_DECISION_KIND}'`);
  if (b.decision_record_id !== options.decisionRecord.id) problems.push('boundary record is not linked to this decision record');
  if (d.decision !== 'allow') problems.push(`decision record says '${String(d.decision)}', not 'allow'`);

  const view = viewModelRequest(options.captured);
  let digest: string | undefined;
  try {
    digest = inputDigest(options.auditKey, view);
  } catch {
    problems.push('captured input is not JSON data');
  }
  if (digest !== undefined && (typeof b.digest !== 'string' || !digestsEqual(digest, b.digest))) {
    problems.push('digest of the captured input does not match the boundary record');
  }
  if (view.previousResponseIdPresent) problems.push('captured request carries a previous response id');
  if (view.conversationIdPresent) problems.push('captured request carries a conversation id');

  for (const key of ['packet_id', 'destination', 'contract_version'] as const) {
    if (b[key] !== d[key]) problems.push(`${key} differs between boundary record and decision record`);
  }
  if (!sameFields(b.fields, d.fields)) problems.push('field classifications differ between boundary record and decision record');

  if (typeof b.transport === 'string' && b.transport !== view.transport)
    problems.push(`captured request is a ${view.transport}, the boundary record says ${b.transport}`);
  const text = view.text;
  const packet = text === undefined ? undefined : parsePacketInput(text);
  if (!packet) {
    problems.push('captured input is not exactly one rendered packet');
  } else {
    if (packet.packet_id !== b.packet_id) problems.push('packet id in the captured input differs from the boundary record');
    if (packet.recipient !== b.destination) problems.push('recipient in the captured input differs from the boundary record');
    if (packet.contract_version !== b.contract_version)
      problems.push('contract version in the captured input differs from the boundary record');
    const sent = Object.entries(packet.field_classes)
      .map(([name, cls]) => `${name}:${cls}`)
      .sort();
    const recorded = Array.isArray(b.fields) ? (b.fields as FieldClassification[]).map((f) => `${f.name}:${f.class}`).sort() : [];
    if (sent.join(',') !== recorded.join(',')) problems.push('fields in the captured packet differ from the boundary record');
    const undeclared = [...Object.keys(packet.fields), ...Object.keys(packet.references).filter((k) => k !== 'case')].filter(
      (k) => !Object.hasOwn(packet.field_classes, k),
    );
    if (undeclared.length > 0) problems.push(`captured packet carries unclassified fields: ${undeclared.join(', ')}`);
    if (view.transport === 'process_stdin' && !stateIsPacketView(view.state, packet))
      problems.push("captured stdin state is not exactly the packet's approved fields");
  }
  return { ok: problems.length === 0, problems };
}

function sameFields(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  const key = (list: unknown[]): string =>
    list
      .map((f) => {
        const r = f as FieldClassification;
        return `${r.name}:${r.class}:${r.as}`;
      })
      .sort()
      .join(',');
  return key(a) === key(b);
}
