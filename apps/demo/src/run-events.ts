import type { GuardrailDecisionEvent, HandoffEvent, RunnerEvent, ToolEndEvent } from '@baton/runner';
import type { Progress } from './progress.js';
import { shortId } from './progress.js';

/** One guardrail decision, from its `guardrail_decision` event (codes and names only). */
export interface ObservedDecision {
  actionType: string;
  agentId: string;
  /** The tool, for TOOL_CALL / TOOL_OUTPUT; the target, for AGENT_HANDOFF; the subagent, for a delegation's checks. */
  subject?: string;
  /** What was checked, when the action type alone does not say (the packet a handoff gate lets cross). */
  about?: string;
  /** `delegation` for a check at a subagent's boundary. */
  boundary?: 'delegation';
  /** Delegation depth of the agent or subagent whose boundary it is. */
  depth: number;
  decision: string;
  reasonCode: string;
  findings: Array<{ detector: string; type: string; severity: string; start: number; end: number }>;
}

/** A tool call that ran, from its `tool_end` event. */
export interface ToolEnd {
  runId: string;
  agentId: string;
  callId: string;
  tool: string;
  argumentNames: string[];
  outputChars: number;
  detail: Record<string, string | number | boolean> | undefined;
}

/** A packet handoff, from its `handoff` event. */
export interface ObservedPacket {
  packetId: string;
  threadId: string;
  /** The source agent's run, cancelled by the handoff. */
  runId: string;
  source: string;
  destination: string;
  /** The recipient's run (its first model request is the one the packet's proof covers). */
  toRunId: string | undefined;
}

/** Names of the runtime tools whose `tool_end` is narrated as a delegation, not as a tool. */
const DELEGATE_TASK = 'delegate_task';

/**
 * Narrates a run from the Runner's events and keeps what the expectations are checked against.
 * Events carry ids, names and codes only, so this never sees arguments, outputs or model text;
 * what a tool ran with is read from the store afterwards (see `store-facts.ts`).
 */
export class RunNarrator {
  readonly decisions: ObservedDecision[] = [];
  readonly toolEnds: ToolEnd[] = [];
  readonly packets: ObservedPacket[] = [];
  readonly #progress: Progress;
  // A TOOL_OUTPUT decision is told after its tool's line (the tool returned before it was checked).
  readonly #heldOutputs = new Map<string, ObservedDecision>();
  // A cancelled run is told with the handoff that cancelled it.
  readonly #handedOff = new Set<string>();
  readonly #delegationsStarted = new Set<string>();
  // Who runs each run: a delegation's checks name the subagent; the line names who delegated.
  readonly #runAgents = new Map<string, string>();

  constructor(progress: Progress) {
    this.#progress = progress;
  }

  /** Runs whose end was told with their handoff (the summary does not tell them again). */
  get endedRuns(): ReadonlySet<string> {
    return this.#handedOff;
  }

  /** The listener to give the stack (`onEvent`). */
  readonly onEvent = (event: RunnerEvent): void => {
    switch (event.type) {
      case 'run_start':
        this.#runAgents.set(event.run_id, event.agent_id);
        return;
      case 'guardrail_decision':
        return this.#decision(event);
      case 'tool_end':
        return this.#toolEnd(event);
      case 'handoff':
        return this.#handoff(event);
      default:
        return;
    }
  };

  #decision(e: GuardrailDecisionEvent): void {
    const shown = e.action_type === 'TOOL_CALL' || e.action_type === 'TOOL_OUTPUT' || e.action_type === 'AGENT_HANDOFF';
    const d: ObservedDecision = {
      actionType: e.action_type,
      agentId: e.agent_id,
      ...(e.subject !== undefined && (shown || e.boundary === 'delegation') ? { subject: e.subject } : {}),
      ...(e.checked === 'crossing' ? { about: 'packet contents' } : {}),
      ...(e.boundary ? { boundary: e.boundary } : {}),
      depth: e.depth ?? 0,
      decision: e.decision,
      reasonCode: e.reason_code,
      findings: (e.findings ?? []).map((f) => ({ detector: f.detector, type: f.type, severity: f.severity, start: f.start, end: f.end })),
    };
    this.decisions.push(d);
    if (d.boundary === 'delegation' && e.run_id !== null)
      this.#delegationStart(e.run_id, this.#runAgents.get(e.run_id) ?? e.agent_id, d.subject ?? '', d.depth, false);
    if (d.actionType === 'TOOL_OUTPUT' && e.call_id !== undefined) {
      this.#heldOutputs.set(e.call_id, d);
      return;
    }
    this.#tellDecision(d, shown);
  }

  #tellDecision(d: ObservedDecision, shown: boolean): void {
    const subject = shown && d.subject ? ` ${shortId(d.subject)}` : '';
    this.#progress.event({
      kind: 'guardrail',
      actor: d.agentId,
      depth: d.depth,
      title: `${d.actionType}${subject}${d.about ? ` (${d.about})` : ''}`,
      outcome: d.decision,
      ...(d.decision === 'ALLOW' ? {} : { detail: d.reasonCode }),
      ...(d.findings.length > 0 ? { findings: d.findings } : {}),
    });
  }

  #toolEnd(e: ToolEndEvent): void {
    if (e.ok && e.output_chars !== undefined) {
      const end: ToolEnd = {
        runId: e.run_id,
        agentId: e.agent_id,
        callId: e.call_id,
        tool: e.name,
        argumentNames: e.argument_names ?? [],
        outputChars: e.output_chars,
        detail: e.detail,
      };
      this.toolEnds.push(end);
      if (e.name === DELEGATE_TASK) this.#delegationEnd(end);
      else
        this.#progress.event({
          kind: 'tool',
          actor: e.agent_id,
          depth: 0,
          title: `${e.name}(${end.argumentNames.join(', ')})`,
          detail: `returned ${end.outputChars} characters`,
        });
    }
    const held = this.#heldOutputs.get(e.call_id);
    if (held) {
      this.#heldOutputs.delete(e.call_id);
      this.#tellDecision(held, true);
    }
  }

  #delegationStart(runId: string, parent: string, subagent: string, depth: number, requiresApproval: boolean): void {
    const key = `${runId}\u0000${subagent}`;
    if (this.#delegationsStarted.has(key)) return;
    this.#delegationsStarted.add(key);
    this.#progress.event({
      kind: 'delegation',
      actor: parent,
      depth,
      title: `delegate_task → ${subagent}${requiresApproval ? ' (requires approval)' : ''}`,
    });
  }

  #delegationEnd(end: ToolEnd): void {
    const detail = end.detail ?? {};
    const subagent = typeof detail.subagent === 'string' ? detail.subagent : '(unknown)';
    const depth = typeof detail.depth === 'number' ? detail.depth : 1;
    this.#delegationStart(end.runId, end.agentId, subagent, depth, detail.requires_approval === true);
    // Another delegation to the same subagent in this run starts afresh.
    this.#delegationsStarted.delete(`${end.runId}\u0000${subagent}`);
    const refused = detail.approval_refused === true;
    const status = typeof detail.status === 'string' ? detail.status : 'INVALID';
    this.#progress.event({
      kind: refused ? 'approval' : 'delegation',
      actor: subagent,
      depth,
      title: refused
        ? `${subagent} needs ${String(detail.capabilities ?? 'a sensitive capability')}: denied by the default approval policy`
        : `${subagent} yielded`,
      outcome: refused ? 'DENIED' : status,
      ...(typeof detail.error_code === 'string' ? { detail: detail.error_code } : {}),
    });
  }

  #handoff(e: HandoffEvent): void {
    if (e.packet_id === undefined) return;
    this.#handedOff.add(e.from_run_id);
    this.packets.push({
      packetId: e.packet_id,
      threadId: e.thread_id,
      runId: e.from_run_id,
      source: e.from_agent_id,
      destination: e.to_agent_id,
      toRunId: e.to_run_id,
    });
    this.#progress.event({
      kind: 'run',
      actor: e.from_agent_id,
      depth: 0,
      title: `run ${e.from_run_id} ended`,
      outcome: 'cancelled',
      detail: `HANDED_OFF to ${shortId(e.to_agent_id)}`,
    });
    this.#progress.event({
      kind: 'handoff',
      actor: e.from_agent_id,
      depth: 0,
      title: `system::handoff → ${shortId(e.to_agent_id)} through packet ${e.packet_id}`,
      outcome: 'ALLOWED',
      detail: 'only the purpose\u2019s approved fields cross; decision recorded in SQLite',
    });
  }
}
