import type { GuardrailChecker } from '@baton/guardrail-client';
import type { GuardrailValidator, ResponsePackage, SkillPackage } from '@baton/manifest';
import type {
  BatonLogger,
  BoundaryDecisionRecorder,
  BoundaryGuardrailCheck,
  DelegatedTask,
  DelegatedTaskResult,
  EditLedgerEntry,
  SubagentRunner,
  SystemTool,
} from '@baton/manifest/contracts';
import type { SpawnJsonProcessOptions, SpawnJsonProcessResult } from '@baton/runner/process';
import type { ConfinementInfo, ConfinementPreference } from '../confine/types.js';
import type { SkillRegistry } from './skill-registry.js';

/** Runs one JSON-in/JSON-out subprocess: @baton/runner's `spawnJsonProcess` fits. */
export type SpawnJson = (options: SpawnJsonProcessOptions) => Promise<SpawnJsonProcessResult>;

/**
 * The parts of @baton/runner's `ToolContext` delegation reads. A runner's full ToolContext is
 * accepted as is; every field is optional so `delegate()` can be called outside a run.
 */
export interface DelegationContext {
  /** Delegation depth of the calling agent (0 top level). */
  depth?: number;
  /** Cancelling the parent cancels every child. */
  signal?: AbortSignal;
  /** The calling agent (goes into the lineage for loop detection). */
  agentId?: string;
  threadId?: string;
  runId?: string;
  traceparent?: string;
  tracestate?: string;
  /**
   * Identical when a crashed job is retried and makes the same call again (the runner's
   * ToolContext carries it). Travels with a dispatched task; when the task runs here it is the
   * task_id basis (deterministic) and the edit ledger's key.
   */
  idempotencyKey?: string;
  /**
   * Set by the runner when a human approved this very call (the run paused in `requires_action`
   * and was resumed, see `resumableApprovals`): counts as the approval hook's yes.
   */
  approval?: { id: string; approved: true };
  /**
   * The runner's recorded check (its `ToolContext.checkBoundary`): when present, the subagent's
   * input and yield are checked through it, so they are recorded like the run's own decisions
   * (span, audit, `guardrail_decisions`, `guardrail_decision` events). Without it (outside a run)
   * they go through this delegation's checker.
   */
  checkBoundary?: BoundaryGuardrailCheck;
  /**
   * The runner's recorder (its `ToolContext.recordBoundaryDecisions`): a dispatched task's
   * boundary decisions, made by the worker's checker, are recorded through it exactly like
   * `checkBoundary`'s. Without it (outside a run) they are validated and not recorded.
   */
  recordBoundaryDecisions?: BoundaryDecisionRecorder;
}

/** The delegated task, its scope and context: the one contracts, from `@baton/manifest/contracts`. */
export type { DelegatedTask, DelegatedTaskContext, DelegationScope } from '@baton/manifest/contracts';

/**
 * Sends a task to run elsewhere and resolves to its result (what `runDelegated` returned there:
 * the ResponsePackage and the boundary decisions made on the way). Should honour `signal` (the
 * parent was cancelled). Throwing, or resolving to a result whose `response` is not a
 * ResponsePackage, becomes a FAILURE / ERR_TOOL_FAILURE package; a result whose decisions cannot
 * be read (or recorded) becomes FAILURE / ERR_INVALID_TASK_RESULT (fail closed).
 */
export type TaskDispatcher = (task: DelegatedTask, options: { signal?: AbortSignal }) => Promise<DelegatedTaskResult>;

/** What running a task elsewhere answers: the one contract, from `@baton/manifest/contracts`. */
export type { DelegatedTaskResult } from '@baton/manifest/contracts';

/** One edit-ledger record: the one contracts, from `@baton/manifest/contracts`. */
export type { EditLedgerEntry, EditLedgerFile } from '@baton/manifest/contracts';

/**
 * Durable record of edits per task key, so a retried task never applies its edits twice. Any
 * store works (memory, files, Redis); `get` of an unknown key resolves to undefined. Throwing
 * means "unavailable": delegation fails closed.
 */
export interface EditLedger {
  get(key: string): Promise<EditLedgerEntry | undefined>;
  put(key: string, entry: EditLedgerEntry): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A runtime tool: the contract's `SystemTool`, whose `execute` reads only the {@link DelegationContext}
 * subset (a runner's full ToolContext fits; `delegate()` outside a run passes less).
 */
export interface DelegationSystemTool extends SystemTool<DelegationContext> {
  /** Runs the tool; the output is the tool's text (a ResponsePackage as JSON for `delegate_task`). */
  execute(args: Record<string, unknown>, ctx: DelegationContext): Promise<string>;
  /** The runner pauses a call this says yes to until a human decides (`resumableApprovals`). */
  needsApproval?: (args: Record<string, unknown>) => boolean;
}

/** An in-process subagent run, its result and the runner: the one contracts, from `@baton/manifest/contracts`. */
export type { SubagentRunRequest, SubagentRunResult, SubagentRunner } from '@baton/manifest/contracts';

/** What an approval hook is asked. */
export interface ApprovalRequest {
  /** The skill or agent the task goes to. */
  skill: string;
  /** The capabilities that need approval (network_outbound, file_delete, financial_tx). */
  capabilities: string[];
  task_id: string;
  /** One line saying what the subagent is asked to do. */
  summary: string;
}

/** Says yes or no to a sensitive delegation; anything but `true` is a no. */
export type ApprovalHook = (request: ApprovalRequest) => Promise<boolean>;

/**
 * The packet gate's proof hooks for one delegated task, called with exactly what each attempt sends:
 * an agent subagent's first model request (through the runner), or the SkillPackage object written
 * to a skill process's stdin, before it starts. Throwing stops that attempt (nothing is sent).
 */
export interface DelegationBoundary {
  onRecipientModelRequest?(request: unknown): Promise<void> | void;
  onRecipientProcessInput?(stdin: unknown): Promise<void> | void;
}

/** Decides what crosses to the subagent (e.g. @baton/packets); throw to refuse. */
export interface DelegationPacketGate {
  prepare(request: {
    skillPackage: SkillPackage;
    recipient: string;
    purpose: string;
  }): Promise<{ skillPackage: SkillPackage; packetId?: string; boundary?: DelegationBoundary }>;
}

/** Minimal structured logger: the one contract, `BatonLogger` (the @baton/tracing logger fits). */
export type DelegationLogger = BatonLogger;

/** Limits on what `input_data` may carry. */
export interface PayloadLimits {
  /** Serialised size of `input_data`, bytes (default 64 KiB). */
  maxTotalBytes?: number;
  /** Any one string, bytes (default 32 KiB). */
  maxStringBytes?: number;
  /** A base64-looking string longer than this is refused as binary (default 4 KiB). */
  maxBase64Bytes?: number;
  /** Lines in any one string (default 2000): huge logs belong in a file reference. */
  maxLines?: number;
}

/** Options for `createDelegation`. */
export interface CreateDelegationOptions {
  /** Directory of skills (`<dir>/<name>/manifest.json`); loaded on first use. */
  skillsDir?: string;
  /** Or an already-loaded registry. */
  skills?: SkillRegistry;
  /** Runs in-process agent subagents (the Baton Runner). */
  runner?: SubagentRunner;
  /** Agent ids `subagent_type` may name; default: anything that is not a skill goes to the runner. */
  agents?: readonly string[];
  /** Capabilities of in-process agents, by agent id (for approvals). */
  agentCapabilities?: Record<string, readonly string[]>;
  /** Directory subagents work in; file references resolve inside it. */
  workspace: string;
  /** Says yes/no to sensitive capabilities (default: deny). */
  approvals?: ApprovalHook;
  /**
   * Ask over the run instead of inside the tool: `delegate_task` calls with
   * `requires_approval: true` pause the run in `requires_action` (the runner's resumable
   * approvals, e.g. `POST /v1/runs/:run_id/approvals`), and an approved call counts as a yes
   * without asking `approvals`. Default false: `approvals` is asked synchronously (the CLI's
   * terminal prompt). A rejected call never reaches the tool.
   */
  resumableApprovals?: boolean;
  /** Maximum delegation depth (default 3). */
  maxDepth?: number;
  /** Hard timeout per subagent attempt, ms (default 60000). */
  timeoutMs?: number;
  /** Concurrent subagents per delegation instance (default 4). */
  maxConcurrency?: number;
  /**
   * Guardrail for AGENT_INPUT (subagent input) and AGENT_RESPONSE (its yield). Required (like the
   * runner's): pass the runner's `guardrailChecker` so its timeout and fail policy apply, or a
   * `GuardrailValidator` (checked through a checker with the defaults: 2 s, fail closed).
   * Without it `createDelegation` throws `SkillsConfigError` `GUARDRAILS_REQUIRED`.
   */
  guardrails: GuardrailValidator | GuardrailChecker;
  /** Packet gate every SkillPackage goes through when set. */
  packetGate?: DelegationPacketGate;
  logger?: DelegationLogger;
  /** Task id generator (default random UUID). */
  idGenerator?: () => string;
  /** Clock for durations (default `performance.now`). */
  clock?: () => number;
  /** Runs subprocess skills (default: `spawnJsonProcess` from `@baton/runner/process`). */
  spawn?: SpawnJson;
  /** argv "Tests pass" runs in the workspace. */
  testCommand?: string[];
  /** Payload bounds. */
  payloadLimits?: PayloadLimits;
  /** Apply a SUCCESS yield's edits (`output_payload.diff` / `.edits`) to the workspace (default false). */
  applyEdits?: boolean;
  /** Environment to inherit delegation depth/lineage from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Extra environment variables for subprocess skills (after scrubbing). */
  skillEnv?: Record<string, string>;
  /**
   * How skill processes are confined (default `auto`: bubblewrap, else `unshare`, else none — see
   * the README). A named mechanism that does not work here makes every skill run fail with
   * `SkillsConfigError('CONFINEMENT_UNAVAILABLE')` (fail closed).
   */
  confinement?: ConfinementPreference;
  /** Directories every skill process may write besides its scratch dir (e.g. a shared cache); must exist. */
  skillWritablePaths?: readonly string[];
  /**
   * Runs delegated tasks somewhere else (e.g. a queue worker). When set, `delegate()` and
   * `delegate_task` only validate the arguments and refuse depth and loop violations here, then
   * hand the task to the dispatcher; the other side runs it with `runDelegated`.
   */
  dispatch?: TaskDispatcher;
  /**
   * With `applyEdits` and a context `idempotencyKey`: records each task's edits (post-image
   * hashes, pending before writing, applied after the checks pass) so a retried task returns the
   * recorded result instead of applying its edits a second time.
   */
  editLedger?: EditLedger;
}

/** What `createDelegation` returns. */
export interface Delegation {
  /** `delegate_task` for the parent agent: output is the ResponsePackage as JSON. */
  delegateTaskTool: DelegationSystemTool;
  /** `yield_control` for an in-process subagent (terminal). */
  yieldControlTool: DelegationSystemTool;
  /** Delegates one task; never rejects for subagent failures (they are FAILURE packages). */
  delegate(args: unknown, ctx?: DelegationContext): Promise<ResponsePackage>;
  /**
   * Runs a dispatched task here, as `delegate()` would have with the task's scope (in-process
   * subagents inherit it, and their own `delegate_task` calls go through `dispatch` again). Never
   * dispatches the task itself. Never rejects: malformed tasks and requests are FAILURE packages.
   * Resolves to the ResponsePackage and the task's boundary decisions (its subagent's input and
   * yields, checked with this delegation's checker) for the delegating run to record.
   */
  runDelegated(task: DelegatedTask, options?: { signal?: AbortSignal }): Promise<DelegatedTaskResult>;
  /** Cancels every running subagent and waits for them to end. */
  shutdown(): Promise<void>;
  /**
   * The confinement mechanism skill processes run under and what it enforces (detected once and
   * logged at start). Rejects with `CONFINEMENT_UNAVAILABLE` when the requested one does not work.
   */
  confinement(): Promise<ConfinementInfo>;
}
