import { randomBytes } from 'node:crypto';
import {
  ROOT_CONTEXT,
  TraceFlags,
  context as otelContext,
  isSpanContextValid,
  trace,
  type Context,
  type TextMapGetter,
} from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InvalidTraceContextError } from './errors.js';

/** Header values as Node's `IncomingHttpHeaders` or a plain record carries them. */
export type HeaderRecord = Record<string, string | string[] | undefined>;

/** A valid W3C trace context taken from `traceparent` / `tracestate`. */
export interface ExtractedTraceContext {
  /** 32 lower-case hex characters, never all zero. */
  traceId: string;
  /** The caller's span id (16 lower-case hex): the parent of the spans we start. */
  spanId: string;
  /** W3C trace flags; bit 0 is "sampled". */
  traceFlags: number;
  /** The canonical `traceparent` for this context. */
  traceparent: string;
  /** The serialized `tracestate`, when one came and had valid entries. */
  tracestate?: string;
}

const propagator = new W3CTraceContextPropagator();

/** Header names are case-insensitive (RFC 9110), so look them up that way. */
const caseInsensitiveGetter: TextMapGetter<HeaderRecord> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const direct = carrier[key];
    if (direct !== undefined) return direct;
    const wanted = key.toLowerCase();
    for (const name of Object.keys(carrier)) {
      if (name.toLowerCase() === wanted) return carrier[name];
    }
    return undefined;
  },
};

const recordSetter = {
  set(carrier: Record<string, string>, key: string, value: string) {
    carrier[key] = value;
  },
};

function formatTraceparent(traceId: string, spanId: string, traceFlags: number): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Reads `traceparent` / `tracestate` with OpenTelemetry's W3C propagator. Returns `undefined`
 * when there is no header or it is invalid (bad format, upper-case hex, all-zero ids): per
 * W3C Trace Context the receiver then starts a new trace.
 */
export function extractTraceContext(headers: HeaderRecord): ExtractedTraceContext | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const extracted = propagator.extract(ROOT_CONTEXT, headers, caseInsensitiveGetter);
  const spanContext = trace.getSpanContext(extracted);
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  const tracestate = spanContext.traceState?.serialize();
  return {
    traceId: spanContext.traceId,
    spanId: spanContext.spanId,
    traceFlags: spanContext.traceFlags,
    traceparent: formatTraceparent(spanContext.traceId, spanContext.spanId, spanContext.traceFlags),
    ...(tracestate ? { tracestate } : {}),
  };
}

/** Options for {@link injectTraceHeaders}. */
export interface InjectTraceHeadersOptions {
  /** Context whose span to propagate; defaults to the active context. */
  context?: Context;
  /** Headers to add to (copied, never mutated). */
  headers?: Record<string, string>;
}

/**
 * Returns `headers` plus `traceparent` (and `tracestate` when set) for the active span, or the
 * span of `options.context`. With no valid span the headers come back unchanged.
 */
export function injectTraceHeaders(options: InjectTraceHeadersOptions = {}): Record<string, string> {
  const carrier: Record<string, string> = { ...(options.headers ?? {}) };
  propagator.inject(options.context ?? otelContext.active(), carrier, recordSetter);
  return carrier;
}

/** Options for {@link contextFromTraceparent}. */
export interface ContextFromTraceparentOptions {
  traceparent: string;
  tracestate?: string;
  /** Context to add the remote parent to; defaults to the root context. */
  base?: Context;
}

/**
 * A context whose (remote) parent is the given `traceparent`: start spans under it to join the
 * caller's trace. Throws {@link InvalidTraceContextError} for an invalid `traceparent`.
 */
export function contextFromTraceparent(options: ContextFromTraceparentOptions): Context {
  const headers: HeaderRecord = { traceparent: options.traceparent, tracestate: options.tracestate };
  const extracted = propagator.extract(options.base ?? ROOT_CONTEXT, headers, caseInsensitiveGetter);
  const spanContext = trace.getSpanContext(extracted);
  if (!spanContext || !isSpanContextValid(spanContext)) {
    throw new InvalidTraceContextError(
      'traceparent is not a valid W3C trace context (expected 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower-case, ids not all zero)',
    );
  }
  return extracted;
}

/** Options for {@link contextFromSpanIds}. */
export interface ContextFromSpanIdsOptions {
  /** 32 lower-case hex characters. */
  traceId: string;
  /** The parent span id, 16 lower-case hex characters. */
  parentSpanId: string;
  /** Defaults to sampled. */
  traceFlags?: number;
  tracestate?: string;
  base?: Context;
}

/**
 * A remote parent context from bare ids, as a subprocess agent receives them on stdin
 * (`trace.trace_id`, `trace.parent_span_id`). Validates through the same W3C propagator.
 */
export function contextFromSpanIds(options: ContextFromSpanIdsOptions): Context {
  return contextFromTraceparent({
    traceparent: formatTraceparent(options.traceId, options.parentSpanId, options.traceFlags ?? TraceFlags.SAMPLED),
    tracestate: options.tracestate,
    base: options.base,
  });
}

/** Fresh random ids for a new trace (when no valid `traceparent` arrived). */
export function newTraceIds(): { traceId: string; spanId: string } {
  return { traceId: randomNonZeroHex(16), spanId: randomNonZeroHex(8) };
}

function randomNonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** Parses a `tracestate` string the way the propagator does (invalid members dropped). */
export function parseTracestate(tracestate: string): string | undefined {
  const serialized = new TraceState(tracestate).serialize();
  return serialized === '' ? undefined : serialized;
}

export { formatTraceparent };
