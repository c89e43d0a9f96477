import { extractTraceContext } from '@baton/tracing';

/** Trace ids for a log line, from the request's `traceparent` header when it is valid. */
export function traceIdsFromHeaders(
  headers: Record<string, string | string[] | undefined>,
): { trace_id: string; span_id: string } | undefined {
  const ctx = extractTraceContext(headers);
  return ctx ? { trace_id: ctx.traceId, span_id: ctx.spanId } : undefined;
}
