// The OpenAI Agents SDK → OpenTelemetry bridge (subpath `@baton/tracing/agents`). It lives on
// its own entry point so that importing @baton/tracing does not load the Agents SDK.
export { createAgentsTraceBridge, installAgentsTraceBridge } from './agents-bridge.js';
export type { AgentsTraceBridgeOptions } from './agents-bridge.js';
