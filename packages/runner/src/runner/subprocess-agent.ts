import { isDeepStrictEqual } from 'node:util';
import { HANDOFF_PROTOCOL_NAME, HANDOFF_WIRE_NAME, type AgentProcessInput, type HandoffPayload } from '@baton/manifest';
import { toErrorInfo } from '../errors.js';
import { runAgentProcess } from '../process/index.js';
import type { JsonObject } from '../store/types.js';
import { nextStateMergeKey, type AgentRunState, type CallState } from './call-state.js';
import type { AgentRunOutcome } from './in-process-agent.js';
import { parseHandoffArguments } from './handoff-tool.js';
import { executeToolCall, toolSpecsFor } from './tool-calls.js';
import type { PreparedHandoff } from './types.js';

export interface SubprocessAgentOptions {
  signal: AbortSignal;
  /**
   * Set when this run is the target of a gated handoff: stdin then carries the gate's view (its
   * `input` and `state`), never the thread's state, and the gate's proof hook sees stdin first.
   */
  prepared?: PreparedHandoff;
}

/**
 * Runs a subprocess agent (baton.yml `mode: subprocess`) with the seed's stdin/stdout contract.
 * Its tool calls pass the same guardrails as an in-process agent's; a `system::handoff` among
 * them hands off (the first one; later ones are ignored). The state it returns replaces the
 * thread's state for the keys it was given (see {@link persistReturnedState}).
 */
export async function runSubprocessAgent(
  call: CallState,
  run: AgentRunState,
  input: string,
  options: SubprocessAgentOptions,
): Promise<AgentRunOutcome> {
  const { manifest, deployment, baseDir } = run.agent;
  const processConfig = deployment.process;
  if (!processConfig)
    return {
      kind: 'error',
      error: { code: 'AGENT_PROCESS_NOT_CONFIGURED', message: `agent ${manifest.id} has mode: subprocess but no process entry` },
    };
  let toolSpecs: ReturnType<typeof toolSpecsFor>;
  try {
    // Checked before the process starts: a tool-name conflict is a configuration error, not the agent's.
    toolSpecs = toolSpecsFor(call, run);
  } catch (error) {
    return { kind: 'error', error: toErrorInfo(error, 'TOOL_NAME_CONFLICT') };
  }
  const prepared = options.prepared;
  // A gated handoff's target sees the gate's view only: the thread's state (model-written
  // handoff state included) never reaches it.
  const view: JsonObject = prepared ? (prepared.state ?? {}) : ((await call.store.getThread(call.threadId))?.state ?? {});
  const stdin: AgentProcessInput = {
    thread_id: call.threadId,
    run_id: run.runId,
    input_message: { content: input, role: 'user' },
    state: view,
    config: deployment.config,
    trace: call.tracing.stdinTrace(run.context),
  };
  const onInput = prepared?.onRecipientProcessInput?.bind(prepared);
  let result: Awaited<ReturnType<typeof runAgentProcess>>;
  try {
    result = await runAgentProcess({
      command: processConfig.command,
      args: processConfig.args,
      input: stdin,
      timeoutMs: processConfig.timeout_ms,
      signal: options.signal,
      ...(baseDir !== undefined ? { cwd: baseDir } : {}),
      // Everything recorded so far is committed before the gate's proof and the process start.
      onInput: async (written) => {
        await call.writes.flush();
        await onInput?.(written);
      },
    });
  } catch (error) {
    const info = toErrorInfo(error, 'HANDOFF_GATE_FAILED');
    return { kind: 'error', error: { code: info.code, message: `agent process for ${manifest.id} was not started: ${info.message}` } };
  }
  if (result.stderr.length > 0) {
    call.logger.info('agent process stderr', { agent_id: manifest.id, run_id: run.runId, stderr: result.stderr });
  }
  if (!result.ok) {
    return {
      kind: 'error',
      error: { code: `AGENT_PROCESS_${result.error.code}`, message: `agent process for ${manifest.id} failed: ${result.error.message}` },
    };
  }
  const output = result.output;
  const persisted = await persistReturnedState(call, run, view, output.state);
  if (persisted) return persisted;

  const specs = new Map(toolSpecs.flatMap((s) => [[s.wireName, s] as const, [s.protocolName, s] as const]));
  let handoff: { callId: string; payload: HandoffPayload } | undefined;
  const ignored: Array<{ callId: string; payload: HandoffPayload }> = [];
  for (const toolCall of output.tool_calls) {
    const name = toolCall.function.name;
    if (name === HANDOFF_PROTOCOL_NAME || name === HANDOFF_WIRE_NAME) {
      const spec = specs.get(HANDOFF_WIRE_NAME);
      if (!spec) {
        return {
          kind: 'error',
          error: {
            code: 'HANDOFF_TARGET_NOT_ALLOWED',
            message: `agent ${manifest.id} asked for ${HANDOFF_PROTOCOL_NAME} but has no handoff targets in baton.yml`,
          },
        };
      }
      const parsed = parseHandoffArguments(toolCall.function.arguments, spec.parameters, call.validator);
      if (!parsed.ok)
        return {
          kind: 'error',
          error: { code: 'TOOL_ARGUMENTS_INVALID', message: `agent process for ${manifest.id}: ${parsed.message.replace(/^Error: /, '')}` },
        };
      if (handoff) ignored.push({ callId: toolCall.id, payload: parsed.value });
      else handoff = { callId: toolCall.id, payload: parsed.value };
      continue;
    }
    const spec = specs.get(name);
    if (!spec) {
      await call.writes.appendItems(call.threadId, run.runId, [
        { type: 'function_call_output', call_id: toolCall.id, name, output: `Error: unknown tool '${name}'`, error: 'TOOL_UNKNOWN' },
      ]);
      continue;
    }
    await executeToolCall(call, run, spec, toolCall.function.arguments, toolCall.id);
  }
  if (handoff) return { kind: 'handoff', callId: handoff.callId, payload: handoff.payload, ignored };
  return { kind: 'final', text: output.response ?? null };
}

/**
 * Persists the state an agent process returned. The returned object replaces the thread's state
 * for the keys the process was given on stdin: a given key it leaves out is deleted, a key it
 * returns is set (top-level keys replace, nested objects are not merged), keys it was never given
 * (e.g. the coordinator's, when it saw a packet's view) are untouched. Unchanged keys are not
 * rewritten. Deleting needs a store with `replaceState`.
 */
async function persistReturnedState(
  call: CallState,
  run: AgentRunState,
  given: JsonObject,
  returned: JsonObject,
): Promise<AgentRunOutcome | undefined> {
  const removed = new Set(Object.keys(given).filter((k) => !Object.hasOwn(returned, k)));
  // fromEntries defines own properties, so a key such as `__proto__` stays data, never a prototype.
  const changedEntries = Object.entries(returned).filter(([k, v]) => !Object.hasOwn(given, k) || !isDeepStrictEqual(given[k], v));
  const changed: JsonObject = Object.fromEntries(changedEntries);
  if (removed.size === 0) {
    if (changedEntries.length > 0) await call.writes.mergeState(call.threadId, changed, nextStateMergeKey(call, run));
    return undefined;
  }
  if (!call.store.replaceState) {
    return {
      kind: 'error',
      error: {
        code: 'STATE_DELETE_UNSUPPORTED',
        message: `agent process for ${run.agent.manifest.id} removed state keys, but the thread store cannot replace state`,
      },
    };
  }
  // Under the thread lock: nobody else writes this thread between the read and the replace.
  await call.writes.flush();
  const current = (await call.store.getThread(call.threadId))?.state ?? {};
  const next: JsonObject = Object.fromEntries([
    ...Object.entries(current).filter(([k]) => !removed.has(k) && !Object.hasOwn(changed, k)),
    ...changedEntries,
  ]);
  const key = nextStateMergeKey(call, run);
  await call.store.replaceState(call.threadId, next, key !== undefined ? { idempotencyKey: key } : undefined);
  return undefined;
}
