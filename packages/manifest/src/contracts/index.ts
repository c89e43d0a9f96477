// @baton/manifest/contracts: the runtime contracts every Baton package codes against (one
// declaration each; packages re-export what is part of their own public API).
export type { RunAuth } from './auth.js';
export type { AuditRecordInput, AuditSink } from './audit.js';
export type { BatonLogger } from './logger.js';
export type {
  BoundaryDecisionRecorder,
  BoundaryDecisionReport,
  BoundaryCheck,
  BoundaryCheckOutcome,
  BoundaryGuardrailCheck,
  HandoffCheckOutcome,
  HandoffGuardrailCheck,
} from './handoff-check.js';
export {
  ERROR_KINDS,
  type ErrorKind,
  type ErrorInfo,
  type BatonErrorShape,
  BatonError,
  WIRE_CODE_PATTERN,
  DELEGATION_ERROR_CODE_PREFIX,
  errorKindOf,
  exitCodeForKind,
} from './errors.js';
export {
  RUN_STATUSES,
  type RunStatus,
  type RequiredAction,
  type JsonObject,
  type ToolContext,
  type ToolImplementation,
  type SystemTool,
  type HandoffGateToolResult,
  type HandoffGateRequest,
  type PreparedHandoff,
  type HandoffGate,
  type RunRequest,
  type RunSummary,
  type RunResult,
  type RunExecutor,
  type GuardrailDecisionRecord,
} from './run.js';
export {
  DelegatedTaskSchema,
  DelegatedTaskResultSchema,
  GuardrailDecisionRecordSchema,
  MAX_DELEGATED_TASK_DECISIONS,
  type DelegatedTaskResult,
  type DelegationScope,
  type DelegatedTaskContext,
  type DelegatedTask,
  type EditLedgerFile,
  type EditLedgerEntry,
  EditLedgerEntrySchema,
  type SubagentRunRequest,
  type SubagentRunResult,
  type SubagentRunner,
} from './delegated-task.js';
