import type { RegisteredAgent } from '../registry/types.js';
import type { JsonObject, RunStatus } from '../store/types.js';
import type { ChainEnd, ChainProgress } from './chain.js';
import type { RunResult } from './types.js';

/** What every `RunResult` of one call shares, whichever way the call ended. */
export interface ResultBase {
  /** The thread the call ran on ('' when it never got one). */
  threadId: string;
  /** The runs and decisions of the chain, possibly partial. */
  progress: ChainProgress;
  /** The agent the call started with: reported when no run was created. */
  entry: RegisteredAgent;
  /** The call's root trace. */
  traceId: string;
  /** `RunResult.model`. */
  model: string;
}

/** A call whose chain ran to its end (any status, including failed runs). */
export function completedResult(base: ResultBase, end: ChainEnd, state: JsonObject): RunResult {
  const result: RunResult = common(base, end.status, end.response, state);
  if (end.terminal) result.terminal = end.terminal;
  if (end.requiredAction) result.required_action = end.requiredAction;
  if (end.error) result.error = end.error;
  return result;
}

/** A call that ended by an exception (store failure, lock contention, timeout, abort). */
export function failedResult(base: ResultBase, status: RunStatus, error: { code: string; message: string }, state: JsonObject): RunResult {
  return { ...common(base, status, null, state), error };
}

// One field order for both shapes: results are serialised as they are.
function common(base: ResultBase, status: RunStatus, response: string | null, state: JsonObject): RunResult {
  const { runs, decisions } = base.progress;
  const last = runs[runs.length - 1];
  return {
    thread_id: base.threadId,
    runs,
    run_id: last?.run_id ?? '',
    agent_id: last?.agent_id ?? base.entry.manifest.id,
    status,
    response,
    state,
    guardrail_decisions: decisions,
    trace_id: base.traceId,
    model: base.model,
  };
}
