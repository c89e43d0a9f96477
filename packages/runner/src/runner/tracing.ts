import { ROOT_CONTEXT, SpanStatusCode, isSpanContextValid, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { contextFromTraceparent, injectTraceHeaders, newTraceIds } from '@baton/tracing';
import { InvalidRunRequestError } from '../errors.js';

export const TRACER_NAME = '@baton/runner';

/** A span and the context to start its children in. */
export interface SpanScope {
  span: Span;
  context: Context;
  /** Ids for correlation (guardrail requests, subprocess stdin); always valid. */
  ids: { traceId: string; spanId: string };
}

/**
 * Opens spans explicitly under a parent context (no reliance on an active context manager), and
 * gives valid ids even when no OpenTelemetry SDK is registered: without one, spans are
 * non-recording and inherit a synthetic root context so every id is still a proper W3C id.
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

  start(name: string, parent: Context, attributes: Attributes = {}): SpanScope {
    let span = this.tracer.startSpan(name, { attributes }, parent);
    let spanContext = span.spanContext();
    let context = trace.setSpan(parent, span);
    if (!isSpanContextValid(spanContext)) {
      // No tracer provider and no parent: make up a sampled-off root so ids stay valid.
      const ids = newTraceIds();
      const synthetic = trace.wrapSpanContext({ traceId: ids.traceId, spanId: ids.spanId, traceFlags: 0 });
      span = synthetic;
      spanContext = synthetic.spanContext();
      context = trace.setSpan(parent, synthetic);
    }
    return { span, context, ids: { traceId: spanContext.traceId, spanId: spanContext.spanId } };
  }

  /** The ids of the span in `context` (always valid for contexts made by {@link start}). */
  idsOf(context: Context): { traceId: string; spanId: string } {
    const sc = trace.getSpanContext(context);
    if (sc && isSpanContextValid(sc)) return { traceId: sc.traceId, spanId: sc.spanId };
    return newTraceIds();
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
  const wrapped = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('traceparent')) {
      for (const [name, value] of Object.entries(injectTraceHeaders({ context }))) headers.set(name, value);
    }
    return baseFetch(input, { ...init, headers });
  };
  return wrapped as typeof fetch;
}
