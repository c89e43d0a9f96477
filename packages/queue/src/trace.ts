import { ROOT_CONTEXT, SpanKind, context as otelContext, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { contextFromTraceparent, injectTraceHeaders } from '@baton/tracing';

export const TRACER_NAME = '@baton/queue';

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

function headers(ctx: Context): JobTrace {
  const h = injectTraceHeaders({ context: ctx });
  return { ...(h.traceparent ? { traceparent: h.traceparent } : {}), ...(h.tracestate ? { tracestate: h.tracestate } : {}) };
}

/**
 * Opens a span around putting a job on a queue (producer side) and returns the trace context to
 * store in the job, so the worker's spans join the caller's trace.
 */
export function startEnqueueSpan(tracer: Tracer, name: string, from: JobTrace | undefined, attributes: Record<string, string | number>): { span: Span; carrier: JobTrace } {
  const parent = parentContext(from);
  const span = tracer.startSpan(name, { kind: SpanKind.PRODUCER, attributes }, parent);
  const ctx = trace.setSpan(parent, span);
  const carrier = headers(ctx);
  // Without an OpenTelemetry SDK the span is not recording: pass the caller's context through.
  return { span, carrier: carrier.traceparent ? carrier : (from ?? {}) };
}

/** Opens the worker-side span of a job under the context the producer stored in it. */
export function startProcessSpan(tracer: Tracer, name: string, carrier: JobTrace, attributes: Record<string, string | number>): { span: Span; carrier: JobTrace } {
  const parent = parentContext(carrier);
  const span = tracer.startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent);
  const out = headers(trace.setSpan(parent, span));
  return { span, carrier: out.traceparent ? out : carrier };
}
