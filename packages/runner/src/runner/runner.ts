import { Runner as SdkRunner, type ModelProvider } from '@openai/agents-core';
import type { ActionType, GuardrailValidator } from '@baton/manifest';
import { trace, type Tracer } from '@opentelemetry/api';
import { createGuardrailChecker, type GuardrailChecker } from '@baton/guardrail-client';
import { InvalidRunRequestError, RegistryError, ToolNameError, type RegistryProblem } from '../errors.js';
import type { AgentRegistry } from '../registry/types.js';
import { createMemoryThreadStore } from '../store/index.js';
import type { ThreadStore } from '../store/types.js';
import { approvalStore } from './approval-flow.js';
import { ApprovalGate } from './approval-gate.js';
import { ApprovalsUnsupportedError, StateSeal, type RunnerApprovalOptions } from './approvals.js';
import type { RunnerContext } from './context.js';
import type { RunnerEventListener } from './events.js';
import type { HistorySummarizer } from './history.js';
import { noopLogger, type RunnerLogger } from './logger.js';
import { checkSystemToolShape, resolveLimits } from './request.js';
import { resumeRun, startRun } from './run.js';
import { ArgumentValidator } from './schema-validator.js';
import { toolPolicyResolver, type ToolPolicy } from './taint.js';
import { RunTracing, TRACER_NAME } from './tracing.js';
import type {
  HandoffGate,
  ModelRequestListener,
  RunnerLimits,
  RunRequest,
  RunResult,
  SubmitApprovalsRequest,
  SystemTool,
  ToolImplementation,
} from './types.js';

// Kept importable from here: the package entry and existing imports name this module.
export { DEFAULT_LIMITS } from './request.js';

/** Options for {@link Runner}. */
export interface RunnerOptions {
  /** The agents this runner may run (see `loadAgentRegistry`). */
  registry: AgentRegistry;
  /** Tool implementations by tool name, shared by every agent that declares the tool. */
  tools?: Record<string, ToolImplementation>;
  /** Runtime-owned tools, offered to agents whose baton.yml `system_tools` name them. */
  systemTools?: SystemTool[];
  /** Required: every boundary is checked; there is no allow-all default. */
  guardrails: GuardrailValidator;
  /** Action types allowed through when the guardrail fails (not when it says BLOCK). Default none: fail closed. */
  guardrailFailOpen?: ActionType[];
  /** Threads, runs, items, state, audit. Default: an in-memory store. */
  store?: ThreadStore;
  /** Resolves each manifest's `model.name` to a Model. */
  modelProvider: ModelProvider;
  /** Shown as `RunResult.model`, e.g. "offline model" or "openai". */
  modelLabel?: string;
  /** OpenTelemetry tracer (default: the global `@baton/runner` tracer); `agentsSdkTracing` keeps the SDK's own tracing on. */
  tracing?: { tracer?: Tracer; agentsSdkTracing?: boolean };
  /** Limits; baton.yml `limits` fill what is not set here. */
  limits?: RunnerLimits;
  /** Decides what crosses a handoff (e.g. @baton/packets); default: the handoff's `input` verbatim. */
  handoffGate?: HandoffGate;
  /** Sees every model request as sent, with a per-call sequence number. */
  onModelRequest?: ModelRequestListener;
  logger?: RunnerLogger;
  /** Thread id generator for new threads (default `thread_<32 hex>`). */
  idGenerator?: () => string;
  /** `fetch` handed to tools (trace headers are added); default the global one. */
  fetch?: typeof fetch;
  /**
   * Untrusted-source → sink tool policy, enforced by the runner with the taint kept in the thread
   * store (survives restarts, cannot be evicted). Default: the guardrail engine's default
   * `tool_policy` lists; `{ sourceTools: [], sinkTools: [] }` turns it off.
   */
  toolPolicy?: ToolPolicy;
  /** Summarises a thread's turns that fall out of an agent's baton.yml `history` window (see README "Threads and history"). */
  summarizeHistory?: HistorySummarizer;
  /** Every run's events (README "Runner events"); `RunRequest.onEvent` subscribes to one call. */
  onEvent?: RunnerEventListener;
  /** Streamed answers: text without a sentence or line end longer than this is released at its last space (default 400). */
  streamSegmentMaxChars?: number;
  /** Resumable approvals: an extra approval rule and the seal of stored run state (see README "Approvals"). */
  approvals?: RunnerApprovalOptions;
  /** Clock for approval expiry (default `new Date()`); tests inject one. */
  clock?: () => Date;
}

/**
 * Runs agents on threads: the tool loop through @openai/agents, `system::handoff`, guardrails at
 * every boundary, thread state and locks, tracing. `run()` returns failures as results (status
 * `failed`/`expired`/`cancelled` with `error`) and throws only for caller mistakes.
 *
 * A facade: the work is in run.ts (one call), chain.ts (its agent runs), handoff.ts,
 * input-check.ts, launch.ts, result.ts and request.ts, all over the context resolved here.
 */
export class Runner {
  private readonly ctx: RunnerContext;

  constructor(options: RunnerOptions) {
    if (!options || typeof options !== 'object') throw new InvalidRunRequestError('new Runner(options): options object is required');
    if (!options.registry) throw new InvalidRunRequestError('new Runner(options): `registry` is required (see loadAgentRegistry)');
    if (!options.guardrails || typeof options.guardrails.validate !== 'function') {
      throw new InvalidRunRequestError(
        'new Runner(options): `guardrails` (a GuardrailValidator) is required; Baton never runs without guardrails',
      );
    }
    if (!options.modelProvider || typeof options.modelProvider.getModel !== 'function') {
      throw new InvalidRunRequestError('new Runner(options): `modelProvider` (an @openai/agents ModelProvider) is required');
    }
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function')
      throw new InvalidRunRequestError('new Runner(options): `onEvent` must be a function');
    const segment = options.streamSegmentMaxChars;
    if (segment !== undefined && (!Number.isInteger(segment) || segment < 16 || segment > 1_000_000)) {
      throw new InvalidRunRequestError(
        `new Runner(options): \`streamSegmentMaxChars\` must be an integer from 16 to 1000000; got ${String(segment)}`,
      );
    }
    const systemTools = new Map<string, SystemTool>();
    for (const [i, st] of (options.systemTools ?? []).entries()) {
      const where = `new Runner(options): systemTools[${i}]`;
      checkSystemToolShape(st, where);
      if (systemTools.has(st.name))
        throw new ToolNameError(st.name, `${where}: a system tool named '${st.name}' is already given; names must be unique`, {
          code: 'TOOL_NAME_CONFLICT',
        });
      systemTools.set(st.name, st);
    }
    const store = options.store ?? createMemoryThreadStore();
    const limits = resolveLimits(options.registry.limits, options.limits);
    const clock = options.clock ?? (() => new Date());
    this.ctx = {
      options,
      registry: options.registry,
      store,
      limits,
      tracing: new RunTracing(options.tracing?.tracer ?? trace.getTracer(TRACER_NAME)),
      sdkRunner: new SdkRunner({ modelProvider: options.modelProvider, tracingDisabled: options.tracing?.agentsSdkTracing !== true }),
      validator: new ArgumentValidator(),
      systemTools,
      logger: options.logger ?? noopLogger,
      toolPolicy: toolPolicyResolver(options.toolPolicy),
      checker: createGuardrailChecker({
        validator: options.guardrails,
        timeoutMs: limits.guardrailTimeoutMs,
        failOpen: options.guardrailFailOpen ?? [],
      }),
      seal: new StateSeal(options.approvals?.stateSecret),
      clock,
      approvalGate: new ApprovalGate({ store, clock }),
    };
    checkConfiguration(this.ctx);
  }

  /**
   * The Runner's guardrail checker (its validator, `guardrailTimeoutMs` and `guardrailFailOpen`):
   * the one call path, for components that check boundaries of their own (delegation).
   */
  get guardrailChecker(): GuardrailChecker {
    return this.ctx.checker;
  }

  /** The thread store in use (for reading threads, runs, items and audit records). */
  get threadStore(): ThreadStore {
    return this.ctx.store;
  }

  /** Runs `request.agentId` on a thread (and any agents it hands off to). */
  run(request: RunRequest): Promise<RunResult> {
    return startRun(this.ctx, request);
  }

  /**
   * Decides a run paused in `requires_action` and resumes it: each pending approval approved (the
   * tool runs, with every guardrail) or rejected (the model gets a refusal and the run goes on).
   * Throws `ApprovalError`s for caller mistakes: unknown run or another tenant's
   * (`APPROVAL_RUN_NOT_FOUND`), bad decisions (`APPROVAL_INVALID`), nothing waiting or decided by
   * a concurrent call (`APPROVAL_CONFLICT`), too late (`APPROVAL_EXPIRED`, the run becomes `expired`).
   */
  submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult> {
    return resumeRun(this.ctx, request);
  }
}

/** Every agent's system tools provided, approval rules pointing at real tools, and a store that can keep paused runs. */
function checkConfiguration(ctx: RunnerContext): void {
  const problems: RegistryProblem[] = [];
  for (const agent of ctx.registry.list()) {
    for (const name of agent.deployment.system_tools) {
      if (!ctx.systemTools.has(name)) {
        problems.push({
          file: agent.source,
          line: 1,
          col: 1,
          message: `agent ${agent.manifest.id}: system tool '${name}' (baton.yml system_tools) is not provided to the Runner`,
        });
      }
    }
    for (const name of agent.deployment.approval_required_tools ?? []) {
      if (!agent.manifest.tools.some((t) => t.function.name === name) && !agent.deployment.system_tools.includes(name)) {
        problems.push({
          file: agent.source,
          line: 1,
          col: 1,
          message: `agent ${agent.manifest.id}: approval_required_tools names '${name}', which is neither a tool in its manifest nor one of its system_tools`,
        });
      }
    }
    for (const t of agent.manifest.tools) {
      if (!ctx.options.tools?.[t.function.name]) {
        ctx.logger.warn('tool has no implementation; calls will return an error to the model', {
          agent_id: agent.manifest.id,
          tool: t.function.name,
        });
      }
    }
  }
  if (problems.length > 0) throw new RegistryError(problems, { summary: 'runner configuration has problems:' });
  const approvalsConfigured =
    ctx.options.approvals?.policy !== undefined || ctx.registry.list().some((a) => (a.deployment.approval_required_tools ?? []).length > 0);
  if (approvalsConfigured && !approvalStore(ctx.store)) {
    throw new ApprovalsUnsupportedError(
      'new Runner(options): approvals are configured (baton.yml approval_required_tools or approvals.policy), but the thread store cannot keep paused runs (saveSuspendedRun/getSuspendedRun/listSuspendedRuns/takeSuspendedRun)',
    );
  }
}
