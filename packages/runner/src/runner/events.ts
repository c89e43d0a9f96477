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
}

/** A guardrail decided (one per entry of `RunResult.guardrail_decisions`); never payload content. */
export interface GuardrailDecisionEvent {
  type: 'guardrail_decision';
  /** Null for a check outside any agent run. */
  run_id: string | null;
  agent_id: string;
  action_type: string;
  decision: string;
  reason_code: string;
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
