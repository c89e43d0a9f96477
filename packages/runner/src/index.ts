// Public API of @baton/runner. Keep exports explicit.
export const PACKAGE_NAME = '@baton/runner';

export {
  RUNNER_ERROR_CODES,
  type RunnerErrorCode,
  RunnerError,
  AgentNotFoundError,
  InvalidRunRequestError,
  ToolNameError,
  RegistryError,
  HandoffLoopError,
  HandoffLimitError,
  HandoffRejectedError,
  ToolArgumentsError,
  RunTimeoutError,
  GuardrailBlockedError,
  AgentExecutionError,
  type RegistryProblem,
} from './errors.js';

export { Runner, DEFAULT_LIMITS, type RunnerOptions } from './runner/runner.js';
export { LOCK_LEASE_MARGIN_MS } from './runner/request.js';
export { TAINT_AUDIT_KIND, type ToolPolicy } from './runner/taint.js';
export {
  DEFAULT_HISTORY_WINDOW,
  MAX_SUMMARY_CHARS,
  HistorySummaryError,
  approximateTokens,
  type HistoryWindow,
  type HistoryTurn,
  type HistorySummarizer,
  type HistorySummaryRequest,
} from './runner/history.js';
export {
  ApprovalError,
  ApprovalDecisionError,
  ApprovalRunNotFoundError,
  ApprovalConflictError,
  ApprovalExpiredError,
  ThreadAwaitingApprovalError,
  ApprovalsUnsupportedError,
  APPROVAL_STATE_INVALID,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_REJECTION,
  MAX_APPROVAL_REASON_CHARS,
  type ApprovalPolicy,
  type ApprovalPolicyRequest,
  type RunnerApprovalOptions,
} from './runner/approvals.js';
export type { RunnerLogger } from './runner/logger.js';
export type {
  RunnerEvent,
  RunnerEventType,
  RunnerEventListener,
  RunStartEvent,
  RunEndEvent,
  HandoffEvent,
  ToolStartEvent,
  ToolEndEvent,
  GuardrailDecisionEvent,
  TextDeltaEvent,
  ApprovalRequiredEvent,
  ApprovalDecidedEvent,
  DecisionSubject,
  EventFinding,
  ToolEventDetail,
} from './runner/events.js';
export { STREAM_RELEASED_TEXT_CHANGED, DEFAULT_MAX_SEGMENT_CHARS } from './runner/response-release.js';
export type {
  RunAuth,
  ToolContext,
  ToolImplementation,
  SystemTool,
  HandoffGate,
  HandoffGateRequest,
  HandoffGateToolResult,
  PreparedHandoff,
  RunnerLimits,
  RunRequest,
  RunResult,
  RunSummary,
  ModelRequestListener,
  GuardrailValidator,
  RequiredAction,
  ApprovalDecision,
  SubmitApprovalsRequest,
} from './runner/types.js';

export {
  loadAgentRegistry,
  type LoadAgentRegistryOptions,
  type LoadRegistryFromDirOptions,
  type LoadRegistryFromUrlsOptions,
} from './registry/load-registry.js';
export { createAgentRegistry, type CreateAgentRegistryOptions } from './registry/registry.js';
export type { AgentRegistry, RegisteredAgent, AgentManifestLike, RegistryLimits } from './registry/types.js';
export type { ManifestParser, ManifestParseResult } from './registry/manifest-parser.js';
export {
  DeploymentConfigSchema,
  AgentDeploymentSchema,
  parseDeploymentConfig,
  type DeploymentConfig,
  type AgentDeployment,
  type DeploymentConfigFile,
} from './registry/deployment-config.js';
export { compareSemver } from './registry/semver.js';

export {
  createSqliteThreadStore,
  createMemoryThreadStore,
  StoreError,
  ThreadNotFoundError,
  RunNotFoundError,
  ThreadBusyError,
  InvalidStoreInputError,
  StoreUnavailableError,
  LockLostError,
  mergeStateObjects,
  RUNNER_CRASHED,
  TERMINAL_RUN_STATUSES,
  ACTIVE_RUN_STATUSES,
  RUN_STATUSES,
  type PendingApproval,
  type SuspendedRun,
  type SaveSuspendedRunInput,
  type SqliteThreadStoreOptions,
  type MemoryThreadStoreOptions,
  type StoreIdKind,
  type RunStatus,
  type JsonObject,
  type ThreadRecord,
  type RunRecord,
  type ThreadItem,
  type AuditRecord,
  type CreateRunInput,
  type UpdateRunInput,
  type ThreadLock,
  type AcquireLockOptions,
  type ThreadStore,
  type StoreWrite,
  type CommitAndReleaseOptions,
  type WriteBatchOptions,
  type MergeStateOptions,
  type SaveSuspendedRunOptions,
  type TakeSuspendedRunOptions,
} from './store/index.js';

// models (H5b): the offline scripted model, OpenAI / OpenAI-compatible resolution.
export { resolveModelProvider, type ResolveModelProviderOptions, type ResolvedModelProvider } from './models/resolve.js';
export {
  createOfflineModelProvider,
  OfflineModelProvider,
  OfflineModel,
  OFFLINE_MODEL_LABEL,
  DEFAULT_SCENARIO,
  type OfflineModelProviderOptions,
} from './models/offline-model.js';
export { getModelForAgent, type AgentAwareModelProvider } from './models/agent-model.js';
export { loadScenarioFile, parseScenario } from './models/scenario-loader.js';
export { ScenarioSchema, type Scenario, type ScenarioInput, type ScenarioRule, type ScenarioCondition } from './models/scenario-schema.js';
export { ModelSetupError, ScenarioError, ModelConfigurationError } from './models/errors.js';
// Thrown by the scripted model, which lives in @baton/manifest/testing.
export { ScriptExhaustedError } from '@baton/manifest';

export {
  spawnJsonProcess,
  PROCESS_DEFAULTS,
  runAgentProcess,
  scrubbedEnv,
  DEFAULT_ENV_KEYS,
  ProcessOptionsError,
  type RunAgentProcessOptions,
  type RunAgentProcessResult,
  type AgentProcessFailureCode,
  type SpawnJsonProcessOptions,
  type SpawnJsonProcessResult,
  type SpawnFailureCode,
} from './process/index.js';
