// Public API of @baton/skills. Keep exports explicit.
export {
  SKILLS_ERROR_CODES,
  type SkillsErrorCode,
  SkillsError,
  SkillsInputError,
  SkillsConfigError,
  SkillFaultError,
  VagueCriteriaError,
  PayloadTooLargeError,
  ConstraintViolationError,
  EditError,
  EDIT_ERROR_CODES,
  type EditErrorCode,
} from './errors.js';
export {
  applyEdits,
  detectEditFormat,
  sha256Hex,
  createUnifiedDiff,
  parseReplaceBlocks,
  parseUnifiedDiff,
  resolveInsideWorkspace,
  type ApplyEditsOptions,
  type ApplyEditsResult,
  type EditInput,
  type FileChange,
  type CreateUnifiedDiffOptions,
  type ReplaceBlock,
  type FilePatch,
  type WorkspacePath,
} from './edits/index.js';
export { CriterionSchema, type Criterion, type CriterionInput, type CriterionResult, type VerifyCriteriaResult } from './criteria/types.js';
export { parseCriteria, type ParseCriteriaOptions } from './criteria/parse.js';
export { verifyCriteria, type VerifyContext } from './criteria/verify.js';
export { runProcess, type RunProcessOptions, type RunProcessResult } from './process/run-process.js';
// The JSON-in/JSON-out spawner and the env scrubber are @baton/runner's (light subpath, no Agents SDK);
// re-exported under the names this package has always used.
export { spawnJsonProcess as spawnJson, scrubbedEnv, DEFAULT_ENV_KEYS as SAFE_ENV_KEYS } from '@baton/runner/process';
export {
  createDelegation,
  APPROVAL_CAPABILITIES,
  DELEGATION_ENV,
  taskIdFromKey,
  createMemoryEditLedger,
  createFileEditLedger,
  DelegatedTaskSchema,
  EditLedgerEntrySchema,
  createSkillRegistry,
  skillRegistryFrom,
  loadSkill,
  ioSchemaToJsonSchema,
  checkPayloadBounds,
  resolveFileRefs,
  renderSkillPackage,
  entryCommand,
  delegateTaskParameters,
  YIELD_CONTROL_PARAMETERS,
  type SkillDefinition,
  type SkillRegistry,
  type SkillManifestFields,
  type ResolvedFileRef,
  type CreateDelegationOptions,
  type Delegation,
  type DelegationContext,
  type DelegationSystemTool,
  type SubagentRunner,
  type SubagentRunRequest,
  type SubagentRunResult,
  type ApprovalHook,
  type ApprovalRequest,
  type DelegationPacketGate,
  type DelegationBoundary,
  type DelegationLogger,
  type PayloadLimits,
  type SpawnJson,
  type TaskDispatcher,
  type DelegatedTask,
  type DelegatedTaskResult,
  type DelegatedTaskContext,
  type DelegationScope,
  type EditLedger,
  type EditLedgerEntry,
  type EditLedgerFile,
  type FileEditLedgerOptions,
} from './delegation/index.js';
export {
  detectConfinement,
  grantFor,
  CONFINEMENT_MECHANISMS,
  type ConfinementInfo,
  type ConfinementMechanism,
  type ConfinementPreference,
  type SkillGrant,
} from './confine/index.js';
export { createTtyApprovalHook, type TtyApprovalHookOptions } from './approvals/tty.js';
export { scaffoldSkill, SKILL_NAME_PATTERN, type ScaffoldSkillOptions, type ScaffoldSkillResult } from './scaffold/scaffold.js';
export { SCAFFOLD_LANGUAGES, type ScaffoldLanguage } from './scaffold/templates.js';
