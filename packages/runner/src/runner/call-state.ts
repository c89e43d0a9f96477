import type { Context } from '@opentelemetry/api';
import type { HandoffPayload } from '@baton/manifest';
import type { RegisteredAgent } from '../registry/types.js';
import type { JsonObject, ThreadStore } from '../store/types.js';
import type { GuardrailCheckerOptions } from './guardrails.js';
import type { ArgumentValidator } from './schema-validator.js';
import type { RunTracing } from './tracing.js';
import type { WriteBuffer } from './write-buffer.js';
import type { ModelRequestListener, RunAuth, SystemTool, ToolImplementation } from './types.js';
import type { RunnerLogger } from './logger.js';
import type { ToolPolicySets } from './taint.js';
import type { RunnerEventSink } from './events.js';
import type { ResponseRelease } from './response-release.js';

/** Everything shared by the agent runs of one `run()` call. */
export interface CallState {
  threadId: string;
  auth: RunAuth;
  depth: number;
  /** Aborted when the caller aborts or the call times out. */
  signal: AbortSignal;
  store: ThreadStore;
  /** This call's writes (batched per turn when the store supports it); flush before reading the store. */
  writes: WriteBuffer;
  tracing: RunTracing;
  guard: GuardrailCheckerOptions;
  validator: ArgumentValidator;
  tools: Readonly<Record<string, ToolImplementation>>;
  /** Runtime tools by name, from RunnerOptions (offered per baton.yml `system_tools`). */
  systemTools: ReadonlyMap<string, SystemTool>;
  /** Runtime tools offered to every agent run of this call (RunRequest.systemTools). */
  requestSystemTools: readonly SystemTool[];
  maxTurns: number;
  nextSequence(): number;
  onModelRequest: ModelRequestListener | undefined;
  fetch: typeof fetch;
  logger: RunnerLogger;
  /** RunRequest.idempotencyKey; the base of every key this call derives. */
  idempotencyKey: string | undefined;
  /** The source → sink tool policy (RunnerOptions.toolPolicy), kept with the thread. */
  toolPolicy: () => Promise<ToolPolicySets>;
  /** This call's event listeners (RunRequest.onEvent and RunnerOptions.onEvent). */
  events: RunnerEventSink;
  /** RunRequest.stream: in-process agents stream the model's answer through `AgentRunState.release`. */
  stream: boolean;
  /** The thread was created by this call (already locked): no earlier turns, no history read. */
  freshThread?: boolean;
}

/** One agent run in progress. */
export interface AgentRunState {
  agent: RegisteredAgent;
  runId: string;
  /** The agent run span's context; tool and guardrail spans start under it. */
  context: Context;
  /** Racing mode: resolves true once AGENT_INPUT allowed the input. */
  inputGate?: Promise<boolean>;
  /** Valid handoff requests of the current turn by call id. */
  handoffRequests: Map<string, HandoffPayload>;
  /** Set when a terminal system tool was called. */
  terminal?: { callId: string; name: string; arguments: JsonObject };
  /** Position of this agent run in its call's chain (0 first); part of derived idempotency keys. */
  ordinal: number;
  /** Tool calls and state merges made so far in this agent run (for derived idempotency keys). */
  counters: { toolCalls: number; stateMerges: number };
  /** Releases this run's answer text through the AGENT_RESPONSE check (streamed or whole). */
  release: ResponseRelease;
  /** Calls a human approved (resumed run): call id → approval id, for `ToolContext.approval`. */
  approvedCalls?: Map<string, string>;
}

/** The key of this agent run's next state merge, when the call has an idempotency key. */
export function nextStateMergeKey(call: CallState, run: AgentRunState): string | undefined {
  if (call.idempotencyKey === undefined) return undefined;
  return `${call.idempotencyKey}#r${run.ordinal}.state${run.counters.stateMerges++}`;
}
