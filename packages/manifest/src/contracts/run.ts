import type { RunAuth } from './auth.js';
import type { ErrorInfo } from './errors.js';
import type { BoundaryDecisionRecorder, BoundaryGuardrailCheck, HandoffGuardrailCheck } from './handoff-check.js';

/**
 * The runtime contracts of a run: what a run executor is asked and what it answers, the tools it
 * is handed, and the gate at a handoff. `@baton/runner` implements them; packets, skills, queue
 * and the CLI code against these declarations (one source; the runner re-exports them).
 */

/** A JSON object (plain data). */
export type JsonObject = Record<string, unknown>;

/** Run statuses: Baton's own, modelled on the retired Assistants API (DESIGN.md decision 2). */
export const RUN_STATUSES = ['queued', 'in_progress', 'requires_action', 'completed', 'cancelled', 'failed', 'expired'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * One guardrail decision as a run records it (an entry of `RunResult.guardrail_decisions`): ids
 * and codes, never payload content. The one declaration: the runner records these, and a
 * dispatched subtask's worker returns its boundary decisions in this shape (`DelegatedTaskResult`).
 */
export interface GuardrailDecisionRecord {
  action_type: string;
  decision: string;
  reason_code: string;
  agent_id: string;
  findings?: unknown[];
}

/** Context handed to every tool implementation. */
export interface ToolContext {
  threadId: string;
  runId: string;
  agentId: string;
  /** Delegation depth of the agent calling the tool (0 for a top-level run). */
  depth: number;
  /** Aborted when the run is cancelled or times out. */
  signal: AbortSignal;
  auth: RunAuth;
  /** W3C headers for the tool call's span; inject into any outbound HTTP call. */
  traceparent?: string;
  tracestate?: string;
  /** `fetch` that injects trace headers. */
  fetch: typeof fetch;
  /**
   * Present when the run was given `RunRequest.idempotencyKey`: the same for the same call (same
   * agent run, same position, same tool and arguments) when a crashed run is retried. A tool with
   * side effects uses it to do its work at most once.
   */
  idempotencyKey?: string;
  /** Set when a human approved this call (the run paused in `requires_action` and was resumed). */
  approval?: { id: string; approved: true };
  /**
   * The runner's recorded guardrail check for a boundary the tool opens (a delegation's subagent
   * input and yield): decided by the runner's checker and recorded like the runner's own
   * decisions. The Baton runner always supplies it.
   */
  checkBoundary?: BoundaryGuardrailCheck;
  /**
   * Records boundary decisions the tool did not make through `checkBoundary` because its subtask
   * ran elsewhere (a queued delegation: the worker checked with its own checker) exactly like
   * `checkBoundary`'s: same recording, so in-process and dispatched subtasks leave the same
   * trail. The Baton runner always supplies it.
   */
  recordBoundaryDecisions?: BoundaryDecisionRecorder;
}

/** A user tool: arguments are already validated against the manifest's JSON Schema. */
export type ToolImplementation<Ctx = ToolContext> = {
  // Declared as a method so that a handler with typed arguments (`({ case_id }: { case_id: string }) => …`)
  // is accepted: the runner validates the arguments against the tool's JSON Schema before calling it.
  bivarianceHack(args: Record<string, unknown>, ctx: Ctx): unknown | Promise<unknown>;
}['bivarianceHack'];

/**
 * A runtime-owned tool (e.g. `delegate_task`, `yield_control`) offered to agents whose deployment
 * config lists it, or to one run through `RunRequest.systemTools`. Guardrails apply as for any tool.
 * `Ctx` is the context its `execute` reads: the runner passes a full {@link ToolContext}; a tool
 * that also runs outside a run (delegation's) declares the subset it needs.
 */
export interface SystemTool<Ctx = ToolContext> {
  name: string;
  description: string;
  /** JSON Schema (type object) of the arguments. */
  parameters: JsonObject;
  execute: ToolImplementation<Ctx>;
  /** Calling a terminal tool ends the run; its arguments become `RunResult.terminal`. */
  terminal?: boolean;
  /**
   * Whether a call waits for a human decision (the run pauses in `requires_action`), e.g.
   * `delegate_task` with `requires_approval: true`. Given the parsed arguments (`{}` when they are
   * not a JSON object). A throw counts as "needs approval" (fail closed).
   */
  needsApproval?: boolean | ((args: Record<string, unknown>, ctx: { agentId: string; threadId: string }) => boolean | Promise<boolean>);
  /**
   * The tool's own report on a call that ran, for the runner's `tool_end` event: ids, names,
   * codes, counts and flags only (never argument or output text). Given the arguments it ran with
   * and its output; what is not a flat string, number or boolean is dropped, a throw reports nothing.
   */
  eventDetail?: (args: Record<string, unknown>, output: string, ctx: Ctx) => Record<string, string | number | boolean> | undefined;
}

/** A tool call that succeeded on the thread (recorded call and output, no error). */
export interface HandoffGateToolResult {
  /** The agent that made the call. */
  agentId: string;
  runId: string;
  /** Protocol name of the tool. */
  name: string;
  /** The arguments the tool ran with (after guardrails). */
  arguments: JsonObject;
}

/** Input to a handoff gate: what the runner knows when a handoff is requested. */
export interface HandoffGateRequest {
  threadId: string;
  /** The run being cancelled by the handoff. */
  runId: string;
  sourceAgentId: string;
  targetAgentId: string;
  /** The handoff's `input` argument (model-generated); a packet gate never copies it into the packet. */
  input: string;
  /** The handoff's `state` argument (model-generated), before merge. */
  state: JsonObject;
  /** The thread's state after the merge. */
  threadState: JsonObject;
  /** The authenticated caller. */
  auth: RunAuth;
  traceId?: string;
  /**
   * The runner's guardrail check of what crosses (AGENT_HANDOFF): a gate calls it once, on what it
   * lets cross (e.g. the rendered packet and its state view), so the decision is recorded in the
   * run's trace, audit and `guardrail_decisions`. The Baton runner always supplies it.
   */
  checkHandoff?: HandoffGuardrailCheck;
  /**
   * Tool calls that succeeded on this thread so far, oldest first (the runner fills it in):
   * evidence of what agents read.
   */
  toolResults?: readonly HandoffGateToolResult[];
}

/** What the gate decided crosses: the target's whole input, and nothing else. */
export interface PreparedHandoff {
  /** The exact first user message of the target's run. */
  input: string;
  /** Server-generated packet id, when a packet was built. */
  packetId?: string;
  /** Called once with the exact request sent to the recipient's model (its first model call). */
  onRecipientModelRequest?(request: unknown): Promise<void> | void;
  /**
   * The `state` a subprocess recipient (baton.yml `mode: subprocess`) receives on stdin instead of
   * the thread's state; `{}` when absent. A packet gate gives only contract-approved fields.
   */
  state?: JsonObject;
  /**
   * Called with the exact object about to be written to a subprocess recipient's stdin, before
   * the process starts (the gate's proof hook on that path); throwing stops the run, no process
   * is started.
   */
  onRecipientProcessInput?(stdin: unknown): Promise<void> | void;
}

/**
 * Decides what crosses a handoff. Throwing stops the handoff before the target is invoked (the
 * target's model receives nothing); the error's `code` is recorded. `Prepared` lets a gate
 * promise more than the minimum (the packet gate always returns a packet id, state and hooks).
 */
export interface HandoffGate<Prepared extends PreparedHandoff = PreparedHandoff> {
  prepare(request: HandoffGateRequest): Promise<Prepared>;
}

/** A request for one run (plus any handoffs it causes). */
export interface RunRequest {
  agentId: string;
  /** Pin an agent version; the highest semver wins otherwise. */
  agentVersion?: string;
  input: string;
  /**
   * Continue an existing thread; a new one is created otherwise (owned by `auth.tenant`). A
   * thread owned by another tenant (or by a tenant when this call has none, or the reverse) is
   * refused with ThreadNotFoundError, exactly as a thread that does not exist.
   */
  threadId?: string;
  traceparent?: string;
  tracestate?: string;
  signal?: AbortSignal;
  auth?: RunAuth;
  /** Extra runtime tools for this run only (e.g. `yield_control` for a subagent). */
  systemTools?: SystemTool[];
  /** Delegation depth of this run (0 for a top-level run). */
  depth?: number;
  /** Per-run override of `maxTurns`. */
  maxTurns?: number;
  /**
   * The first agent's input was prepared by a gate outside the runner (e.g. a delegation packet
   * gate): its proof hooks and state view apply to this call's first agent run exactly as after a
   * gated handoff — `onRecipientModelRequest` gets its first model request, or, for a subprocess
   * agent, stdin carries `state` (default `{}`) instead of the thread state and
   * `onRecipientProcessInput` gets the stdin object before the process starts.
   */
  inputBoundary?: Pick<PreparedHandoff, 'state' | 'onRecipientModelRequest' | 'onRecipientProcessInput'>;
  /**
   * Makes a retried request safe: state merges carry keys derived from it (a store applies each at
   * most once) and tools receive `ToolContext.idempotencyKey`. Give the same key when re-running a
   * request whose first attempt may have partly happened (e.g. a queue job retried after a crash).
   * 1-120 characters of letters, digits, `_ . : - /`.
   */
  idempotencyKey?: string;
}

/** One run as reported in a result. */
export interface RunSummary {
  run_id: string;
  agent_id: string;
  agent_version: string;
  status: RunStatus;
  error?: ErrorInfo;
}

/** The result of a run executor's `run()`. */
export interface RunResult {
  thread_id: string;
  /** Every run this call created, in order (a handoff adds one). */
  runs: RunSummary[];
  /** The id of the last run. */
  run_id: string;
  /** The agent that produced the final response. */
  agent_id: string;
  status: RunStatus;
  /** The final response as the user may see it (after AGENT_RESPONSE guardrails); null if none. */
  response: string | null;
  /** The thread's state after this call. */
  state: JsonObject;
  /** Set when a terminal system tool (e.g. `yield_control`) ended the run. */
  terminal?: { name: string; arguments: JsonObject };
  /** Every guardrail decision taken during this call (no payload content). */
  guardrail_decisions: GuardrailDecisionRecord[];
  trace_id: string;
  /** Which model produced this, e.g. "offline model" or "openai:gpt-4.1". */
  model: string;
  /**
   * Set when `status` is `requires_action`: the tool calls waiting for a decision. Answer with
   * `runner.submitApprovals({ runId: required_action.run_id, decisions })` (HTTP:
   * `POST /v1/runs/:run_id/approvals`) before `expires_at`.
   */
  required_action?: RequiredAction;
  /** Why the call did not complete (status `failed`, `expired` or `cancelled`); never payload content. */
  error?: ErrorInfo;
  /**
   * Handoff packets allowed during this call, in order (ids, classes and digests only, never
   * content). The runner itself leaves this unset; callers that read the packet audit records
   * (e.g. `baton run` / `baton serve`) fill it in. `digest` is null until the recipient's first
   * model request was recorded.
   */
  packets?: Array<{
    packet_id: string;
    source: string;
    destination: string;
    purpose: string;
    contract_version: string;
    digest: string | null;
    /** Ids of the `handoff_decision` and `packet_boundary` audit records. */
    decision_record_id: string;
    boundary_record_id: string | null;
  }>;
}

/**
 * Anything that runs a request: the Baton `Runner`, a queue runner, a wrapper around either. The
 * one "something with `run()`" (was `RunExecutor` in queue, `RunnerLike` in the runner's HTTP
 * server, `SubagentRunner` in skills). A consumer that reads less may narrow `Req`/`Res`.
 */
export interface RunExecutor<Req = RunRequest, Res = RunResult> {
  run(request: Req): Promise<Res>;
}

/** What a run paused in `requires_action` waits for (named after the Assistants API's field). */
export interface RequiredAction {
  type: 'submit_approvals';
  /** The paused run (the one to post decisions to). */
  run_id: string;
  /** ISO time after which a decision is refused and the run becomes `expired`. */
  expires_at: string;
  approvals: Array<{
    /** Name this in the decision. */
    id: string;
    agent_id: string;
    /** The tool's protocol name. */
    tool_name: string;
    /** The call's arguments as the model sent them (JSON text); guardrails check them after approval. */
    arguments: string;
    call_id: string;
  }>;
}
