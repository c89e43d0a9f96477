// Public API of @baton/packets: purpose-bound handoff packets, the transfer gate and its proof.
export {
  PacketError,
  PACKET_ERROR_CODES,
  type PacketErrorCode,
  type PacketErrorOptions,
  MissingAuthorizationError,
  TenantMismatchError,
  CaseNotBoundError,
  UnexpectedFieldError,
  UnknownRecipientError,
  UnknownPurposeError,
  PolicyStoreUnavailableError,
  CaseDataUnavailableError,
  CaseNotFoundError,
  TaskTooLongError,
  TaskBlockedError,
  ContractInvalidError,
  AuditUnavailableError,
  BoundaryViolationError,
  PacketMissingError,
  InvalidKeysError,
} from './errors.js';
export {
  RecipientContractSchema,
  RecipientSchema,
  PurposeSchema,
  ProviderBoundarySchema,
  ApprovalSchema,
  FieldRuleSchema,
  DataClassSchema,
  approvalsFor,
  type RecipientContract,
  type Recipient,
  type Purpose,
  type ProviderBoundary,
  type Approval,
  type FieldRule,
  type FieldDelivery,
  type CaseApprovals,
} from './contract/schema.js';
export { parseRecipientContract, loadRecipientContract, type ParseRecipientContractOptions } from './contract/load.js';
export { createFilePolicyStore, createStaticPolicyStore, type PolicyStore, type FilePolicyStoreOptions } from './policy-store.js';
export {
  createFileCaseDataSource,
  createInMemoryCaseDataSource,
  CASE_CANARY_PATTERN,
  findCaseCanaries,
  readCaseCanaries,
  type CaseDataSource,
  type GetCaseFieldsArgs,
  type FileCaseDataSourceOptions,
  type InMemoryCaseDataSourceOptions,
} from './case-data.js';
export { requireAuth, type PacketAuth, type VerifiedAuth } from './auth.js';
export { canonicalJson } from './canonical-json.js';
export {
  deriveReference,
  keyedDigest,
  digestsEqual,
  packetKeysFromEnv,
  MIN_KEY_BYTES,
  type PacketKeys,
  type DeriveReferenceArgs,
  type PacketKeysFromEnvOptions,
} from './keys.js';
export {
  buildPacket,
  buildPacketDetailed,
  defaultPacketId,
  DEFAULT_TASK_MAX_CHARS,
  type BuildPacketOptions,
  type BuiltPacket,
} from './builder.js';
export { checkPacketWithGuardrail, type PacketGuardrailOptions } from './guardrail.js';
export { renderPacketInput, parsePacketInput, userTextOf } from './render.js';
export {
  HANDOFF_DECISION_KIND,
  PACKET_BOUNDARY_KIND,
  type AuditSink,
  type AuditRecordLike,
  type FieldClassification,
  type HandoffDecisionData,
  type PacketBoundaryData,
} from './audit/records.js';
export { viewModelRequest, inputDigest, type BoundaryView, type BoundaryTransport } from './audit/boundary.js';
export {
  createPacketHandoffGate,
  defaultResolveCase,
  type DefaultResolveCaseOptions,
  type PacketGateToolResult,
  type PacketHandoffGate,
  type PacketHandoffGateOptions,
  type PacketGateRequest,
  type PreparedPacketHandoff,
  type ResolvedCase,
} from './gate.js';
export { reconcilePacketAudit, type ReconcilePacketAuditOptions, type ReconcileResult } from './reconcile.js';
export { packetHandoff, PacketHandoffArgsSchema, type PacketHandoffArgs, type PacketHandoffOptions } from './sdk/packet-handoff.js';
export { packetAgentTool, type PacketAgentToolOptions } from './sdk/packet-agent-tool.js';
export { createPacketBoundaryFilter, type PacketBoundaryFilter } from './sdk/boundary-filter.js';
export { packetStateView, stateIsPacketView } from './state-view.js';
