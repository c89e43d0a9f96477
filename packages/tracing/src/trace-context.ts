import { ROOT_CONTEXT, TraceFlags, context as otelContext, type Context } from '@opentelemetry/api';
import { InvalidTraceContextError } from './errors.js';
import { randomId } from './spans.js';
import { caseInsensitiveGetter, type HeaderRecord } from './w3c/headers.js';
import { W3CTraceContextLevel2Propagator, contextWithRemoteParent, readTraceHeaders } from './w3c/propagator.js';
import { formatTraceparent, parseTraceparent } from './w3c/traceparent.js';
import { parseTracestateList } from './w3c/tracestate.js';

export type { HeaderRecord };

/** A valid W3C trace context taken from `traceparent` / `tracestate`. */
export interface ExtractedTraceContext {
  /** 32 lower-case hex characters, never all zero. */
  traceId: string;
  /** The caller's span id (16 lower-case hex): the parent of the spans we start. */
  spanId: string;
  /** W3C trace flags as received, known bits only: bit 0 sampled, bit 1 random trace id. */
  traceFlags: number;
  /** The canonical version-00 `traceparent` for this context. */
  traceparent: string;
  /** The serialized `tracestate`, when one came and was valid. */
  tracestate?: string;
}

const propagator = new W3CTraceContextLevel2Propagator();

const recordSetter = {
  set(carrier: Record<string, string>, key: string, value: string) {
    carrier[key] = value;
  },
};

/**
 * Reads `traceparent` / `tracestate` by W3C Trace Context Level 2. Returns `undefined` when there
 * is no `traceparent` or it is invalid (bad format, upper-case hex, all-zero ids, version `ff`,
 * extra fields on version 00, repeated): the receiver then starts a new trace. An invalid
 * `tracestate` is dropped whole and the `traceparent` kept.
 */
export function extractTraceContext(headers: HeaderRecord): ExtractedTraceContext | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const { parent } = readTraceHeaders(headers, caseInsensitiveGetter);
  if (!parent) return undefined;
  const tracestate = parent.tracestate?.serialize();
  return {
    traceId: parent.traceId,
    spanId: parent.parentId,
    traceFlags: parent.traceFlags,
    traceparent: formatTraceparent(parent.traceId, parent.parentId, parent.traceFlags),
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
  /** The parent as a `traceparent` value (newer versions are read by the forward-compatibility rules). */
  traceparent: string;
  /** Its `tracestate`; dropped whole when invalid, as the specification says. */
  tracestate?: string;
  /** Context to add the remote parent to; defaults to the root context. */
  base?: Context;
}

/**
 * A context whose (remote) parent is the given `traceparent`: start spans under it to join the
 * caller's trace. Throws {@link InvalidTraceContextError} for an invalid `traceparent` (a value a
 * program passed on purpose; a server receiving headers ignores them instead, see `startServerSpan`).
 */
export function contextFromTraceparent(options: ContextFromTraceparentOptions): Context {
  const parsed =
    typeof options.traceparent === 'string' ? parseTraceparent(options.traceparent) : ({ ok: false, reason: 'bad_format' } as const);
  if (!parsed.ok) {
    throw new InvalidTraceContextError(
      `traceparent is not a valid W3C trace context (${parsed.reason}; expected 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower-case, ids not all zero)`,
    );
  }
  const state = typeof options.tracestate === 'string' ? parseTracestateList(options.tracestate) : undefined;
  const tracestate = state?.ok ? state.value : undefined;
  return contextWithRemoteParent(options.base ?? ROOT_CONTEXT, { ...parsed.value, ...(tracestate ? { tracestate } : {}) });
}

/** Options for {@link contextFromSpanIds}. */
export interface ContextFromSpanIdsOptions {
  /** 32 lower-case hex characters. */
  traceId: string;
  /** The parent span id, 16 lower-case hex characters. */
  parentSpanId: string;
  /** W3C flags as received; default sampled. */
  traceFlags?: number;
  tracestate?: string;
  base?: Context;
}

/**
 * A remote parent context from bare ids, as a subprocess agent receives them on stdin
 * (`trace.trace_id`, `trace.parent_span_id`, `trace.trace_flags`, `trace.tracestate`).
 */
export function contextFromSpanIds(options: ContextFromSpanIdsOptions): Context {
  const flags = options.traceFlags ?? TraceFlags.SAMPLED;
  if (!Number.isInteger(flags) || flags < 0 || flags > 0xff)
    throw new InvalidTraceContextError(`traceFlags must be an integer from 0 to 255; got ${String(flags)}`);
  return contextFromTraceparent({
    traceparent: formatTraceparent(String(options.traceId), String(options.parentSpanId), flags),
    ...(options.tracestate !== undefined ? { tracestate: options.tracestate } : {}),
    ...(options.base ? { base: options.base } : {}),
  });
}

/** Fresh random ids for a new trace (when no valid `traceparent` arrived). */
export function newTraceIds(): { traceId: string; spanId: string } {
  return { traceId: randomId(16), spanId: randomId(8) };
}

/**
 * Parses a `tracestate` by the current grammar. Returns the canonical list, or `undefined` when
 * it is empty or invalid: one bad member or more than 32 members discard the whole header.
 */
export function parseTracestate(tracestate: string): string | undefined {
  const parsed = parseTracestateList(String(tracestate));
  return parsed.ok ? parsed.value?.serialize() : undefined;
}

export { formatTraceparent };
