// Public API of @baton/guardrail-client. Keep exports explicit.
export { createGuardrailClient, type GuardrailClient, type GuardrailClientOptions } from './http-client.js';
export { createInProcessGuardrail, type InProcessGuardrailOptions } from './in-process.js';
export {
  createGuardrailChecker,
  type GuardrailChecker,
  type GuardrailCheckerOptions,
  type GuardrailCheckInput,
  type GuardrailCheckResult,
  type PayloadOf,
} from './checker.js';
export {
  GUARDRAIL_REASON_CODES,
  CLIENT_REASON_CODES,
  type GuardrailReasonCode,
  type ClientReasonCode,
  type FailMode,
  type FailModes,
} from './outcomes.js';
export { verifyResponse, type VerifiedResponse } from './verify-response.js';
export {
  GUARDRAIL_CLIENT_ERROR_CODES,
  type GuardrailClientErrorCode,
  GuardrailClientError,
  GuardrailClientConfigError,
  GuardrailCallError,
} from './errors.js';
export {
  guardrailInputGuardrail,
  guardrailOutputGuardrail,
  userText,
  type InputGuardrailAdapterOptions,
  type OutputGuardrailAdapterOptions,
} from './adapters/agent-guardrails.js';
export { guardrailToolInputGuardrail, guardrailToolOutputGuardrail, type ToolGuardrailAdapterOptions } from './adapters/tool-guardrails.js';
export { withGuardrailedArguments, type GuardedToolOptions } from './adapters/tool-wrapper.js';
export { agentIdFromName, type GuardrailAdapterOptions, type AdapterTrace } from './adapters/request-factory.js';
export { type GuardrailOutcomeInfo } from './adapters/outcome-info.js';
