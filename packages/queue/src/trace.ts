import { ROOT_CONTEXT, SpanKind, context as otelContext, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { contextFromTraceparent, parseTracestateList, startSpan } from '@baton/tracing';

export const TRACER_NAME = '@baton/queue';

/** Longest `tracestate` job data holds (the job-data schema's limit; W3C asks for at least 512). */
export const JOB_TRACESTATE_MAX_LENGTH = 512;

/** W3C trace context as carried in job data. */
export interface JobTrace {
  traceparent?: string;
  tracestate?: string;
}

function parentContext(carrier: JobTrace | undefined): Context {
  if (!carrier?.traceparent) return otelContext.active();
  try {
    return contextFromTraceparent({ traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) });
  } catch {
    // A malformed traceparent in job data starts a new trace rather than failing the job.
    return ROOT_CONTEXT;
  }
}

/**
 * The job's trace context: the span's `traceparent` and its `tracestate`, shortened to what job
 * data holds the way W3C says (whole members, the longest first, then from the right).
 */
function carrierOf(scope: { traceparent: string; tracestate?: string }): JobTrace {
  if (!scope.tracestate) return { traceparent: scope.traceparent };
  const parsed = parseTracestateList(scope.tracestate);
  const state = parsed.ok ? parsed.value?.truncate(JOB_TRACESTATE_MAX_LENGTH).serialize() : undefined;
  return { traceparent: scope.traceparent, ...(state ? { tracestate: state } : {}) };
}

/**
 * Opens a span around putting a job on a queue (producer side) and returns the trace context to
 * store in the job, so the worker's spans join the caller's trace. The span has its own id even
 * without an OpenTelemetry SDK, so the job names the enqueue, not the caller.
 */
export function startEnqueueSpan(
  tracer: Tracer,
  name: string,
  from: JobTrace | undefined,
  attributes: Record<string, string | number>,
): { span: Span; carrier: JobTrace } {
  const scope = startSpan({ tracer, name, parent: parentContext(from), kind: SpanKind.PRODUCER, attributes });
  return { span: scope.span, carrier: carrierOf(scope) };
}

/** Opens the worker-side span of a job under the context the producer stored in it. */
export function startProcessSpan(
  tracer: Tracer,
  name: string,
  carrier: JobTrace,
  attributes: Record<string, string | number>,
): { span: Span; carrier: JobTrace } {
  const scope = startSpan({ tracer, name, parent: parentContext(carrier), kind: SpanKind.CONSUMER, attributes });
  return { span: scope.span, carrier: carrierOf(scope) };
}
