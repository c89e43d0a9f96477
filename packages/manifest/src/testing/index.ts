// @baton/manifest/testing: test stand-ins every package can use (this is the earliest package).
export { scriptedGuardrail, allowAllGuardrail, type ScriptedDecision, type ScriptedGuardrail } from './scripted-guardrail.js';
