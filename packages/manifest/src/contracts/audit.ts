/** One audit record as written: ids, names, classes and digests only, never payload content. */
export interface AuditRecordInput {
  /** Record id; the sink assigns one when absent. */
  id?: string;
  threadId: string;
  runId: string | null;
  kind: string;
  data: Record<string, unknown>;
}

/**
 * Where audit records go: the runner's `ThreadStore` fits (its `appendAudit`), and the packet gate
 * writes its decision and boundary records here. Rejecting means "unavailable".
 */
export interface AuditSink {
  appendAudit(record: AuditRecordInput): Promise<unknown>;
}
