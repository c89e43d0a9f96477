import {
  Agent,
  MaxTurnsExceededError,
  RunState,
  type AgentInputItem,
  type ModelProvider,
  type ModelRequest,
  type Runner as SdkRunner,
  type RunStreamEvent,
} from '@openai/agents-core';
import type { HandoffPayload } from '@baton/manifest';
import { toErrorInfo } from '../errors.js';
import { getModelForAgent } from '../models/agent-model.js';
import type { JsonObject } from '../store/types.js';
import type { AgentRunState, CallState } from './call-state.js';
import { CapturingModel } from './capturing-model.js';
import { createSdkFunctionTool } from './sdk-tool.js';
import { executeToolCall, toolSpecsFor, type ToolSpec } from './tool-calls.js';
import type { ResponseRelease } from './response-release.js';

/** How one agent run ended, before the runner applies AGENT_RESPONSE / AGENT_HANDOFF. */
export type AgentRunOutcome =
  | { kind: 'final'; text: string | null }
  | { kind: 'handoff'; callId: string; payload: HandoffPayload; ignored: Array<{ callId: string; payload: HandoffPayload }> }
  | { kind: 'terminal'; name: string; arguments: JsonObject }
  | { kind: 'error'; error: { code: string; message: string } }
  /** Paused: tool calls wait for a human decision; `state` is the SDK's `RunState.toString()`. */
  | { kind: 'interrupted'; state: string; calls: Array<{ callId: string; toolName: string; arguments: string }> };

export interface InProcessAgentOptions {
  sdkRunner: SdkRunner;
  modelProvider: ModelProvider;
  signal: AbortSignal;
  /** Called with the first model request of this run (the handoff gate's proof hook). */
  onFirstRequest?: (request: ModelRequest) => Promise<void> | void;
  /** The error a racing model call fails with when the input check blocks. */
  blockedError: () => Error;
  /** The thread's earlier turns for this agent, sent before `input` (runner/history.ts); absent: none. */
  history?: () => Promise<AgentInputItem[]>;
  /** Whether a call waits for a human decision (runner/approval-flow.ts); absent: none does. */
  needsApproval?: (spec: ToolSpec, args: Record<string, unknown>) => Promise<boolean>;
  /**
   * Resume a paused run from its serialised state (already unsealed) after `apply` recorded the
   * decisions on it (`state.approve` / `state.reject`); `apply` throws when the state does not
   * hold the calls the decisions are for.
   */
  resume?: { state: string; apply(state: RunState<unknown, Agent<unknown, 'text'>>): Promise<void> | void };
}

/**
 * Runs one in-process agent through the real @openai/agents run loop. The agent is built from its
 * manifest; `system__handoff` and terminal system tools stop the loop after their turn, so a
 * handoff's output never goes back to the model.
 */
export async function runInProcessAgent(
  call: CallState,
  run: AgentRunState,
  input: string,
  options: InProcessAgentOptions,
): Promise<AgentRunOutcome> {
  const { manifest } = run.agent;
  const specs = toolSpecsFor(call, run);
  const decide = options.needsApproval;
  const tools = specs.map((spec) => {
    const sdkTool = createSdkFunctionTool(spec.wireName, spec.description, spec.parameters, (raw, callId) =>
      executeToolCall(call, run, spec, raw, callId),
    );
    if (decide && spec.kind !== 'handoff') {
      sdkTool.needsApproval = async (_context, input) =>
        decide(spec, input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {});
    }
    return sdkTool;
  });
  let firstRequest = true;
  let stopCallId: string | undefined;
  try {
    // Agent-aware providers (the offline model) pick rules by agent id, not only by model name.
    const base = await getModelForAgent(options.modelProvider, { agentId: manifest.id, modelName: manifest.model.name });
    const model = new CapturingModel({
      base,
      tracing: call.tracing,
      parent: () => run.context,
      modelName: manifest.model.name,
      ...(run.inputGate ? { inputGate: run.inputGate } : {}),
      blockedError: options.blockedError,
      // Streaming: the model's next chunk is read only once listeners took the last released text.
      ...(call.stream ? { beforeChunk: () => call.events.idle(options.signal) } : {}),
      onRequest: async (request) => {
        // Everything recorded so far is committed before the model sees the request.
        await call.writes.flush();
        const sequence = call.nextSequence();
        await call.onModelRequest?.({ sequence, agentId: manifest.id, runId: run.runId, threadId: call.threadId, request });
        if (firstRequest) {
          firstRequest = false;
          await options.onFirstRequest?.(request);
        }
      },
    });
    const agent = new Agent({
      name: manifest.name,
      instructions: manifest.instructions,
      model,
      tools,
      toolUseBehavior: (_context, results) => {
        for (const r of results) {
          if (r.type !== 'function_output') continue;
          const callId = (r.runItem.rawItem as { callId?: string }).callId;
          if (callId !== undefined && (run.handoffRequests.has(callId) || run.terminal?.callId === callId)) {
            stopCallId = callId;
            return { isFinalOutput: true, isInterrupted: undefined, finalOutput: '' };
          }
        }
        return { isFinalOutput: false, isInterrupted: undefined };
      },
    });
    let restored: RunState<unknown, Agent<unknown, 'text'>> | undefined;
    if (options.resume) {
      try {
        restored = await RunState.fromString(agent, options.resume.state);
      } catch (error) {
        return {
          kind: 'error',
          error: {
            code: 'APPROVAL_STATE_INVALID',
            message: `agent ${manifest.id}: the paused run's state cannot be restored: ${toErrorInfo(error).message.slice(0, 300)}`,
          },
        };
      }
      await options.resume.apply(restored);
    }
    const earlier = options.history && !restored ? await options.history() : [];
    const modelInput: string | AgentInputItem[] = earlier.length > 0 ? [...earlier, { role: 'user', content: input }] : input;
    let finalOutput: unknown;
    const sdkInput = restored ?? modelInput;
    let result;
    if (call.stream) {
      const streamed = await options.sdkRunner.run(agent, sdkInput, { maxTurns: call.maxTurns, signal: options.signal, stream: true });
      await streamAnswer(streamed, run.release, options.signal);
      // A blocked answer stopped the run early: there is no final output to read.
      finalOutput = run.release.blocked ? '' : streamed.finalOutput;
      result = streamed;
    } else {
      result = await options.sdkRunner.run(agent, sdkInput, { maxTurns: call.maxTurns, signal: options.signal });
      finalOutput = result.finalOutput;
    }
    if (!run.release.blocked && result.interruptions && result.interruptions.length > 0) {
      const byWire = new Map(specs.map((s) => [s.wireName, s.protocolName]));
      const calls = result.interruptions.map((item) => {
        const raw = item.rawItem as { callId?: string; name?: string; arguments?: string };
        return { callId: raw.callId ?? '', toolName: byWire.get(raw.name ?? '') ?? raw.name ?? '', arguments: raw.arguments ?? '' };
      });
      return { kind: 'interrupted', state: result.state.toString(), calls };
    }
    if (stopCallId !== undefined) {
      const payload = run.handoffRequests.get(stopCallId);
      if (payload) {
        const ignored = [...run.handoffRequests].filter(([id]) => id !== stopCallId).map(([callId, p]) => ({ callId, payload: p }));
        return { kind: 'handoff', callId: stopCallId, payload, ignored };
      }
      if (run.terminal) return { kind: 'terminal', name: run.terminal.name, arguments: run.terminal.arguments };
    }
    return {
      kind: 'final',
      text: typeof finalOutput === 'string' ? finalOutput : finalOutput === undefined ? '' : JSON.stringify(finalOutput),
    };
  } catch (error) {
    if (error instanceof MaxTurnsExceededError) {
      return {
        kind: 'error',
        error: { code: 'MAX_TURNS_EXCEEDED', message: `agent ${manifest.id} used more than ${call.maxTurns} model turns` },
      };
    }
    if (options.signal.aborted) return { kind: 'error', error: { code: 'ABORTED', message: 'the run was aborted' } };
    const info = toErrorInfo(error, 'MODEL_ERROR');
    return { kind: 'error', error: { code: info.code, message: `agent ${manifest.id}: ${info.message}` } };
  }
}

/**
 * Feeds a streamed run's text to the answer release as the model produces it. A BLOCK stops
 * reading, which cancels the SDK's run: no more model output and no further turn (a tool call of
 * the current turn that already started finishes before this returns).
 */
async function streamAnswer(
  streamed: AsyncIterable<RunStreamEvent> & { completed: Promise<void> },
  release: ResponseRelease,
  signal: AbortSignal,
): Promise<void> {
  for await (const event of streamed) {
    if (event.type !== 'raw_model_stream_event') continue;
    const data = event.data;
    if (data.type === 'output_text_delta') await release.delta(data.delta);
    else if (data.type === 'response_done') await release.responseDone(!data.response.output.some((item) => item.type === 'function_call'));
    if (release.blocked) break;
  }
  await streamed.completed;
  signal.throwIfAborted();
}
