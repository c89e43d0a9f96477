export const PACKAGE_NAME = '@baton/guardrail-server';

export { createGuardrailEngine, type GuardrailEngine, type GuardrailEngineOptions } from './engine.js';
export { parseGuardrailRequest, type ParsedGuardrailRequest } from './request.js';
export { DEFAULT_POLICY, PolicySchema, type Policy, type PolicyInput } from './policy/schema.js';
export { loadPolicyFile, parsePolicy, type ParsePolicyOptions } from './policy/load.js';
export { GUARDRAIL_ERROR_CODES, type GuardrailErrorCode, GuardrailError, GuardrailRequestError, PolicyError } from './errors.js';

// Detectors, usable on their own (pure functions over text returning spans).
export type { DetectedSpan, Severity } from './detectors/types.js';
export { detectPii, luhnValid, ibanValid, ssnValid, PII_TYPES, type PiiType } from './detectors/pii.js';
export {
  detectSecrets,
  shannonEntropy,
  NAME_KEYED_SECRET_RULES,
  NAME_KEYED_SEVERITY,
  type DetectSecretsOptions,
} from './detectors/secrets.js';
export { SECRET_RULES, type SecretRule } from './detectors/secret-rules.js';
export { detectExfiltration, urlCarriesData, type DetectExfilOptions, type ExfilType } from './detectors/exfil.js';
export {
  detectInjection,
  locateInjection,
  DEFAULT_INJECTION_THRESHOLD,
  INJECTION_THRESHOLDS,
  INJECTION_GREY_THRESHOLDS,
  type InjectionActionType,
  type DetectInjectionOptions,
  type InjectionResult,
} from './detectors/injection.js';
export { detectCanaries, makeCanary } from './detectors/canary.js';
export {
  detectSystemPromptLeak,
  indexSystemPrompts,
  DEFAULT_LEAK_SHINGLE,
  type SystemPromptIndex,
} from './detectors/system-prompt-leak.js';
export { ThreadTaintTracker, type ThreadTaintOptions, type Taint } from './tool-policy.js';
export { foldText } from './text/normalize.js';
export { decodeLayers } from './text/decode.js';

// Stronger detectors layered over the engine (off unless configured). ONNX: the ./onnx subpath.
export {
  createTieredValidator,
  requestTexts,
  TierError,
  type GuardrailTier,
  type TierInput,
  type TierText,
  type TierVerdict,
  type TieredValidatorOptions,
} from './tiers/tiered.js';
export { createLlmJudgeTier, parseJudgeAnswer, type LlmJudgeTierOptions } from './tiers/llm-judge.js';
export { isPaymentCard, cardBrandFits } from './detectors/card.js';
