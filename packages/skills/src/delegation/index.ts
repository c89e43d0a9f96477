export { createDelegation, APPROVAL_CAPABILITIES, DELEGATION_ENV, taskIdFromKey } from './create-delegation.js';
export {
  createMemoryEditLedger,
  createFileEditLedger,
  DelegatedTaskSchema,
  EditLedgerEntrySchema,
  type FileEditLedgerOptions,
} from './edit-ledger.js';
export {
  createSkillRegistry,
  skillRegistryFrom,
  loadSkill,
  ioSchemaToJsonSchema,
  type SkillDefinition,
  type SkillRegistry,
  type SkillManifestFields,
} from './skill-registry.js';
export { checkPayloadBounds, resolveFileRefs, type ResolvedFileRef } from './payload.js';
export { renderSkillPackage } from './skill-package.js';
export { entryCommand } from './entry-command.js';
export { delegateTaskParameters, YIELD_CONTROL_PARAMETERS } from './tools.js';
export type {
  CreateDelegationOptions,
  Delegation,
  DelegationContext,
  DelegationSystemTool,
  SubagentRunner,
  SubagentRunRequest,
  SubagentRunResult,
  ApprovalHook,
  ApprovalRequest,
  DelegationPacketGate,
  DelegationBoundary,
  DelegationLogger,
  PayloadLimits,
  SpawnJson,
  TaskDispatcher,
  DelegatedTask,
  DelegatedTaskResult,
  DelegatedTaskContext,
  DelegationScope,
  EditLedger,
  EditLedgerEntry,
  EditLedgerFile,
} from './types.js';
