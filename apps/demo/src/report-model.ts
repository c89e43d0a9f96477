/** Everything the HTML run report shows; collected while the demo runs. No payload content. */
export interface ReportModel {
  title: string;
  traceId: string;
  /** ISO time the demo started. */
  startedAt: string;
  durationMs: number;
  /** Which model produced the run, e.g. "offline model". */
  model: string;
  events: TimelineEvent[];
  packets: PacketEntry[];
  summary: SummaryEntry[];
  /** Where the artifacts of the run live. */
  artifacts: Array<{ label: string; path: string }>;
}

export type TimelineKind = 'run' | 'model' | 'handoff' | 'delegation' | 'guardrail' | 'tool' | 'packet' | 'edit' | 'approval' | 'note';

export interface TimelineEvent {
  /** Milliseconds since the demo started. */
  atMs: number;
  kind: TimelineKind;
  /** The agent or skill acting. */
  actor: string;
  /** Delegation depth (0 = top level). */
  depth: number;
  title: string;
  detail?: string;
  /** Guardrail decision, approval result or run status. */
  outcome?: string;
  /** Detector findings: types and offsets only. */
  findings?: Array<{ detector: string; type: string; severity: string; start: number; end: number }>;
}

export interface PacketEntry {
  packetId: string;
  destination: string;
  purpose: string;
  contractVersion: string;
  fields: Array<{ name: string; dataClass: string }>;
  digest: string;
  reconciled: boolean;
}

export interface SummaryEntry {
  label: string;
  value: string;
  ok: boolean;
}
