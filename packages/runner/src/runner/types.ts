import type { GuardrailValidator } from '@baton/manifest';
import type { ModelProvider } from '@openai/agents-core';
import type { RunRecord, ThreadStore } from '../store/types.js';
import type { RunnerEventListener } from './events.js';

/**
 * Keystone interfaces of @baton/runner. Other packages (packets, skills, cli, demo) code against
 * these; extend compatibly (new optional fields), never break.
 */

/** Who is asking, tool context, system tools and the handoff gate: the one contracts, from `@baton/manifest/contracts`. */
import type {
  HandoffGate,
  HandoffGateRequest,
  HandoffGateToolResult,
  PreparedHandoff,
  RunAuth,
  SystemTool,
  ToolContext,
  ToolImplementation,
} from '@baton/manifest/contracts';
export type {
  HandoffGate,
  HandoffGateRequest,
  HandoffGateToolResult,
  PreparedHandoff,
  RunAuth,
  SystemTool,
  ToolContext,
  ToolImplementation,
};

/** Limits that bound every run. */
export interface RunnerLimits {
  /** Model turns per agent run (default 10). */
  maxTurns?: number;
  /** Handoffs per `run()` call (default 5). */
  maxHandoffs?: number;
  /** Wall-clock timeout for one `run()` call, ms (default 120000). */
  runTimeoutMs?: number;
  /** Guardrail call timeout, ms (default 2000). */
  guardrailTimeoutMs?: number;
  /**
   * Lease of the thread lock, ms (default `runTimeoutMs` + 10000). The runner renews it while the
   * run lives, so it only bounds how long a thread stays locked after its process dies.
   */
  lockLeaseMs?: number;
  /** How long a run paused for approval (`requires_action`) waits for a decision, ms (default 86400000, one day). */
  approvalTimeoutMs?: number;
}

/** A run's summary and result: the one contracts, from `@baton/manifest/contracts`. */
import type { RequiredAction, RunRequest as ContractRunRequest, RunResult, RunSummary } from '@baton/manifest/contracts';
export type { RequiredAction, RunResult, RunSummary };

/**
 * A request for one run: the contract's `RunRequest` (`@baton/manifest/contracts`) plus what only
 * an in-process caller of this runner can pass (event listeners, streaming).
 */
export interface RunRequest extends ContractRunRequest {
  /**
   * This call's events (run, handoff, tool, guardrail, released answer text), in order; see
   * README "Runner events". A listener that throws never changes the run.
   */
  onEvent?: RunnerEventListener;
  /**
   * Stream the model's answer: in-process agents run with the Agents SDK's streaming, and answer
   * text reaches `onEvent` as `text_delta` segments as soon as the AGENT_RESPONSE check cleared
   * them (README "Streaming answers"). Without it (or without any listener) the answer is
   * checked once and is one `text_delta` after that check.
   */
  stream?: boolean;
}

/** One decision on a pending approval. */
export interface ApprovalDecision {
  /** A `required_action.approvals[].id`. */
  id: string;
  approve: boolean;
  /** Shown to the model with a rejection (at most 1000 characters); default a generic refusal. */
  reason?: string;
}

/** Input of `runner.submitApprovals()`: a decision for every pending approval of a paused run. */
export interface SubmitApprovalsRequest {
  runId: string;
  decisions: ApprovalDecision[];
  /** Who decides: must be of the thread's tenant (another tenant's run is "not found"). */
  auth?: RunAuth;
  traceparent?: string;
  tracestate?: string;
  signal?: AbortSignal;
  /** This call's events (`approval_decided`, then the resumed run's), as `RunRequest.onEvent`. */
  onEvent?: RunnerEventListener;
}

/** Sink for every model request as sent (capture, audit). */
export type ModelRequestListener = (event: {
  sequence: number;
  agentId: string;
  runId: string;
  threadId: string;
  request: unknown;
}) => void | Promise<void>;

export type { RunRecord, ThreadStore, ModelProvider, GuardrailValidator };
