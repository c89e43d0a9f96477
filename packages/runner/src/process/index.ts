// Subprocess agents of @baton/runner. Re-exported by the package index; keep exports explicit.
export { spawnJsonProcess, PROCESS_DEFAULTS } from './spawn-json-process.js';
export { runAgentProcess } from './run-agent-process.js';
export type { RunAgentProcessOptions, RunAgentProcessResult, AgentProcessFailureCode } from './run-agent-process.js';
export { scrubbedEnv, DEFAULT_ENV_KEYS } from './env.js';
export { ProcessOptionsError } from './errors.js';
export type { SpawnJsonProcessOptions, SpawnJsonProcessResult, SpawnFailureCode } from './types.js';
