// Public API of @baton/tracing. Keep exports explicit.
export { TracingError, InvalidTraceContextError, TracingConfigError } from './errors.js';
export {
  extractTraceContext,
  injectTraceHeaders,
  contextFromTraceparent,
  contextFromSpanIds,
  newTraceIds,
  parseTracestate,
  formatTraceparent,
} from './trace-context.js';
export type {
  ExtractedTraceContext,
  HeaderRecord,
  InjectTraceHeadersOptions,
  ContextFromTraceparentOptions,
  ContextFromSpanIdsOptions,
} from './trace-context.js';
export { createLogger, LOG_LEVELS } from './logger.js';
export type { Logger, LogLevel, LogTraceBinding, CreateLoggerOptions } from './logger.js';
export { safeJsonStringify } from './safe-json.js';
export { setupTracing } from './setup.js';
export type { SetupTracingOptions, TracingHandle } from './setup.js';
export { JsonlFileSpanExporter, spanToJsonlRecord } from './jsonl-exporter.js';
export type { JsonlSpanRecord } from './jsonl-exporter.js';
export { tracedFetch } from './traced-fetch.js';
export { GEN_AI, GEN_AI_OPERATIONS } from './gen-ai-attributes.js';
