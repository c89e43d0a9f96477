import type { RunRecord, ThreadItem, ThreadRecord } from '../store/types.js';

/** `GET /v1/threads/:id` body: the thread, its state, its runs and its items, in snake_case. */
export function threadView(thread: ThreadRecord, runs: RunRecord[], items: ThreadItem[]) {
  return {
    thread: { id: thread.id, created_at: thread.createdAt, updated_at: thread.updatedAt, metadata: thread.metadata },
    state: thread.state,
    runs: runs.map(runView),
    items: items.map((i) => ({ seq: i.seq, run_id: i.runId, created_at: i.createdAt, item: i.item })),
  };
}

/** One run as `GET /v1/threads/:id` lists it and `GET /v1/runs/:run_id` answers it (snake_case). */
export function runView(r: RunRecord) {
  return {
    // `run_id`, as in run results and items; `id` stays for clients written against 0.1.
    run_id: r.id,
    id: r.id,
    thread_id: r.threadId,
    agent_id: r.agentId,
    agent_version: r.agentVersion,
    status: r.status,
    parent_run_id: r.parentRunId,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    error: r.error,
    trace_id: r.traceId,
  };
}
