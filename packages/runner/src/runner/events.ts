import type { RunStatus } from '../store/types.js';
import type { RunnerLogger } from './logger.js';

/**
 * What a run reports while it happens (README "Runner events"). Every event names its run, so a
 * listener correlates per run, never through shared state. No event carries content that a
 * guardrail has not cleared: tool events carry names and ids only, guardrail events codes only,
 * and `text_delta` only answer text the AGENT_RESPONSE check released.
 */
export type RunnerEvent =
  | RunStartEvent
  | RunEndEvent
  | HandoffEvent
  | ToolStartEvent
  | ToolEndEvent
  | GuardrailDecisionEvent
  | TextDeltaEvent
  | ApprovalRequiredEvent
  | ApprovalDecidedEvent;

/** The names of {@link RunnerEvent}s (also the SSE `event:` names of `POST /v1/runs` streams). */
export type RunnerEventType = RunnerEvent['type'];

/** An agent run started (the first agent, or the target of a handoff). */
export interface RunStartEvent {
  type: 'run_start';
  thread_id: string;
  run_id: string;
  agent_id: string;
}

/** An agent run ended; `status` as stored (`cancelled` for a run that handed off). */
export interface RunEndEvent {
  type: 'run_end';
  thread_id: string;
  run_id: string;
  agent_id: string;
  status: RunStatus;
}

/** A `system::handoff` was honoured; `to_run_id` is absent only if the target's run could not be created. */
export interface HandoffEvent {
  type: 'handoff';
  thread_id: string;
  from_run_id: string;
  from_agent_id: string;
  to_agent_id: string;
  to_run_id?: string;
  /** The packet the handoff gate built (server-generated id), when it built one. */
  packet_id?: string;
}

/** The model called an in-process tool (before its arguments are validated and checked). */
export interface ToolStartEvent {
  type: 'tool_start';
  run_id: string;
  agent_id: string;
  call_id: string;
  /** The tool's protocol name (e.g. `delegate_task`). */
  name: string;
}

/** A tool call ended; `ok` is false when it did not run or failed (the model got an error text). */
export interface ToolEndEvent {
  type: 'tool_end';
  run_id: string;
  agent_id: string;
  call_id: string;
  name: string;
  ok: boolean;
  /**
   * Names of the arguments the tool ran with (after schema validation and the TOOL_CALL check,
   * so a MODIFY's arguments), in their order; absent when the tool did not run.
   */
  argument_names?: string[];
  /** Length (UTF-16 code units) of what the tool returned, before the TOOL_OUTPUT check; absent when it did not return. */
  output_chars?: number;
  /** What the tool itself reported about the call ({@link ToolEventDetail}); absent when it reports nothing. */
  detail?: ToolEventDetail;
}

/**
 * A tool's own report on one call, for `tool_end` (a system tool's `eventDetail`): ids, names,
 * codes, counts and flags only. `delegate_task` reports `subagent`, `depth`, `status`,
 * `requires_approval` and, when it failed, `error_code` (README "Runner events").
 */
export type ToolEventDetail = Record<string, string | number | boolean>;

/** A finding as events carry it: where and what, never the matched text. */
export interface EventFinding {
  detector: string;
  type: string;
  severity: string;
  /** JSON pointer into the payload (`""` for a string payload), when the guardrail gave one. */
  path?: string;
  start: number;
  end: number;
}

/** What a decision was about, beyond its action type (names and ids only). */
export interface DecisionSubject {
  /** The tool call's id (TOOL_CALL, TOOL_OUTPUT). */
  call_id?: string;
  /** The tool's protocol name (TOOL_CALL, TOOL_OUTPUT), the handoff's target agent (AGENT_HANDOFF), the subagent (delegation). */
  subject?: string;
  /** For AGENT_HANDOFF: `request` (what the model asked to hand over) or `crossing` (what the handoff gate lets cross). */
  checked?: 'request' | 'crossing';
  /** `delegation` for a check a `delegate_task` made at a subagent's boundary (its input, its yield). */
  boundary?: 'delegation';
  /** The delegation depth of the subagent a delegation check was about (the caller's depth + 1). */
  depth?: number;
}

/** A guardrail decided (one per entry of `RunResult.guardrail_decisions`); never payload content. */
export interface GuardrailDecisionEvent extends DecisionSubject {
  type: 'guardrail_decision';
  /** Null for a check outside any agent run. */
  run_id: string | null;
  agent_id: string;
  action_type: string;
  decision: string;
  reason_code: string;
  /** The guardrail's findings (detector, type, severity, offsets), when it reported any. */
  findings?: EventFinding[];
}

/** A detector, type or severity: a short code, never text from the payload. */
const FINDING_CODE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$/;
const MAX_FINDING_PATH = 200;
const isFindingCode = (v: unknown): v is string => typeof v === 'string' && FINDING_CODE.test(v);
const isOffset = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isFindingPath = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= MAX_FINDING_PATH && !/[\p{Cc}\u2028\u2029]/u.test(v);

/** The event for one recorded decision (findings reduced to where and what). */
export function decisionEvent(
  d: { action_type: string; decision: string; reason_code: string; agent_id: string; findings?: unknown[] },
  runId: string | null,
  about?: DecisionSubject,
): GuardrailDecisionEvent {
  const findings = (Array.isArray(d.findings) ? d.findings : []).flatMap((f) => {
    if (typeof f !== 'object' || f === null) return [];
    const x = f as Partial<EventFinding>;
    // The guardrail's answer is not trusted to keep text out: codes must look like codes,
    // offsets like positions, a path like a short pointer; anything else drops the finding.
    if (!isFindingCode(x.detector) || !isFindingCode(x.type) || !isFindingCode(x.severity)) return [];
    if (!isOffset(x.start) || !isOffset(x.end) || x.end < x.start) return [];
    if (x.path !== undefined && !isFindingPath(x.path)) return [];
    return [
      {
        detector: x.detector,
        type: x.type,
        severity: x.severity,
        ...(typeof x.path === 'string' ? { path: x.path } : {}),
        start: x.start,
        end: x.end,
      },
    ];
  });
  return {
    type: 'guardrail_decision',
    run_id: runId,
    agent_id: d.agent_id,
    action_type: d.action_type,
    decision: d.decision,
    reason_code: d.reason_code,
    ...about,
    ...(findings.length > 0 ? { findings } : {}),
  };
}

/**
 * Answer text, in order, released only after the AGENT_RESPONSE check cleared it (the modified
 * text after a MODIFY). Streamed runs release it in segments; other runs in one piece.
 */
export interface TextDeltaEvent {
  type: 'text_delta';
  run_id: string;
  agent_id: string;
  text: string;
}

/**
 * A run paused in `requires_action`: its calls wait for a human (README "Approvals"). Approval ids
 * and tool names only: the arguments are the model's, not yet guardrail-checked, and stay in
 * `RunResult.required_action`. Sent before the paused run's `run_end`.
 */
export interface ApprovalRequiredEvent {
  type: 'approval_required';
  thread_id: string;
  run_id: string;
  agent_id: string;
  approvals: Array<{ id: string; tool_name: string }>;
  /** ISO 8601; a decision after it is `APPROVAL_EXPIRED`. */
  expires_at: string;
}

/** A decision on one pending approval was applied to the resumed run (before the run goes on). */
export interface ApprovalDecidedEvent {
  type: 'approval_decided';
  run_id: string;
  /** The approval id (`appr_…`). */
  id: string;
  approved: boolean;
}

/**
 * A listener. A returned promise holds the run's streamed model output until it settles (so a
 * slow consumer slows the model instead of growing a buffer); a listener that throws or rejects
 * is logged and never changes the run.
 */
export type RunnerEventListener = (event: RunnerEvent) => void | Promise<void>;

/** Delivers a run's events to its listeners; `idle()` resolves once no listener is still busy. */
export interface RunnerEventSink {
  emit(event: RunnerEvent): void;
  /** Resolves when every promise a listener returned has settled, or when `signal` aborts. */
  idle(signal: AbortSignal): Promise<void>;
  /** Whether any listener is attached (skip building events nobody reads). */
  readonly active: boolean;
}

/** Fans one run's events out to its per-run and runner-wide listeners, isolating their failures. */
export function createEventSink(listeners: ReadonlyArray<RunnerEventListener | undefined>, logger: RunnerLogger): RunnerEventSink {
  const active = listeners.filter((l): l is RunnerEventListener => typeof l === 'function');
  const pending = new Set<Promise<unknown>>();
  const report = (event: RunnerEvent, error: unknown) =>
    logger.warn('a runner event listener failed; the run goes on', {
      event: event.type,
      error: error instanceof Error ? error.message : String(error),
    });
  return {
    active: active.length > 0,
    emit(event) {
      for (const listener of active) {
        let returned: unknown;
        try {
          returned = listener(event);
        } catch (error) {
          report(event, error);
          continue;
        }
        if (returned && typeof (returned as Promise<unknown>).then === 'function') {
          const settled = Promise.resolve(returned as Promise<unknown>).then(
            () => undefined,
            (error: unknown) => report(event, error),
          );
          pending.add(settled);
          void settled.finally(() => pending.delete(settled));
        }
      }
    },
    async idle(signal) {
      if (pending.size === 0 || signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        signal.addEventListener('abort', done, { once: true });
        void Promise.all([...pending]).then(done);
      });
    },
  };
}
