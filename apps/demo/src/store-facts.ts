import type { ResponsePackage } from '@baton/manifest';
import type { ThreadStore } from '@baton/runner';
import type { ToolEnd } from './run-events.js';

/** A tool call as the runner recorded it: the arguments the tool ran with (after the TOOL_CALL check). */
export interface ObservedToolCall {
  agentId: string;
  depth: number;
  tool: string;
  /** The arguments the tool actually received (redacted when the guardrail said MODIFY). */
  args: Record<string, unknown>;
  outputChars: number;
}

/** One delegate_task call: its `tool_end` report, and the ResponsePackage the parent's model was given. */
export interface ObservedDelegation {
  parentAgentId: string;
  subagent: string;
  /** Depth of the subagent (parent depth + 1). */
  depth: number;
  status: ResponsePackage['status'] | 'INVALID';
  /** True when the approval step refused the delegation. */
  denied: boolean;
  errorCode?: string;
  errorMessage?: string;
  outputPayload: Record<string, unknown>;
}

/**
 * Joins the calls the events reported (by call id) with what the store recorded for them: the
 * arguments each tool ran with, and what each delegation answered. The store is the record of
 * what crossed; events only say that (and which) calls happened.
 */
export async function callsFromStore(
  store: ThreadStore,
  threadId: string,
  ends: readonly ToolEnd[],
): Promise<{ toolCalls: ObservedToolCall[]; delegations: ObservedDelegation[] }> {
  const recorded = new Map<string, { args?: Record<string, unknown>; output?: string }>();
  for (const { runId, item } of await store.listItems(threadId)) {
    if (typeof item.call_id !== 'string') continue;
    const key = `${runId}\u0000${item.call_id}`;
    const entry = recorded.get(key) ?? {};
    if (item.type === 'function_call' && typeof item.arguments === 'string') entry.args = parseObject(item.arguments);
    if (item.type === 'function_call_output' && typeof item.output === 'string') entry.output = item.output;
    recorded.set(key, entry);
  }
  const toolCalls: ObservedToolCall[] = [];
  const delegations: ObservedDelegation[] = [];
  for (const end of ends) {
    const entry = recorded.get(`${end.runId}\u0000${end.callId}`);
    if (end.detail === undefined || end.tool !== 'delegate_task') {
      toolCalls.push({ agentId: end.agentId, depth: 0, tool: end.tool, args: entry?.args ?? {}, outputChars: end.outputChars });
      continue;
    }
    const pkg = (parseObject(entry?.output ?? '') ?? {}) as Partial<ResponsePackage>;
    const d = end.detail;
    delegations.push({
      parentAgentId: end.agentId,
      subagent: typeof d.subagent === 'string' ? d.subagent : '(unknown)',
      depth: typeof d.depth === 'number' ? d.depth : 1,
      status: typeof d.status === 'string' ? (d.status as ObservedDelegation['status']) : 'INVALID',
      denied: d.approval_refused === true,
      ...(typeof d.error_code === 'string' ? { errorCode: d.error_code } : {}),
      ...(typeof pkg.error_report?.message === 'string' ? { errorMessage: pkg.error_report.message } : {}),
      outputPayload: pkg.output_payload ?? {},
    });
  }
  return { toolCalls, delegations };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
