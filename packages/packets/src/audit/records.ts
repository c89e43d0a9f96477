/**
 * Audit record shapes. They hold ids, names, classes and digests — never field values, task text
 * or credentials — so routine audit storage does not become a wider disclosure channel.
 */

/** Where audit records go: the one contract, `@baton/manifest/contracts`' `AuditSink` (the runner's `ThreadStore` fits). */
export type { AuditSink } from '@baton/manifest/contracts';

/** A stored audit record as read back (`ThreadStore.listAudit` returns these). */
export interface AuditRecordLike {
  id: string;
  kind: string;
  data: Record<string, unknown>;
}

export const HANDOFF_DECISION_KIND = 'handoff_decision';
export const PACKET_BOUNDARY_KIND = 'packet_boundary';

/** A field that crossed, by name and data class only. */
export interface FieldClassification {
  name: string;
  class: string;
  as: 'value' | 'reference';
}

/** `data` of a `handoff_decision` record. */
export interface HandoffDecisionData {
  schema: 'baton.packets.handoff_decision/1';
  decision: 'allow' | 'deny';
  /** `ALLOWED`, or the stop's error code. */
  code: string;
  packet_id: string | null;
  source: string;
  destination: string;
  purpose: string | null;
  contract_version: string | null;
  tenant: string | null;
  /** The scoped opaque case reference (never the raw case id). */
  case_reference: string | null;
  fields: FieldClassification[];
  provider: { name: string; retention_days: number; zero_data_retention: boolean } | null;
}

/** `data` of a `packet_boundary` record. */
export interface PacketBoundaryData {
  schema: 'baton.packets.packet_boundary/1';
  packet_id: string;
  destination: string;
  contract_version: string;
  fields: FieldClassification[];
  /** `model_request` (an in-process recipient's first model call) or `process_stdin` (a subprocess recipient). */
  transport: 'model_request' | 'process_stdin';
  /** `hmac-sha256:<hex>` over the canonical JSON (RFC 8785) of the request's `input`, or of the whole stdin object. */
  digest: string;
  canonicalization: 'RFC8785';
  /** Id of the `handoff_decision` record this crossing was allowed by. */
  decision_record_id: string;
  /** Whether the input was exactly the rendered packet and nothing else (and, on stdin, `state` exactly the packet's state view). */
  input_is_packet: boolean;
  /** Number of input items sent (1 for a lone packet message). */
  input_items: number;
  /** Whether the request tried to continue server-managed history. */
  previous_response_id_present: boolean;
  conversation_id_present: boolean;
}
