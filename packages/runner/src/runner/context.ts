import type { Runner as SdkRunner } from '@openai/agents-core';
import type { GuardrailChecker } from '@baton/guardrail-client';
import type { AgentRegistry } from '../registry/types.js';
import type { ThreadStore } from '../store/types.js';
import type { ApprovalGate } from './approval-gate.js';
import type { StateSeal } from './approvals.js';
import type { RunnerLogger } from './logger.js';
import type { DEFAULT_LIMITS } from './request.js';
import type { RunnerOptions } from './runner.js';
import type { ArgumentValidator } from './schema-validator.js';
import type { ToolPolicySets } from './taint.js';
import type { RunTracing } from './tracing.js';
import type { SystemTool } from './types.js';

/**
 * What a Runner resolved from its options once, shared read-only by the run, chain, handoff and
 * input-check modules so none of them re-derives a default.
 */
export interface RunnerContext {
  /** The options as given (tools, gate, listeners, labels). */
  readonly options: RunnerOptions;
  /** The agents that may run. */
  readonly registry: AgentRegistry;
  /** The thread store (default: in-memory). */
  readonly store: ThreadStore;
  /** Limits after baton.yml and options are merged over the defaults. */
  readonly limits: typeof DEFAULT_LIMITS;
  /** Span helpers over the configured tracer. */
  readonly tracing: RunTracing;
  /** The one @openai/agents runner, shared so its model provider is resolved once. */
  readonly sdkRunner: SdkRunner;
  /** Compiled tool-argument schemas, cached across runs. */
  readonly validator: ArgumentValidator;
  /** Runner-configured system tools by name. */
  readonly systemTools: ReadonlyMap<string, SystemTool>;
  /** Where warnings go. */
  readonly logger: RunnerLogger;
  /** Source/sink tool lists, resolved lazily (the engine default loads on first use). */
  readonly toolPolicy: () => Promise<ToolPolicySets>;
  /** The one guardrail call path. */
  readonly checker: GuardrailChecker;
  /** Seals and opens paused runs' stored state. */
  readonly seal: StateSeal;
  /** Clock for approval expiry. */
  readonly clock: () => Date;
  /** Claims and decides paused runs. */
  readonly approvalGate: ApprovalGate;
}
