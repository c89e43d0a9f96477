// Public API of @baton/manifest. Keep exports explicit.
export { TraceIdSchema, SpanIdSchema, UuidSchema, AgentIdSchema, SemverSchema, TraceRefSchema, type TraceRef } from './contracts/ids.js';
export {
  ACTION_TYPES,
  ActionTypeSchema,
  type ActionType,
  DECISIONS,
  DecisionSchema,
  type Decision,
  ToolCallPayloadSchema,
  type ToolCallPayload,
  ToolOutputPayloadSchema,
  type ToolOutputPayload,
  HandoffPayloadSchema,
  type HandoffPayload,
  TextPayloadSchema,
  GuardrailRequestSchema,
  type GuardrailRequest,
  payloadSchemaFor,
  FindingSchema,
  type Finding,
  GuardrailResponseSchema,
  type GuardrailResponse,
  type GuardrailCallOptions,
  type GuardrailValidator,
} from './contracts/guardrail.js';
export {
  type BoundaryDecisionRecorder,
  type BoundaryDecisionReport,
  type BoundaryCheck,
  type BoundaryCheckOutcome,
  type BoundaryGuardrailCheck,
  type HandoffCheckOutcome,
  type HandoffGuardrailCheck,
} from './contracts/handoff-check.js';
export {
  AgentProcessInputSchema,
  type AgentProcessInput,
  AgentProcessToolCallSchema,
  type AgentProcessToolCall,
  AgentProcessOutputSchema,
  type AgentProcessOutput,
} from './contracts/agent-process.js';
export {
  YIELD_STATUSES,
  YieldStatusSchema,
  type YieldStatus,
  KNOWN_ERROR_CODES,
  ErrorCodeSchema,
  ErrorReportSchema,
  type ErrorReport,
  ResponsePackageSchema,
  type ResponsePackage,
  DelegateTaskArgsSchema,
  type DelegateTaskArgs,
  SkillPackageSchema,
  type SkillPackage,
  HandoffPacketSchema,
  type HandoffPacket,
} from './contracts/delegation.js';
export {
  HANDOFF_PROTOCOL_NAME,
  HANDOFF_WIRE_NAME,
  DELEGATE_TASK_NAME,
  YIELD_CONTROL_NAME,
  RESERVED_TOOL_NAMES,
  WIRE_NAME_PATTERN,
  toWireName,
  toProtocolName,
  wireNameProblem,
} from './contracts/wire-names.js';
export type { RunAuth } from './contracts/auth.js';
export {
  MANIFEST_ERROR_CODES,
  type ManifestErrorCode,
  ManifestError,
  ManifestValidationError,
  ManifestUsageError,
  ScriptExhaustedError,
  unwrapManifest,
} from './errors.js';
export { type ManifestProblem, type LoadResult } from './problems.js';
export {
  AGENT_MANIFEST_SCHEMA_VERSION,
  MAX_TOOLS,
  ToolNameSchema,
  ToolParametersSchema,
  AgentToolSchema,
  type AgentTool,
  AgentManifestSchema,
  type AgentManifest,
} from './schema/agent-manifest.js';
export {
  SKILL_CAPABILITIES,
  type SkillCapability,
  APPROVAL_REQUIRED_CAPABILITIES,
  SHORTHAND_TYPES,
  SkillIoSchema,
  SkillNameSchema,
  SkillManifestSchema,
  type SkillManifest,
} from './schema/skill-manifest.js';
export { skillIoSchemaToJsonSchema, isFullJsonSchema } from './schema/skill-io.js';
export { compileJsonSchema, jsonSchemaCompileProblem } from './schema/json-schema-compile.js';
export { entryPointProblem } from './validate/skill-checks.js';
export { MAX_PARAMETERS_CHARS, MAX_TOTAL_PARAMETERS_CHARS } from './validate/agent-checks.js';
export { DEFAULT_MAX_MANIFEST_BYTES } from './source/decode.js';
export { DEFAULT_MAX_ALIAS_COUNT, MAX_NESTING_DEPTH } from './source/parse-source.js';
export { type ParseManifestOptions, type LoadManifestFileOptions, MAX_PROBLEMS_PER_FILE } from './load/manifest-loader.js';
export { parseAgentManifest, loadAgentManifestFile } from './load/agent.js';
export { parseSkillManifest, loadSkillManifestFile, type LoadSkillManifestFileOptions } from './load/skill.js';
export { checkManifestSet, type ManifestSetEntry } from './load/manifest-set.js';
export { generateJsonSchemas, JSON_SCHEMA_ID_BASE } from './json-schemas.js';
