import type { ReconcileResult } from '@baton/packets';
import type { RunResult } from '@baton/runner';
import type { CapturedRequest } from './captures.js';
import type { PacketEntry } from './report-model.js';
import type { ObservedDecision } from './run-events.js';
import type { ObservedDelegation, ObservedToolCall } from './store-facts.js';

/** Everything the demo observed; the expectations are checked against it, not against the script. */
export interface DemoFacts {
  run: RunResult;
  decisions: ObservedDecision[];
  toolCalls: ObservedToolCall[];
  delegations: ObservedDelegation[];
  packets: Array<{ entry: PacketEntry; result: ReconcileResult }>;
  /** Model requests sent to the packet's recipient. */
  recipientRequests: CapturedRequest[];
  recipientAgentId: string;
  canaries: string[];
  files: { modified: string[]; deleted: string[]; added: string[] };
  /** Audit records in the SQLite store, by kind. */
  auditCounts: Record<string, number>;
  /** Spans in the JSONL file that carry the run's trace id. */
  spansWithTraceId: number;
  /** The file the clean-up delegation wanted deleted, and whether it is still there. */
  protectedFile: { path: string; exists: boolean };
  /** The host the exfiltration link pointed at. */
  exfilHost: string;
}

export interface Expectation {
  label: string;
  ok: boolean;
  /** What was observed (shown whether it passed or not). */
  detail: string;
}

const CARD = /\b(?:\d[ -]?){13,19}\b/;

/** Checks every behaviour the demo promises; each failure names what did not happen. */
export function checkExpectations(f: DemoFacts): Expectation[] {
  const find = (type: string, subject: string | undefined, decisions: string[]) =>
    f.decisions.find((d) => d.actionType === type && (subject === undefined || d.subject === subject) && decisions.includes(d.decision));
  const blocked = find('TOOL_OUTPUT', 'get_case', ['BLOCK']);
  const email = find('TOOL_CALL', 'send_customer_email', ['MODIFY']);
  const sent = f.toolCalls.find((c) => c.tool === 'send_customer_email');
  const body = typeof sent?.args.body === 'string' ? sent.args.body : '';
  const response = find('AGENT_RESPONSE', undefined, ['MODIFY', 'BLOCK']);
  const coder = f.delegations.find((d) => d.subagent === 'coder');
  const reviewer = f.delegations.find((d) => d.subagent === 'reviewer');
  const cleaner = f.delegations.find((d) => d.subagent === 'cleaner');
  const leaked = f.canaries.filter((c) => f.recipientRequests.some((r) => r.json.includes(c)));
  const reconciled = f.packets.filter((p) => p.result.ok).length;
  const audit = (kind: string) => f.auditCounts[kind] ?? 0;

  return [
    {
      label: 'Injected tool output blocked',
      ok: blocked !== undefined,
      detail: blocked ? `TOOL_OUTPUT get_case → BLOCK (${blocked.reasonCode})` : 'no TOOL_OUTPUT BLOCK for get_case',
    },
    {
      label: 'PII redacted in the outgoing e-mail',
      ok: email !== undefined && email.findings.length > 0 && sent !== undefined && !CARD.test(body) && body.includes('[REDACTED:'),
      detail: email
        ? `TOOL_CALL send_customer_email → MODIFY (${[...new Set(email.findings.map((x) => x.type))].join(', ')}); the mail gateway ${sent ? (CARD.test(body) ? 'still received a card number' : 'received the redacted body') : 'was never called'}`
        : 'no TOOL_CALL MODIFY for send_customer_email',
    },
    {
      label: 'Purpose-bound packet handed off',
      ok: f.packets.length > 0 && f.run.runs.some((r) => r.agent_id === f.recipientAgentId),
      detail:
        f.packets.length > 0
          ? f.packets.map((p) => `${p.entry.packetId} → ${p.entry.destination} (${p.entry.purpose})`).join('; ')
          : 'no packet was built',
    },
    {
      label: 'Packets reconciled with the audit records',
      ok: f.packets.length > 0 && reconciled === f.packets.length,
      detail: `${reconciled}/${f.packets.length} reconciled${f.packets
        .flatMap((p) => p.result.problems)
        .map((p) => `; ${p}`)
        .join('')}`,
    },
    {
      label: 'No canary reached the specialist',
      ok: f.recipientRequests.length > 0 && leaked.length === 0,
      detail:
        f.recipientRequests.length === 0
          ? 'no request to the specialist was captured'
          : `${f.recipientRequests.length} captured request(s), ${leaked.length} canary hit(s)`,
    },
    {
      label: 'Code fix delegated and applied',
      ok: coder?.status === 'SUCCESS' && f.files.modified.length > 0,
      detail: coder
        ? `coder → ${coder.status}${coder.errorMessage ? ` (${coder.errorMessage})` : ''}; files changed: ${f.files.modified.join(', ') || 'none'}`
        : 'coder was never delegated to',
    },
    {
      label: 'Fix approved by the reviewer (JSON Schema)',
      ok: reviewer?.status === 'SUCCESS' && reviewer.outputPayload.verdict === 'approve',
      detail: reviewer
        ? `reviewer → ${reviewer.status}, verdict ${String(reviewer.outputPayload.verdict ?? 'none')}`
        : 'reviewer was never delegated to',
    },
    {
      label: 'file_delete delegation denied',
      ok: cleaner?.denied === true && f.protectedFile.exists,
      detail: cleaner
        ? `cleaner → ${cleaner.denied ? 'DENIED' : cleaner.status}${cleaner.errorMessage ? ` (${cleaner.errorMessage})` : ''}; ${f.protectedFile.path} ${f.protectedFile.exists ? 'still exists' : 'was deleted'}`
        : 'cleaner was never delegated to',
    },
    {
      label: 'Exfiltration link removed from the answer',
      ok: response !== undefined && f.run.response !== null && !f.run.response.includes(f.exfilHost),
      detail: response ? `AGENT_RESPONSE → ${response.decision} (${response.reasonCode})` : 'no AGENT_RESPONSE MODIFY or BLOCK',
    },
    {
      label: 'Run completed',
      ok: f.run.status === 'completed',
      detail: `${f.run.status}${f.run.error ? ` (${f.run.error.code}: ${f.run.error.message})` : ''}; runs: ${f.run.runs.map((r) => `${r.agent_id} ${r.status}`).join(', ')}`,
    },
    {
      label: 'Audit trail in SQLite',
      ok: audit('guardrail_decision') > 0 && audit('handoff_decision') > 0 && audit('packet_boundary') > 0,
      detail:
        Object.entries(f.auditCounts)
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ') || 'no audit records',
    },
    {
      label: 'Spans exported with the trace id',
      ok: f.spansWithTraceId > 0,
      detail: `${f.spansWithTraceId} span(s) with trace ${f.run.trace_id}`,
    },
  ];
}
