// Public API of @baton/tracing. Keep exports explicit.
export { TRACING_ERROR_CODES, type TracingErrorCode, TracingError, InvalidTraceContextError, TracingConfigError } from './errors.js';
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
export { startSpan, startServerSpan } from './spans.js';
export type { StartSpanOptions, SpanScope, StartServerSpanOptions, ServerSpanScope } from './spans.js';
export {
  W3CTraceContextLevel2Propagator,
  readTraceHeaders,
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
  TRACERESPONSE_HEADER,
} from './w3c/propagator.js';
export type { IncomingTraceHeaders, W3CTraceContextLevel2PropagatorOptions } from './w3c/propagator.js';
export { parseTraceparent, TRACE_FLAG_SAMPLED, TRACE_FLAG_RANDOM } from './w3c/traceparent.js';
export type { ParsedTraceparent, TraceparentRejection, TraceparentParseResult } from './w3c/traceparent.js';
export { W3CTraceState, parseTracestateList, TRACESTATE_MAX_MEMBERS } from './w3c/tracestate.js';
export type { TracestateRejection, TracestateParseResult } from './w3c/tracestate.js';
export { caseInsensitiveGetter, headersFromRaw } from './w3c/headers.js';
export type { IncomingHeaders } from './w3c/headers.js';
export { runWithTraceContext, currentTraceContext } from './outbound-context.js';
