import type { ThreadStore } from '../store/types.js';
import type { WriteBuffer } from './write-buffer.js';

/**
 * Untrusted-source → sink tool policy, kept with the thread. Once a thread has run a source tool
 * (its output is content from outside: a web page, an e-mail), sink tools (that send data out)
 * are refused on that thread for good. The taint is an audit record in the thread store, so it
 * survives restarts and cannot be flushed out of a bounded cache by traffic on other threads
 * (the guardrail engine's own LRU tracker can be; this is the authoritative check).
 */
export interface ToolPolicy {
  /** Tool names whose output is untrusted content. */
  sourceTools: readonly string[];
  /** Tool names that must not run on a thread that has run a source tool. */
  sinkTools: readonly string[];
}

/** The audit record kind that marks a thread tainted (`data.source_tool` names the source). */
export const TAINT_AUDIT_KIND = 'thread_taint';

/** The policy as sets; resolved once per runner. */
export interface ToolPolicySets {
  sources: ReadonlySet<string>;
  sinks: ReadonlySet<string>;
}

/**
 * The policy a runner enforces: the given one, or the guardrail engine's default lists (loaded on
 * first use, so the runner does not load the engine unless a tool runs).
 */
export function toolPolicyResolver(policy: ToolPolicy | undefined): () => Promise<ToolPolicySets> {
  let resolved: Promise<ToolPolicySets> | undefined;
  return () =>
    (resolved ??= (async () => {
      const p = policy ?? (await defaultPolicy());
      return { sources: new Set(p.sourceTools), sinks: new Set(p.sinkTools) };
    })());
}

async function defaultPolicy(): Promise<ToolPolicy> {
  const { DEFAULT_POLICY } = await import('@baton/guardrail-server');
  return { sourceTools: DEFAULT_POLICY.tool_policy.source_tools, sinkTools: DEFAULT_POLICY.tool_policy.sink_tools };
}

/** The source tool that tainted the thread, or undefined. Reads the store (call after a flush). */
export async function threadTaint(store: ThreadStore, threadId: string): Promise<string | undefined> {
  const records = await store.listAudit(threadId);
  const taint = records.find((r) => r.kind === TAINT_AUDIT_KIND);
  if (!taint) return undefined;
  return typeof taint.data.source_tool === 'string' ? taint.data.source_tool : 'unknown source';
}

/** Marks the thread tainted by `sourceTool`, committed before anything else happens. */
export async function recordTaint(
  writes: WriteBuffer,
  record: { threadId: string; runId: string; sourceTool: string; agentId: string },
): Promise<void> {
  await writes.appendAudit({
    threadId: record.threadId,
    runId: record.runId,
    kind: TAINT_AUDIT_KIND,
    data: { source_tool: record.sourceTool, agent_id: record.agentId },
  });
  await writes.flush();
}
