import type { GuardrailValidator } from '@baton/manifest';
import type { ModelProvider } from '@openai/agents-core';
import type { RunRecord, ThreadStore } from '../store/types.js';

/**
 * Keystone interfaces of @baton/runner. Other packages (packets, skills, cli, demo) code against
 * these; extend compatibly (new optional fields), never break.
 */

/** Who is asking, tool context, system tools and the handoff gate: the one contracts, from `@baton/manifest/contracts`. */
import type { HandoffGate, HandoffGateRequest, HandoffGateToolResult, PreparedHandoff, RunAuth, SystemTool, ToolContext, ToolImplementation } from '@baton/manifest/contracts';
export type { HandoffGate, HandoffGateRequest, HandoffGateToolResult, PreparedHandoff, RunAuth, SystemTool, ToolContext, ToolImplementation };

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
}

/** A request for one run, its summary and result: the one contracts, from `@baton/manifest/contracts`. */
import type { RunRequest, RunResult, RunSummary } from '@baton/manifest/contracts';
export type { RunRequest, RunResult, RunSummary };

/** Sink for every model request as sent (capture, audit). */
export type ModelRequestListener = (event: { sequence: number; agentId: string; runId: string; threadId: string; request: unknown }) => void | Promise<void>;

export type { RunRecord, ThreadStore, ModelProvider, GuardrailValidator };
