import { randomUUID } from 'node:crypto';
import { Runner as SdkRunner, type ModelProvider } from '@openai/agents-core';
import { HANDOFF_PROTOCOL_NAME, HandoffPayloadSchema, type ActionType, type GuardrailValidator, type HandoffGuardrailCheck, type HandoffPayload } from '@baton/manifest';
import { trace, type Context, type Tracer } from '@opentelemetry/api';
import {
  AgentNotFoundError,
  GuardrailBlockedError,
  HandoffLimitError,
  HandoffLoopError,
  HandoffRejectedError,
  InvalidRunRequestError,
  RegistryError,
  RunTimeoutError,
  ToolNameError,
  toErrorInfo,
  type RegistryProblem,
} from '../errors.js';
import type { AgentRegistry, RegisteredAgent } from '../registry/types.js';
import { ACTIVE_RUN_STATUSES, RUNNER_CRASHED, ThreadNotFoundError, createMemoryThreadStore } from '../store/index.js';
import { ABANDONED_RUN_MESSAGE } from '../store/rules.js';
import type { AcquireLockOptions, JsonObject, RunStatus, ThreadLock, ThreadStore } from '../store/types.js';
import { nextStateMergeKey, type AgentRunState, type CallState } from './call-state.js';
import { createGuardrailChecker, type GuardrailChecker } from '@baton/guardrail-client';
import { checkGuardrail, type GuardrailCheckerOptions, type RecordedDecision } from './guardrails.js';
import { runInProcessAgent, type AgentRunOutcome, type InProcessAgentOptions } from './in-process-agent.js';
import { ArgumentValidator } from './schema-validator.js';
import { runSubprocessAgent } from './subprocess-agent.js';
import { successfulToolCalls } from './tool-evidence.js';
import { systemToolNameProblem } from './tool-names.js';
import { WriteBuffer } from './write-buffer.js';
import { toolPolicyResolver, type ToolPolicy, type ToolPolicySets } from './taint.js';
import { loadAgentHistory, type HistorySummarizer } from './history.js';
import { RunTracing, TRACER_NAME, endSpan } from './tracing.js';
import {
  ApprovalError,
  ApprovalsUnsupportedError,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  APPROVAL_STATE_INVALID,
  StateSeal,
  requiredActionOf,
  type RunnerApprovalOptions,
} from './approvals.js';
import { applyDecisions, approvalDecider, approvalStore, suspendAgentRun } from './approval-flow.js';
import { ApprovalGate, type ResumePlan } from './approval-gate.js';
import type { SuspendedRun } from '../store/types.js';
import { noopLogger, type RunnerLogger } from './logger.js';
import { createEventSink, type RunnerEventListener, type RunnerEventSink } from './events.js';
import { ResponseRelease } from './response-release.js';
import type {
  HandoffGate,
  ModelRequestListener,
  PreparedHandoff,
  RunnerLimits,
  RunRequest,
  RunResult,
  RunSummary,
  SystemTool,
  ToolImplementation,
  RequiredAction,
  SubmitApprovalsRequest,
} from './types.js';



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

/** Limit defaults, in one place. */
export const DEFAULT_LIMITS: Required<Omit<RunnerLimits, 'lockLeaseMs'>> & Pick<RunnerLimits, 'lockLeaseMs'> = {
  maxTurns: 10,
  maxHandoffs: 5,
  runTimeoutMs: 120_000,
  guardrailTimeoutMs: 2_000,
  approvalTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
  /** Unset: `runTimeoutMs` + 10000. */
  lockLeaseMs: undefined,
};

/** Added to `runTimeoutMs` for the default thread-lock lease. */
const LOCK_LEASE_MARGIN_MS = 10_000;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,119}$/;

const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;
const REFUSAL = 'I can’t share that response: it was withheld by a guardrail.';

/** The thread belongs to another tenant; surfaces as ThreadNotFoundError (no existence oracle). */
class ThreadAccessRefused extends Error {
  constructor(readonly threadId: string) {
    super('thread belongs to another tenant');
  }
}

/** Thrown inside a racing model call when the AGENT_INPUT check blocks. */
class InputBlockedDuringRace extends GuardrailBlockedError {}

/**
 * Runs agents on threads: the tool loop through @openai/agents, `system::handoff`, guardrails at
 * every boundary, thread state and locks, tracing. `run()` returns failures as results (status
 * `failed`/`expired`/`cancelled` with `error`) and throws only for caller mistakes.
 */
export class Runner {
  private readonly registry: AgentRegistry;
  private readonly store: ThreadStore;
  private readonly limits: typeof DEFAULT_LIMITS;
  private readonly tracing: RunTracing;
  private readonly sdkRunner: SdkRunner;
  private readonly validator = new ArgumentValidator();
  private readonly systemTools: Map<string, SystemTool>;
  private readonly logger: RunnerLogger;
  private readonly toolPolicy: () => Promise<ToolPolicySets>;
  private readonly checker: GuardrailChecker;
  private readonly seal: StateSeal;
  private readonly clock: () => Date;
  private readonly approvalGate: ApprovalGate;

  constructor(private readonly options: RunnerOptions) {
    if (!options || typeof options !== 'object') throw new InvalidRunRequestError('new Runner(options): options object is required');
    if (!options.registry) throw new InvalidRunRequestError('new Runner(options): `registry` is required (see loadAgentRegistry)');
    if (!options.guardrails || typeof options.guardrails.validate !== 'function') {
      throw new InvalidRunRequestError('new Runner(options): `guardrails` (a GuardrailValidator) is required; Baton never runs without guardrails');
    }
    if (!options.modelProvider || typeof options.modelProvider.getModel !== 'function') {
      throw new InvalidRunRequestError('new Runner(options): `modelProvider` (an @openai/agents ModelProvider) is required');
    }
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') throw new InvalidRunRequestError('new Runner(options): `onEvent` must be a function');
    const segment = options.streamSegmentMaxChars;
    if (segment !== undefined && (!Number.isInteger(segment) || segment < 16 || segment > 1_000_000)) {
      throw new InvalidRunRequestError(`new Runner(options): \`streamSegmentMaxChars\` must be an integer from 16 to 1000000; got ${String(segment)}`);
    }
    this.registry = options.registry;
    this.store = options.store ?? createMemoryThreadStore();
    this.limits = { ...DEFAULT_LIMITS, ...definedOnly(options.registry.limits), ...definedOnly(options.limits ?? {}) };
    this.tracing = new RunTracing(options.tracing?.tracer ?? trace.getTracer(TRACER_NAME));
    this.sdkRunner = new SdkRunner({ modelProvider: options.modelProvider, tracingDisabled: options.tracing?.agentsSdkTracing !== true });
    this.logger = options.logger ?? noopLogger;
    this.toolPolicy = toolPolicyResolver(options.toolPolicy);
    this.checker = createGuardrailChecker({ validator: options.guardrails, timeoutMs: this.limits.guardrailTimeoutMs, failOpen: options.guardrailFailOpen ?? [] });
    this.seal = new StateSeal(options.approvals?.stateSecret);
    this.clock = options.clock ?? (() => new Date());
    this.approvalGate = new ApprovalGate({ store: this.store, clock: this.clock });
    this.systemTools = new Map();
    for (const [i, st] of (options.systemTools ?? []).entries()) {
      const where = `new Runner(options): systemTools[${i}]`;
      checkSystemToolShape(st, where);
      if (this.systemTools.has(st.name)) throw new ToolNameError(st.name, `${where}: a system tool named '${st.name}' is already given; names must be unique`, { code: 'TOOL_NAME_CONFLICT' });
      this.systemTools.set(st.name, st);
    }
    this.checkConfiguration();
  }

  /**
   * The Runner's guardrail checker (its validator, `guardrailTimeoutMs` and `guardrailFailOpen`):
   * the one call path, for components that check boundaries of their own (delegation).
   */
  get guardrailChecker(): GuardrailChecker {
    return this.checker;
  }

  /** The thread store in use (for reading threads, runs, items and audit records). */
  get threadStore(): ThreadStore {
    return this.store;
  }

  private checkConfiguration(): void {
    const problems: RegistryProblem[] = [];
    for (const agent of this.registry.list()) {
      for (const name of agent.deployment.system_tools) {
        if (!this.systemTools.has(name)) {
          problems.push({ file: agent.source, line: 1, col: 1, message: `agent ${agent.manifest.id}: system tool '${name}' (baton.yml system_tools) is not provided to the Runner` });
        }
      }
      for (const name of agent.deployment.approval_required_tools ?? []) {
        if (!agent.manifest.tools.some((t) => t.function.name === name) && !agent.deployment.system_tools.includes(name)) {
          problems.push({ file: agent.source, line: 1, col: 1, message: `agent ${agent.manifest.id}: approval_required_tools names '${name}', which is neither a tool in its manifest nor one of its system_tools` });
        }
      }
      for (const t of agent.manifest.tools) {
        if (!this.options.tools?.[t.function.name]) {
          this.logger.warn('tool has no implementation; calls will return an error to the model', { agent_id: agent.manifest.id, tool: t.function.name });
        }
      }
    }
    if (problems.length > 0) throw new RegistryError(problems, { summary: 'runner configuration has problems:' });
    const approvalsConfigured = this.options.approvals?.policy !== undefined || this.registry.list().some((a) => (a.deployment.approval_required_tools ?? []).length > 0);
    if (approvalsConfigured && !approvalStore(this.store)) {
      throw new ApprovalsUnsupportedError('new Runner(options): approvals are configured (baton.yml approval_required_tools or approvals.policy), but the thread store cannot keep paused runs (saveSuspendedRun/getSuspendedRun/listSuspendedRuns/takeSuspendedRun)');
    }
  }

  /** Runs `request.agentId` on a thread (and any agents it hands off to). */
  async run(request: RunRequest): Promise<RunResult> {
    validateRequest(request);
    const entry = this.registry.get(request.agentId, request.agentVersion);
    if (!entry) {
      const known = this.registry.get(request.agentId);
      throw new AgentNotFoundError(
        known
          ? `agent ${request.agentId} has no version ${request.agentVersion ?? ''} (highest: ${known.manifest.version})`
          : `no agent with id '${request.agentId}' is registered`,
      );
    }
    checkRequestToolsFor(entry, request.systemTools ?? [], this.systemTools);
    return this.execute(request, entry, undefined);
  }

  /** `run()` after its checks; with `resume`, continues a paused run instead of starting one. */
  private async execute(request: RunRequest, entry: RegisteredAgent, resume: ResumePlan | undefined): Promise<RunResult> {
    const rootContext = this.tracing.rootContext(request.traceparent, request.tracestate);
    const root = this.tracing.start('baton.run', rootContext, { 'baton.agent.id': entry.manifest.id, 'baton.depth': request.depth ?? 0 });

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new RunTimeoutError(`the run took longer than ${this.limits.runTimeoutMs} ms`));
    }, this.limits.runTimeoutMs);
    const onCallerAbort = () => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) onCallerAbort();
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });

    const decisions: RecordedDecision[] = [];
    const runs: RunSummary[] = [];
    let threadId = request.threadId ?? '';
    // Set once the caller may see the thread: a refused call never reads another tenant's state.
    let accessible = false;
    try {
      const lockOptions = {
        owner: `call_${randomUUID()}`,
        leaseMs: this.limits.lockLeaseMs ?? this.limits.runTimeoutMs + LOCK_LEASE_MARGIN_MS,
        waitMs: this.limits.runTimeoutMs,
        signal: controller.signal,
      };
      const ensured = await this.ensureThread(request.threadId, request.auth?.tenant, lockOptions);
      accessible = true;
      threadId = ensured.threadId;
      root.span.setAttribute('baton.thread.id', threadId);
      const lock = ensured.lock ?? (await this.store.acquireThreadLock(threadId, lockOptions));
      try {
        // A thread this call just created under a store-generated id, or created locked, has no
        // runs (nobody else could run on it yet): nothing abandoned to look for, one read saved.
        if (!ensured.freshGeneratedId) await this.failAbandonedRuns(threadId);
        if (resume) resume.suspended = await this.approvalGate.claim(threadId, resume);
        else if (!ensured.freshGeneratedId) await this.approvalGate.refuseWhileAwaiting(threadId);
        const writes = new WriteBuffer(this.store);
        let outcome: Awaited<ReturnType<Runner['runChain']>>;
        try {
          outcome = await this.runChain(request, entry, threadId, root.context, controller.signal, () => timedOut, decisions, runs, writes, resume);
        } finally {
          await writes.flush();
        }
        const state = (await this.store.getThread(threadId))?.state ?? {};
        const last = runs[runs.length - 1];
        const result: RunResult = {
          thread_id: threadId,
          runs,
          run_id: last?.run_id ?? '',
          agent_id: last?.agent_id ?? entry.manifest.id,
          status: outcome.status,
          response: outcome.response,
          state,
          guardrail_decisions: decisions,
          trace_id: root.ids.traceId,
          model: this.options.modelLabel ?? 'custom model provider',
        };
        if (outcome.terminal) result.terminal = outcome.terminal;
        if (outcome.requiredAction) result.required_action = outcome.requiredAction;
        if (outcome.error) result.error = outcome.error;
        root.span.setAttribute('baton.run.status', outcome.status);
        endSpan(root.span, outcome.error);
        return result;
      } finally {
        await lock.release().catch((error: unknown) => this.logger.warn('could not release thread lock', { thread_id: threadId, error: toErrorInfo(error) }));
      }
    } catch (error) {
      // Another tenant's thread is a caller mistake, thrown like an unknown agent.
      if (error instanceof ThreadAccessRefused) throw new ThreadNotFoundError(error.threadId);
      // Decisions that lost a race or came late, a new run on a paused thread: the caller's answer.
      if (error instanceof ApprovalError || error instanceof ApprovalsUnsupportedError) throw error;
      // Store failures and lock contention: reported as a failed result, not thrown.
      const cancelled = controller.signal.aborted && !timedOut;
      const info = timedOut
        ? { code: 'RUN_TIMEOUT', message: `the run took longer than ${this.limits.runTimeoutMs} ms` }
        : cancelled
          ? { code: 'ABORTED', message: 'the caller aborted the run' }
          : toErrorInfo(error, 'RUNNER_ERROR');
      endSpan(root.span, info);
      const last = runs[runs.length - 1];
      return {
        thread_id: threadId,
        runs,
        run_id: last?.run_id ?? '',
        agent_id: last?.agent_id ?? entry.manifest.id,
        status: timedOut ? 'expired' : cancelled ? 'cancelled' : 'failed',
        response: null,
        state: threadId && accessible ? ((await this.store.getThread(threadId).catch(() => undefined))?.state ?? {}) : {},
        guardrail_decisions: decisions,
        trace_id: root.ids.traceId,
        model: this.options.modelLabel ?? 'custom model provider',
        error: info,
      };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * Decides a run paused in `requires_action` and resumes it: each pending approval approved (the
   * tool runs, with every guardrail) or rejected (the model gets a refusal and the run goes on).
   * Throws `ApprovalError`s for caller mistakes: unknown run or another tenant's
   * (`APPROVAL_RUN_NOT_FOUND`), bad decisions (`APPROVAL_INVALID`), nothing waiting or decided by
   * a concurrent call (`APPROVAL_CONFLICT`), too late (`APPROVAL_EXPIRED`, the run becomes `expired`).
   */
  async submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult> {
    const { record, plan } = await this.approvalGate.prepare(request);
    const entry = this.registry.get(record.agentId, record.agentVersion);
    if (!entry) throw new AgentNotFoundError(`run ${record.id} was paused in agent ${record.agentId} ${record.agentVersion}, which is no longer registered`);
    return this.execute(
      {
        agentId: record.agentId,
        agentVersion: record.agentVersion,
        input: '',
        threadId: record.threadId,
        ...(request.auth ? { auth: request.auth } : {}),
        ...(request.traceparent ? { traceparent: request.traceparent } : {}),
        ...(request.tracestate ? { tracestate: request.tracestate } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      },
      entry,
      plan,
    );
  }

  /**
   * Runs execute only under the thread lock, so a run still active when the lock is ours belongs
   * to a process that died (its lease expired): record it as crashed before starting again.
   */
  private async failAbandonedRuns(threadId: string): Promise<void> {
    const stale = (await this.store.listRuns(threadId)).filter((r) => ACTIVE_RUN_STATUSES.includes(r.status));
    for (const r of stale) {
      await this.store.updateRun(r.id, { status: 'failed', error: { code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE } });
      this.logger.warn('marked a run abandoned by a dead process as failed', { thread_id: threadId, run_id: r.id, agent_id: r.agentId });
    }
  }

  /**
   * The thread to run on, created for `tenant` when new; `freshGeneratedId` when nobody else can
   * have run on it yet (this call created it under the store's generated id, or created it already
   * locked), and `lock` when the store created it already locked (one commit, not two). A thread
   * of another tenant is refused (ThreadAccessRefused).
   */
  private async ensureThread(
    threadId: string | undefined,
    tenant: string | undefined,
    lockOptions: AcquireLockOptions,
  ): Promise<{ threadId: string; freshGeneratedId: boolean; lock?: ThreadLock }> {
    const owner = tenant !== undefined ? { tenant } : {};
    const check = (thread: { tenant?: string }) => {
      if (thread.tenant !== tenant) throw new ThreadAccessRefused(threadId as string);
      return { threadId: threadId as string, freshGeneratedId: false };
    };
    const create = async (id: string | undefined) => {
      const input = { ...(id !== undefined ? { id } : {}), ...owner };
      if (this.store.createLockedThread) {
        const { thread, lock } = await this.store.createLockedThread(input, lockOptions);
        return { threadId: thread.id, freshGeneratedId: true, lock };
      }
      return { threadId: (await this.store.createThread(input)).id, freshGeneratedId: id === undefined };
    };
    if (threadId !== undefined) {
      const existing = await this.store.getThread(threadId);
      if (existing) return check(existing);
      try {
        return await create(threadId);
      } catch (error) {
        // Created concurrently by another call: fine if it is this tenant's.
        const raced = await this.store.getThread(threadId);
        if (raced) return check(raced);
        throw error;
      }
    }
    return create(this.options.idGenerator ? this.options.idGenerator() : undefined);
  }

  private async runChain(
    request: RunRequest,
    first: RegisteredAgent,
    threadId: string,
    rootContext: Context,
    signal: AbortSignal,
    timedOut: () => boolean,
    decisions: RecordedDecision[],
    runs: RunSummary[],
    writes: WriteBuffer,
    resume?: ResumePlan,
  ): Promise<{ status: RunStatus; response: string | null; terminal?: { name: string; arguments: JsonObject }; requiredAction?: RequiredAction; error?: { code: string; message: string } }> {
    let sequence = 0;
    const events = createEventSink([request.onEvent, this.options.onEvent], this.logger);
    const guard: GuardrailCheckerOptions = {
      checker: this.checker,
      tracing: this.tracing,
      store: this.store,
      writes,
      decisions,
      ...(events.active ? { onDecision: (d: RecordedDecision, runId: string | null) => emitDecision(events, d, runId) } : {}),
    };
    const call: CallState = {
      threadId,
      auth: request.auth ?? {},
      depth: request.depth ?? 0,
      signal,
      store: this.store,
      writes,
      tracing: this.tracing,
      guard,
      validator: this.validator,
      tools: this.options.tools ?? {},
      systemTools: this.systemTools,
      requestSystemTools: request.systemTools ?? [],
      maxTurns: request.maxTurns ?? this.limits.maxTurns,
      nextSequence: () => ++sequence,
      onModelRequest: this.options.onModelRequest,
      fetch: this.options.fetch ?? globalThis.fetch,
      logger: this.logger,
      idempotencyKey: request.idempotencyKey,
      toolPolicy: this.toolPolicy,
      events,
      // Nobody to stream to: the answer is checked once, as without streaming.
      stream: request.stream === true && events.active,
    };

    let agent = first;
    let input = request.input;
    let parentRunId: string | null = null;
    // A gate outside the runner may have prepared the first input (delegation): same boundary as a handoff.
    let prepared: PreparedHandoff | undefined = request.inputBoundary ? { ...request.inputBoundary, input: request.input } : undefined;
    const chain: string[] = [];
    let handoffs = 0;
    // The honoured handoff that leads to the next run, reported once that run exists.
    let handedOff: { from_run_id: string; from_agent_id: string } | undefined;

    // The paused run continues under its own id; a handoff from it starts a new one as usual.
    let resuming = resume?.suspended ? { plan: resume, suspended: resume.suspended } : undefined;
    for (;;) {
      chain.push(agent.manifest.id);
      // A new run is committed with its first writes (the next flush), not in a transaction of its
      // own; a resumed run already exists and goes back to in_progress.
      let record: { id: string };
      try {
        record = resuming
          ? await this.store.updateRun(resuming.suspended.runId, { status: 'in_progress', error: null })
          : {
              id: await writes.createRun(threadId, {
                agentId: agent.manifest.id,
                agentVersion: agent.manifest.version,
                parentRunId,
                status: 'in_progress',
                traceId: trace.getSpanContext(rootContext)?.traceId ?? null,
              }),
            };
      } catch (error) {
        if (handedOff) events.emit({ type: 'handoff', thread_id: threadId, ...handedOff, to_agent_id: agent.manifest.id });
        throw error;
      }
      if (handedOff) events.emit({ type: 'handoff', thread_id: threadId, ...handedOff, to_agent_id: agent.manifest.id, to_run_id: record.id });
      events.emit({ type: 'run_start', thread_id: threadId, run_id: record.id, agent_id: agent.manifest.id });
      const summary: RunSummary = { run_id: record.id, agent_id: agent.manifest.id, agent_version: agent.manifest.version, status: 'in_progress' };
      runs.push(summary);
      const scope = this.tracing.start('baton.agent_run', rootContext, {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent.manifest.name,
        'gen_ai.agent.id': agent.manifest.id,
        'baton.agent.version': agent.manifest.version,
        'baton.run.id': record.id,
        'baton.thread.id': threadId,
        'baton.agent.mode': agent.deployment.mode,
      });
      const finish = async (status: RunStatus, error?: { code: string; message: string }) => {
        summary.status = status;
        if (error) summary.error = error;
        // No flush of its own: the next boundary (the next agent's first model call, or the end
        // of the call) commits it, with the writes around it.
        await writes.updateRun(record.id, { status, error: error ?? null });
        scope.span.setAttribute('baton.run.status', status);
        endSpan(scope.span, status === 'completed' || status === 'cancelled' ? undefined : error);
        events.emit({ type: 'run_end', thread_id: threadId, run_id: record.id, agent_id: agent.manifest.id, status });
      };
      const abortInfo = () =>
        timedOut()
          ? { status: 'expired' as const, error: { code: 'RUN_TIMEOUT', message: `the run took longer than ${this.limits.runTimeoutMs} ms` } }
          : { status: 'cancelled' as const, error: { code: 'ABORTED', message: 'the caller aborted the run' } };

      const run: AgentRunState = {
        agent,
        runId: record.id,
        context: scope.context,
        handoffRequests: new Map(),
        ordinal: chain.length - 1,
        counters: { toolCalls: 0, stateMerges: 0 },
        release: this.responseRelease(guard, events, agent.manifest.id, threadId, record.id, scope.context, signal),
      };
      let outcome: AgentRunOutcome;
      const resumeNow = resuming;
      resuming = undefined;
      try {
        outcome = resumeNow
          ? await withAbort(signal, this.launch(call, run, input, undefined, signal, resumeNow))
          : (await withAbort(signal, this.executeAgent(call, run, input, prepared))).outcome;
      } catch (error) {
        if (!signal.aborted) {
          const info = toErrorInfo(error, 'RUNNER_ERROR');
          await finish('failed', info);
          return { status: 'failed', response: null, error: info };
        }
        const info = abortInfo();
        await finish(info.status, info.error);
        return { status: info.status, response: null, error: info.error };
      }
      if (signal.aborted) {
        const info = abortInfo();
        await finish(info.status, info.error);
        return { status: info.status, response: null, error: info.error };
      }

      if (outcome.kind === 'error') {
        await finish('failed', outcome.error);
        return { status: 'failed', response: null, error: outcome.error };
      }
      if (outcome.kind === 'interrupted') {
        const expiresAt = new Date(this.clock().getTime() + this.limits.approvalTimeoutMs).toISOString();
        let suspended: SuspendedRun;
        try {
          suspended = await suspendAgentRun({ store: this.store, seal: this.seal, call, run, state: outcome.state, calls: outcome.calls, expiresAt });
        } catch (error) {
          // Not kept means not resumable: the run ends here and the waiting calls never run.
          const info = toErrorInfo(error, 'APPROVAL_SUSPEND_FAILED');
          await finish('failed', info);
          return { status: 'failed', response: null, error: info };
        }
        await finish('requires_action');
        return { status: 'requires_action', response: null, requiredAction: requiredActionOf(suspended) };
      }
      if (outcome.kind === 'terminal') {
        await finish('completed');
        return { status: 'completed', response: null, terminal: { name: outcome.name, arguments: outcome.arguments } };
      }
      if (outcome.kind === 'final') {
        const text = outcome.text;
        if (text === null) {
          await finish('completed');
          return { status: 'completed', response: null };
        }
        const verdict = await run.release.finish(text);
        const response = verdict.decision === 'BLOCK' ? REFUSAL : verdict.text;
        await writes.appendItems(threadId, record.id, [
          { type: 'message', role: 'assistant', content: response, ...(verdict.decision === 'ALLOW' ? {} : { guardrail: verdict.decision }) },
        ]);
        await finish('completed');
        return { status: 'completed', response };
      }

      // system::handoff
      const next = await this.handoff(call, run, outcome, chain, handoffs, scope.context);
      if (!next.ok) {
        await finish('failed', next.error);
        return { status: 'failed', response: null, error: next.error };
      }
      await finish('cancelled', { code: 'HANDED_OFF', message: `handed off to ${next.target.manifest.id} (${HANDOFF_PROTOCOL_NAME})` });
      handoffs++;
      handedOff = { from_run_id: record.id, from_agent_id: agent.manifest.id };
      agent = next.target;
      input = next.input;
      prepared = next.prepared;
      parentRunId = record.id;
    }
  }

  /** One agent run's answer release: every check through the runner's checker, text as `text_delta` events. */
  private responseRelease(guard: GuardrailCheckerOptions, events: RunnerEventSink, agentId: string, threadId: string, runId: string, parent: Context, signal: AbortSignal): ResponseRelease {
    return new ResponseRelease({
      check: (text) => checkGuardrail(guard, { actionType: 'AGENT_RESPONSE', payload: text, agentId, threadId, runId, parent, signal }),
      emit: async (text) => {
        events.emit({ type: 'text_delta', run_id: runId, agent_id: agentId, text });
        await events.idle(signal);
      },
      recordBlock: (reasonCode) => {
        const decision: RecordedDecision = { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: reasonCode, agent_id: agentId };
        guard.decisions.push(decision);
        guard.onDecision?.(decision, runId);
      },
      ...(this.options.streamSegmentMaxChars !== undefined ? { maxSegmentChars: this.options.streamSegmentMaxChars } : {}),
    });
  }

  /** AGENT_INPUT (blocking or racing), then the agent itself. */
  private async executeAgent(call: CallState, run: AgentRunState, input: string, prepared: PreparedHandoff | undefined): Promise<{ outcome: AgentRunOutcome; input: string }> {
    const agentId = run.agent.manifest.id;
    const check = checkGuardrail(call.guard, {
      actionType: 'AGENT_INPUT',
      payload: input,
      agentId,
      threadId: call.threadId,
      runId: run.runId,
      parent: run.context,
      signal: call.signal,
    });
    const recordInput = (text: string) => call.writes.appendItems(call.threadId, run.runId, [{ type: 'message', role: 'user', content: text }]);
    const blocked = (reasonCode: string, reason: string): AgentRunOutcome => ({
      kind: 'error',
      error: { code: 'GUARDRAIL_BLOCKED', message: `AGENT_INPUT for ${agentId} blocked by guardrail (${reasonCode}): ${reason}` },
    });

    if (run.agent.deployment.input_guardrail === 'racing' && run.agent.deployment.mode === 'in_process') {
      // The model call starts now with the unchecked input; its response is held (and no tool
      // runs) until the check allows it. BLOCK aborts the call and discards its output.
      const raceController = new AbortController();
      // Resolves only after the allowed input is recorded, so thread items stay in order.
      const gate = check.then(async (c) => {
        if (c.decision !== 'ALLOW') return false;
        await recordInput(input);
        return true;
      }).catch(() => false);
      void gate.then((ok) => {
        if (!ok) raceController.abort(new InputBlockedDuringRace('AGENT_INPUT', 'BLOCK', 'input blocked by guardrail'));
      });
      const running = this.launch(call, { ...run, inputGate: gate }, input, prepared, AbortSignal.any([call.signal, raceController.signal]));
      const decided = await check;
      if (decided.decision === 'ALLOW' && (await gate)) return { outcome: await running, input };
      await running.catch(() => undefined);
      if (decided.decision === 'BLOCK') return { outcome: blocked(decided.reasonCode, decided.reasonMessage), input };
      // MODIFY: the raced call saw the unmodified input, so start over with the redacted one.
      await recordInput(decided.payload);
      return { outcome: await this.launch(call, run, decided.payload, prepared, call.signal), input: decided.payload };
    }

    const decided = await check;
    if (decided.decision === 'BLOCK') return { outcome: blocked(decided.reasonCode, decided.reasonMessage), input };
    await recordInput(decided.payload);
    return { outcome: await this.launch(call, run, decided.payload, prepared, call.signal), input: decided.payload };
  }

  private launch(
    call: CallState,
    run: AgentRunState,
    input: string,
    prepared: PreparedHandoff | undefined,
    signal: AbortSignal,
    resume?: { plan: ResumePlan; suspended: SuspendedRun },
  ): Promise<AgentRunOutcome> {
    if (run.agent.deployment.mode === 'subprocess') return call.writes.flush().then(() => runSubprocessAgent(call, run, input, { signal, ...(prepared ? { prepared } : {}) }));
    const onRecipient = prepared?.onRecipientModelRequest?.bind(prepared);
    const { refused, ...approvalHooks } = this.approvalHooks(call, run, resume);
    // A refused state never reaches the SDK.
    if (refused !== undefined) return Promise.resolve({ kind: 'error', error: { code: APPROVAL_STATE_INVALID, message: `the paused run's stored state was refused: ${refused}` } });
    return runInProcessAgent(call, run, input, {
      sdkRunner: this.sdkRunner,
      modelProvider: this.options.modelProvider,
      signal,
      blockedError: () => new InputBlockedDuringRace('AGENT_INPUT', 'BLOCK', 'input blocked by guardrail'),
      ...(onRecipient ? { onFirstRequest: onRecipient } : {}),
      // A run reached through a handoff starts at the boundary: its input (the packet) is all it sees.
      ...(run.ordinal === 0 && !resume ? { history: () => this.historyFor(call, run, signal) } : {}),
      ...approvalHooks,
    });
  }

  /** needsApproval for the agent's tools and, when resuming, the restored state with the decisions applied. */
  private approvalHooks(call: CallState, run: AgentRunState, resume: { plan: ResumePlan; suspended: SuspendedRun } | undefined): Pick<InProcessAgentOptions, 'needsApproval' | 'resume'> & { refused?: string } {
    const needsApproval = approvalDecider(call, run, this.options.approvals?.policy);
    const hooks: Pick<InProcessAgentOptions, 'needsApproval' | 'resume'> = needsApproval ? { needsApproval } : {};
    if (!resume) return hooks;
    const opened = this.seal.open(resume.suspended.runId, resume.suspended.state);
    if (!opened.ok) return { ...hooks, refused: opened.reason };
    hooks.resume = {
      state: opened.state,
      apply: (restored) => applyDecisions({ call, run, state: restored, suspended: resume.suspended, decisions: resume.plan.decisions, decidedBy: resume.plan.decidedBy }),
    };
    return hooks;
  }

  /** The thread's earlier turns as this agent may see them (history.ts), within its baton.yml window. */
  private historyFor(call: CallState, run: AgentRunState, signal: AbortSignal) {
    return loadAgentHistory({
      store: this.store,
      threadId: call.threadId,
      agentId: run.agent.manifest.id,
      runId: run.runId,
      window: run.agent.deployment.history,
      signal,
      ...(this.options.summarizeHistory ? { summarize: this.options.summarizeHistory } : {}),
    });
  }

  private async handoff(
    call: CallState,
    run: AgentRunState,
    outcome: Extract<AgentRunOutcome, { kind: 'handoff' }>,
    chain: string[],
    handoffsSoFar: number,
    parent: Context,
  ): Promise<{ ok: true; target: RegisteredAgent; input: string; prepared?: PreparedHandoff } | { ok: false; error: { code: string; message: string } }> {
    const source = run.agent;
    const scope = this.tracing.start(`baton.handoff`, parent, {
      'baton.handoff.protocol': HANDOFF_PROTOCOL_NAME,
      'baton.handoff.source': source.manifest.id,
      'baton.handoff.target': outcome.payload.target_agent_id,
      'baton.handoff.call_id': outcome.callId,
    });
    const audit = async (status: string, data: JsonObject = {}) => {
      await call.writes.appendAudit({
        threadId: call.threadId,
        runId: run.runId,
        kind: 'handoff',
        data: { protocol: HANDOFF_PROTOCOL_NAME, source_agent_id: source.manifest.id, status, trace_id: scope.ids.traceId, span_id: scope.ids.spanId, ...data },
      });
    };
    for (const ignored of outcome.ignored) {
      await call.writes.appendItems(call.threadId, run.runId, [
        { type: 'handoff', protocol: HANDOFF_PROTOCOL_NAME, call_id: ignored.callId, target_agent_id: ignored.payload.target_agent_id, status: 'ignored' },
      ]);
      await audit('ignored', { call_id: ignored.callId, target_agent_id: ignored.payload.target_agent_id, reason: 'only the first handoff of a turn is honoured' });
    }
    const reject = async (error: { code: string; message: string }, target: string): Promise<{ ok: false; error: { code: string; message: string } }> => {
      await call.writes.appendItems(call.threadId, run.runId, [
        { type: 'handoff', protocol: HANDOFF_PROTOCOL_NAME, call_id: outcome.callId, target_agent_id: target, status: 'rejected', error: error.code },
      ]);
      await audit('rejected', { call_id: outcome.callId, target_agent_id: target, error_code: error.code });
      endSpan(scope.span, error);
      return { ok: false, error };
    };
    const limitCheck = (target: string): { code: string; message: string } | undefined => {
      if (!source.deployment.handoffs.includes(target)) {
        const e = new HandoffRejectedError(`${source.manifest.id} may not hand off to ${target} (not in its baton.yml handoffs)`, { code: 'HANDOFF_TARGET_NOT_ALLOWED' });
        return { code: e.code, message: e.message };
      }
      if (chain.includes(target)) {
        const e = new HandoffLoopError(`handoff loop: ${[...chain, target].join(' → ')}`);
        return { code: e.code, message: e.message };
      }
      if (handoffsSoFar + 1 > this.limits.maxHandoffs) {
        const e = new HandoffLimitError(`more than ${this.limits.maxHandoffs} handoffs in one run (${[...chain, target].join(' → ')})`);
        return { code: e.code, message: e.message };
      }
      return undefined;
    };

    let payload: HandoffPayload = outcome.payload;
    const early = limitCheck(payload.target_agent_id);
    if (early) return reject(early, payload.target_agent_id);

    const check = await checkGuardrail(call.guard, {
      actionType: 'AGENT_HANDOFF',
      payload,
      agentId: source.manifest.id,
      threadId: call.threadId,
      runId: run.runId,
      parent: scope.context,
      signal: call.signal,
      detail: { 'baton.handoff.target': payload.target_agent_id },
    });
    if (check.decision === 'BLOCK') {
      const e = new HandoffRejectedError(`handoff ${source.manifest.id} → ${payload.target_agent_id} blocked by guardrail (${check.reasonCode}): ${check.reasonMessage}`, { code: 'HANDOFF_BLOCKED' });
      return reject({ code: e.code, message: e.message }, payload.target_agent_id);
    }
    if (check.decision === 'MODIFY') {
      payload = check.payload;
      const again = limitCheck(payload.target_agent_id);
      if (again) return reject(again, payload.target_agent_id);
    }
    const target = this.registry.get(payload.target_agent_id);
    if (!target) return reject({ code: 'AGENT_NOT_FOUND', message: `handoff target ${payload.target_agent_id} is not registered` }, payload.target_agent_id);

    let prepared: PreparedHandoff | undefined;
    let input = payload.input;
    const mergeKey = nextStateMergeKey(call, run);
    if (!this.options.handoffGate) {
      await call.writes.mergeState(call.threadId, payload.state, mergeKey);
    } else {
      // The gate may read the store: everything so far is committed first.
      await call.writes.flush();
      const threadState = await this.store.mergeState(call.threadId, payload.state, mergeKey !== undefined ? { idempotencyKey: mergeKey } : undefined);
      // What crosses is the gate's, so the gate checks it through the runner's checker (once,
      // recorded here); a gate that does not is checked by the runner on what it returns.
      let crossingChecked = false;
      const checkHandoff: HandoffGuardrailCheck = async (crossing) => {
        crossingChecked = true;
        // A gate's bug must not reach the guardrail as a payload it cannot judge (nor fail open on it).
        if (!HandoffPayloadSchema.safeParse(crossing).success) {
          call.guard.decisions.push({ action_type: 'AGENT_HANDOFF', decision: 'BLOCK', reason_code: 'HANDOFF_CROSSING_INVALID', agent_id: source.manifest.id });
          return { decision: 'BLOCK', reasonCode: 'HANDOFF_CROSSING_INVALID', reasonMessage: 'the handoff gate asked to check something that is not a handoff payload' };
        }
        const c = await checkGuardrail(call.guard, {
          actionType: 'AGENT_HANDOFF',
          payload: crossing,
          agentId: source.manifest.id,
          threadId: call.threadId,
          runId: run.runId,
          parent: scope.context,
          signal: call.signal,
          detail: { 'baton.handoff.target': String(crossing?.target_agent_id), 'baton.handoff.checked': 'crossing' },
        });
        return { decision: c.decision, reasonCode: c.reasonCode, reasonMessage: c.reasonMessage };
      };
      try {
        const toolResults = await successfulToolCalls(this.store, call.threadId);
        prepared = await this.options.handoffGate.prepare({
          threadId: call.threadId,
          runId: run.runId,
          sourceAgentId: source.manifest.id,
          targetAgentId: target.manifest.id,
          input: payload.input,
          state: payload.state,
          threadState,
          auth: call.auth,
          traceId: scope.ids.traceId,
          toolResults,
          checkHandoff,
        });
        input = prepared.input;
      } catch (error) {
        const info = toErrorInfo(error, 'HANDOFF_GATE_FAILED');
        return reject({ code: info.code, message: `handoff gate refused ${source.manifest.id} → ${target.manifest.id}: ${info.message}` }, target.manifest.id);
      }
      if (!crossingChecked && (prepared.input !== payload.input || prepared.state !== undefined)) {
        const crossing = await checkHandoff({ target_agent_id: target.manifest.id, input: prepared.input, state: prepared.state ?? {} });
        if (crossing.decision !== 'ALLOW') {
          const e = new HandoffRejectedError(`handoff ${source.manifest.id} → ${target.manifest.id} blocked by guardrail on what crosses (${crossing.reasonCode}): ${crossing.reasonMessage}`, { code: 'HANDOFF_BLOCKED' });
          return reject({ code: e.code, message: e.message }, target.manifest.id);
        }
      }
    }
    await call.writes.appendItems(call.threadId, run.runId, [
      {
        type: 'handoff',
        protocol: HANDOFF_PROTOCOL_NAME,
        call_id: outcome.callId,
        target_agent_id: target.manifest.id,
        status: 'honoured',
        state_keys: Object.keys(payload.state),
        ...(prepared?.packetId ? { packet_id: prepared.packetId } : {}),
      },
    ]);
    await audit('honoured', {
      call_id: outcome.callId,
      target_agent_id: target.manifest.id,
      state_keys: Object.keys(payload.state),
      guardrail_decision: check.decision,
      ...(prepared?.packetId ? { packet_id: prepared.packetId } : {}),
    });
    endSpan(scope.span);
    return prepared ? { ok: true, target, input, prepared } : { ok: true, target, input };
  }
}

function emitDecision(events: RunnerEventSink, d: RecordedDecision, runId: string | null): void {
  events.emit({ type: 'guardrail_decision', run_id: runId, agent_id: d.agent_id, action_type: d.action_type, decision: d.decision, reason_code: d.reason_code });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts (a tool that ignores aborts cannot hold a run open). */
function withAbort<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function validateRequest(request: RunRequest): void {
  if (!request || typeof request !== 'object') throw new InvalidRunRequestError('run(request): request object is required');
  if (typeof request.agentId !== 'string' || request.agentId === '') throw new InvalidRunRequestError('run(request): agentId must be a non-empty string');
  if (typeof request.input !== 'string') throw new InvalidRunRequestError('run(request): input must be a string');
  if (request.threadId !== undefined && (typeof request.threadId !== 'string' || !THREAD_ID.test(request.threadId))) {
    throw new InvalidRunRequestError('run(request): threadId must be 1-200 characters of letters, digits, _ . : -');
  }
  if (request.depth !== undefined && (!Number.isInteger(request.depth) || request.depth < 0)) {
    throw new InvalidRunRequestError('run(request): depth must be a non-negative integer');
  }
  if (request.maxTurns !== undefined && (!Number.isInteger(request.maxTurns) || request.maxTurns < 1)) {
    throw new InvalidRunRequestError('run(request): maxTurns must be a positive integer');
  }
  if (request.agentVersion !== undefined && typeof request.agentVersion !== 'string') throw new InvalidRunRequestError('run(request): agentVersion must be a string');
  if (request.systemTools !== undefined) {
    if (!Array.isArray(request.systemTools)) throw new InvalidRunRequestError('run(request): systemTools must be an array of system tools');
    const names = new Set<string>();
    for (const [i, st] of request.systemTools.entries()) {
      checkSystemToolShape(st, `run(request): systemTools[${i}]`);
      if (names.has(st.name)) throw new ToolNameError(st.name, `run(request): systemTools[${i}]: a system tool named '${st.name}' is already given; names must be unique`, { code: 'TOOL_NAME_CONFLICT' });
      names.add(st.name);
    }
  }
  if (request.inputBoundary !== undefined && (typeof request.inputBoundary !== 'object' || request.inputBoundary === null || Array.isArray(request.inputBoundary))) {
    throw new InvalidRunRequestError('run(request): inputBoundary must be an object');
  }
  if (request.onEvent !== undefined && typeof request.onEvent !== 'function') throw new InvalidRunRequestError('run(request): onEvent must be a function');
  if (request.stream !== undefined && typeof request.stream !== 'boolean') throw new InvalidRunRequestError('run(request): stream must be a boolean');
  if (request.idempotencyKey !== undefined && (typeof request.idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(request.idempotencyKey))) {
    throw new InvalidRunRequestError('run(request): idempotencyKey must be 1-120 characters of letters, digits, _ . : - /, starting with a letter or digit');
  }
}

/** A system tool's name and shape, checked before it can reach the model; `where` locates it in messages. */
function checkSystemToolShape(st: SystemTool, where: string): void {
  if (!st || typeof st !== 'object') throw new InvalidRunRequestError(`${where}: must be a system tool object`);
  const problem = systemToolNameProblem(st.name);
  if (problem) throw new ToolNameError(String(st.name), `${where}: ${problem}`);
  if (typeof st.execute !== 'function') throw new InvalidRunRequestError(`${where} ('${st.name}'): execute must be a function`);
}

/**
 * `RunRequest.systemTools` must not take the name of a tool the first agent already has (a
 * manifest tool or another configured system tool): a caller mistake, refused before any run.
 * Agents reached by handoff are checked when they start (`TOOL_NAME_CONFLICT`).
 */
function checkRequestToolsFor(agent: RegisteredAgent, requested: readonly SystemTool[], configured: ReadonlyMap<string, SystemTool>): void {
  for (const [i, st] of requested.entries()) {
    if (agent.manifest.tools.some((t) => t.function.name === st.name)) {
      throw new ToolNameError(st.name, `run(request): systemTools[${i}]: '${st.name}' is also a tool in ${agent.manifest.id}'s manifest; a system tool may not replace it`, { code: 'TOOL_NAME_CONFLICT' });
    }
    const other = agent.deployment.system_tools.includes(st.name) ? configured.get(st.name) : undefined;
    if (other && other !== st) {
      throw new ToolNameError(st.name, `run(request): systemTools[${i}]: ${agent.manifest.id} already has the system tool '${st.name}' (baton.yml system_tools); a system tool may not replace another`, { code: 'TOOL_NAME_CONFLICT' });
    }
  }
}
