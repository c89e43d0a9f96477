// Spans that always have their own ids. With no OpenTelemetry SDK registered, the API's no-op
// tracer hands back the *parent's* span context, so every outbound hop would carry the caller's
// span id; here such a span is replaced by a non-recording one with a fresh span id.
import { randomBytes } from 'node:crypto';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import {
  effectiveTraceFlags,
  markRandomTraceId,
  readTraceHeaders,
  contextWithRemoteParent,
  type IncomingTraceHeaders,
} from './w3c/propagator.js';
import { caseInsensitiveGetter, toHeaderRecord, type IncomingHeaders } from './w3c/headers.js';
import { TRACE_FLAG_RANDOM, formatTraceparent } from './w3c/traceparent.js';
import { toW3CTraceState } from './w3c/tracestate.js';

/** The tracer spans start with when none is given. */
export const DEFAULT_TRACER_NAME = '@baton/tracing';

/** Random lower-case hex of `bytes` bytes, never all zero (an all-zero id is invalid). */
export function randomId(bytes: 8 | 16): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** Options for {@link startSpan}. */
export interface StartSpanOptions {
  /** Span name. */
  name: string;
  /** Parent context (the caller's span, or a remote parent); a new trace starts without a valid span in it. */
  parent: Context;
  /** Tracer; default the global `@baton/tracing` tracer (the no-op one without an SDK). */
  tracer?: Tracer;
  /** Span kind; default internal. */
  kind?: SpanKind;
  attributes?: Attributes;
}

/** A started span, the context to start its children in, and the W3C view of it. */
export interface SpanScope {
  span: Span;
  /** `parent` with this span set (and the random-trace-id marker carried on). */
  context: Context;
  /** Always valid, never the parent's span id. */
  ids: { traceId: string; spanId: string };
  /** Flags this span propagates: sampled as decided, random when the trace id is known random. */
  traceFlags: number;
  /** `traceparent` naming this span (version 00). */
  traceparent: string;
  /** The `tracestate` this span carries on, when there is one. */
  tracestate?: string;
}

/**
 * Starts a span under `parent` that has its own span id even when no OpenTelemetry SDK is
 * registered. It keeps the parent's trace id, `tracestate` and flags exactly (an unsampled parent
 * stays unsampled, the random flag stays set); a new trace gets random ids and the random flag.
 */
export function startSpan(options: StartSpanOptions): SpanScope {
  const tracer = options.tracer ?? trace.getTracer(DEFAULT_TRACER_NAME);
  const parent = options.parent;
  const parentSpan = trace.getSpanContext(parent);
  const hasParent = parentSpan !== undefined && isSpanContextValid(parentSpan);
  let span = tracer.startSpan(
    options.name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
  );
  let spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext) || (hasParent && spanContext.spanId === parentSpan.spanId)) {
    span = trace.wrapSpanContext(
      hasParent
        ? {
            traceId: parentSpan.traceId,
            spanId: randomId(8),
            traceFlags: effectiveTraceFlags(parent, parentSpan),
            isRemote: false,
            ...(parentSpan.traceState ? { traceState: parentSpan.traceState } : {}),
          }
        : // Not recorded (no SDK), so not sampled; the ids are random.
          { traceId: randomId(16), spanId: randomId(8), traceFlags: TRACE_FLAG_RANDOM, isRemote: false },
    );
    spanContext = span.spanContext();
  }
  let context = trace.setSpan(parent, span);
  // A trace this span started has ids from a random generator (the SDK's or ours).
  if (!hasParent) context = markRandomTraceId(context, spanContext.traceId);
  return scopeOf(span, context, spanContext);
}

function scopeOf(span: Span, context: Context, spanContext: SpanContext): SpanScope {
  const traceFlags = effectiveTraceFlags(context, spanContext);
  const state = toW3CTraceState(spanContext.traceState)?.serialize();
  return {
    span,
    context,
    ids: { traceId: spanContext.traceId, spanId: spanContext.spanId },
    traceFlags,
    traceparent: formatTraceparent(spanContext.traceId, spanContext.spanId, traceFlags),
    ...(state ? { tracestate: state } : {}),
  };
}

/** Options for {@link startServerSpan}. */
export interface StartServerSpanOptions {
  /** The request's headers: Node's `rawHeaders` (preferred: repeated fields stay apart) or a header record. */
  headers: IncomingHeaders;
  /** Span name, e.g. `POST /v1/runs`. */
  name: string;
  tracer?: Tracer;
  /** Context to build on; default the root context (a server request has no local parent). */
  base?: Context;
  attributes?: Attributes;
}

/** A server span for one request, and what to answer with. */
export interface ServerSpanScope extends SpanScope {
  /** What the headers held (for logs and tests). */
  incoming: IncomingTraceHeaders;
  /** `traceresponse` value (Level 2): this server's trace id, span id and flags. */
  traceresponse: string;
  /** Ends the span; an `error` marks it failed. */
  end(error?: { code: string; message: string }): void;
}

/**
 * Starts the SERVER span of an incoming request the way W3C Trace Context says to receive one:
 * a valid `traceparent` becomes the parent (with its `tracestate` when that is valid, dropped
 * when not); an absent, invalid or repeated one is ignored and a new trace starts. Never throws
 * for header content.
 */
export function startServerSpan(options: StartServerSpanOptions): ServerSpanScope {
  const base = options.base ?? ROOT_CONTEXT;
  const incoming = readTraceHeaders(toHeaderRecord(options.headers), caseInsensitiveGetter);
  const parent = incoming.parent ? contextWithRemoteParent(base, incoming.parent) : base;
  const scope = startSpan({
    name: options.name,
    parent,
    kind: SpanKind.SERVER,
    ...(options.tracer ? { tracer: options.tracer } : {}),
    attributes: {
      ...options.attributes,
      'baton.trace_context.traceparent': incoming.traceparent,
      'baton.trace_context.tracestate': incoming.tracestate,
    },
  });
  return {
    ...scope,
    incoming,
    traceresponse: scope.traceparent,
    end(error) {
      if (error) {
        scope.span.setAttribute('error.type', error.code);
        scope.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      }
      scope.span.end();
    },
  };
}
