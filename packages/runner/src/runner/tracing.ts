import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { contextFromTraceparent, injectTraceHeaders, newTraceIds, runWithTraceContext, startSpan, tracedFetch } from '@baton/tracing';
import { InvalidRunRequestError } from '../errors.js';

export const TRACER_NAME = '@baton/runner';

/** A span and the context to start its children in. */
export interface SpanScope {
  span: Span;
  context: Context;
  /** Ids for correlation (guardrail requests, subprocess stdin); always valid, always this span's own. */
  ids: { traceId: string; spanId: string };
}

/**
 * Opens spans explicitly under a parent context (no reliance on an active context manager).
 * Every span has its own ids even when no OpenTelemetry SDK is registered (`startSpan` of
 * @baton/tracing then makes a non-recording span with a fresh span id), so each outbound hop
 * names a Baton span, never the caller's.
 */
export class RunTracing {
  constructor(private readonly tracer: Tracer) {}

  /** The context a run() call starts in: the caller's traceparent, or a fresh trace. */
  rootContext(traceparent: string | undefined, tracestate: string | undefined): Context {
    if (traceparent === undefined) return ROOT_CONTEXT;
    try {
      return contextFromTraceparent({ traceparent, ...(tracestate !== undefined ? { tracestate } : {}) });
    } catch (error) {
      throw new InvalidRunRequestError(`traceparent: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  start(name: string, parent: Context, attributes: Attributes = {}, kind: SpanKind = SpanKind.INTERNAL): SpanScope {
    const scope = startSpan({ tracer: this.tracer, name, parent, attributes, kind });
    return { span: scope.span, context: scope.context, ids: scope.ids };
  }

  /** The ids of the span in `context` (always valid for contexts made by {@link start}). */
  idsOf(context: Context): { traceId: string; spanId: string } {
    const sc = trace.getSpanContext(context);
    if (sc && isSpanContextValid(sc)) return { traceId: sc.traceId, spanId: sc.spanId };
    return newTraceIds();
  }

  /**
   * The `trace` object a subprocess agent reads on stdin: the span's ids plus its flags (as the
   * run received them: an unsampled parent stays `00`) and `tracestate`.
   */
  stdinTrace(context: Context): { trace_id: string; parent_span_id: string; trace_flags: string; tracestate?: string } {
    const { traceparent, tracestate } = this.headers(context);
    const parts = traceparent?.split('-');
    if (!parts || parts.length !== 4) {
      const ids = this.idsOf(context);
      return { trace_id: ids.traceId, parent_span_id: ids.spanId, trace_flags: '00' };
    }
    return { trace_id: parts[1]!, parent_span_id: parts[2]!, trace_flags: parts[3]!, ...(tracestate ? { tracestate } : {}) };
  }

  /** W3C headers for outbound calls made within `context`. */
  headers(context: Context): { traceparent?: string; tracestate?: string } {
    const h = injectTraceHeaders({ context });
    const out: { traceparent?: string; tracestate?: string } = {};
    if (h['traceparent'] !== undefined) out.traceparent = h['traceparent'];
    if (h['tracestate'] !== undefined) out.tracestate = h['tracestate'];
    return out;
  }
}

export function endSpan(span: Span, error?: { code: string; message: string }): void {
  if (error) {
    span.setAttribute('error.type', error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  }
  span.end();
}

/** A fetch that sends the W3C headers of `context` unless the caller set its own. */
export function fetchWithTraceHeaders(context: Context, baseFetch: typeof fetch = globalThis.fetch): typeof fetch {
  const traced = tracedFetch(baseFetch);
  const wrapped = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> =>
    runWithTraceContext(context, () => traced(input, init));
  return wrapped as typeof fetch;
}
