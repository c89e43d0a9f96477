// @baton/runner/testing: helpers for testing agents without a network.
export {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedOpenAIServerOptions,
  type ScriptedTurn,
  type ScriptedToolCall,
  type RecordedRequest,
  type ScriptFunction,
} from './scripted-openai-server.js';
export {
  OfflineModel,
  OfflineModelProvider,
  createOfflineModelProvider,
  type OfflineModelProviderOptions,
  OFFLINE_MODEL_LABEL,
  DEFAULT_SCENARIO,
} from '../models/offline-model.js';
export { parseScenario, loadScenarioFile } from '../models/scenario-loader.js';
export type { Scenario, ScenarioInput, ScenarioRule } from '../models/scenario-schema.js';
// The one scripted model lives in @baton/manifest/testing (the earliest package, so packets and
// tracing tests use it too); re-exported here where runner users look for it.
export {
  createScriptedModel,
  createScriptedProvider,
  requestText,
  type ModelScript,
  type ScriptedModelOptions,
  type ScriptedProvider,
  type ScriptedProviderOptions,
} from '@baton/manifest/testing';
// The ThreadStore contract suite, for anyone writing a store (inject your test framework's functions).
export {
  describeThreadStoreContract,
  manualClock,
  type StoreFactory,
  type StoreFactoryOptions,
  type StoreUnderTest,
  type ContractTestApi,
  type ContractMatchers,
  type ContractAsyncMatchers,
} from './store-contract.js';
// The same contract across OS processes, for stores several processes share.
export {
  describeThreadStoreProcessContract,
  type ChildStoreSpec,
  type SharedStoreUnderTest,
  type SharedStoreFactory,
  runStoreChild,
} from './store-process-contract.js';
// A seeded fuzzer for the runner HTTP service (the bounded test and bench/runner-fuzz share it).
export { runRunnerFuzz, type RunnerFuzzOptions, type RunnerFuzzReport, type RunnerFuzzTarget } from './http-fuzz.js';
