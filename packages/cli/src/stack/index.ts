// @baton/cli/stack: the one composition root `baton run`, `baton serve`, `baton worker` and the demo share.
export { createBatonStack, StackClosedError } from './create-stack.js';
export type {
  BatonStack,
  BatonStackConfig,
  StackRunner,
  StackStoreConfig,
  StackGuardrailConfig,
  StackPacketsConfig,
  StackDelegationConfig,
} from './config.js';
export { captureJson, type CaptureOptions } from './captures.js';
export { StackConfigError, StackCloseError } from './errors.js';
export { loadToolModules, type ToolRecord } from './tools.js';
