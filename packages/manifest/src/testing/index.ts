// @baton/manifest/testing: test stand-ins every package can use (this is the earliest package).
export { scriptedGuardrail, allowAllGuardrail, type ScriptedDecision, type ScriptedGuardrail } from './scripted-guardrail.js';
// The one scripted model (a labelled offline stand-in) for the real @openai/agents run loop; needs
// the optional peer @openai/agents-core. `@baton/runner/testing` re-exports it.
export {
  createScriptedModel,
  createScriptedProvider,
  requestText,
  type ModelScript,
  type ScriptedModelOptions,
  type ScriptedProvider,
  type ScriptedProviderOptions,
} from './scripted-model.js';
export type { ScriptedTurn, ScriptedToolCall } from './scripted-turn.js';
