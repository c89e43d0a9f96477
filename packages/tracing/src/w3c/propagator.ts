// A TextMapPropagator that implements W3C Trace Context Level 2 exactly: the random-trace-id flag
// survives every hop, `tracestate` follows the current grammar with whole-header discard, and a
// repeated `traceparent` is invalid. It plugs into the OpenTelemetry API like the built-in one.
import {
  createContextKey,
  isSpanContextValid,
  trace,
  type Context,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import {
  KNOWN_TRACE_FLAGS,
  TRACE_FLAG_RANDOM,
  TRACE_FLAG_SAMPLED,
  formatTraceparent,
  parseTraceparent,
  type ParsedTraceparent,
  type TraceparentRejection,
} from './traceparent.js';
import { parseTracestateList, toW3CTraceState, type TracestateRejection, type W3CTraceState } from './tracestate.js';

export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';
/** Level 2 response header naming the server's own span. */
export const TRACERESPONSE_HEADER = 'traceresponse';

/**
 * OpenTelemetry's SDK keeps only the sampled bit when it starts a child span, so the random flag
 * is carried beside the span: the trace id whose ids are known to be random.
 */
const RANDOM_TRACE_ID = createContextKey('baton.w3c.random_trace_id');

/** Marks `traceId` as random in `ctx` (its spans then propagate the random-trace-id flag). */
export function markRandomTraceId(ctx: Context, traceId: string): Context {
  return ctx.setValue(RANDOM_TRACE_ID, traceId);
}

/** The flags to send for `spanContext` in `ctx`: sampled as the span says, random if known. */
export function effectiveTraceFlags(ctx: Context, spanContext: SpanContext): number {
  const random = (spanContext.traceFlags & TRACE_FLAG_RANDOM) !== 0 || ctx.getValue(RANDOM_TRACE_ID) === spanContext.traceId;
  return (spanContext.traceFlags & TRACE_FLAG_SAMPLED) | (random ? TRACE_FLAG_RANDOM : 0);
}

/** What the request's trace headers held, and what was made of them. */
export interface IncomingTraceHeaders {
  /** The caller's context when `traceparent` was valid. */
  parent?: ParsedTraceparent & { tracestate?: W3CTraceState };
  /** `valid`, `absent`, or why it was ignored (the receiver then starts a new trace). */
  traceparent: 'valid' | 'absent' | TraceparentRejection;
  /**
   * `valid`, `absent`, `empty` (only empty members), `ignored` (no valid `traceparent`, so never
   * parsed), or why the whole header was discarded (the `traceparent` is still used).
   */
  tracestate: 'valid' | 'absent' | 'empty' | 'ignored' | TracestateRejection;
}

/** Header values as a getter returns them: one string, every field of a repeated header, or none. */
function values(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : typeof raw === 'string' ? [raw] : [];
}

/**
 * Reads `traceparent` and `tracestate` through `getter`. A getter that returns an array reports a
 * repeated field: a repeated `traceparent` is invalid (RFC 9110 would combine it into a value
 * that breaks the grammar), repeated `tracestate` fields are combined with `,` in order.
 */
export function readTraceHeaders<C>(carrier: C, getter: TextMapGetter<C>): IncomingTraceHeaders {
  const parents = values(getter.get(carrier, TRACEPARENT_HEADER));
  const states = values(getter.get(carrier, TRACESTATE_HEADER));
  const stateAbsent = states.length === 0;
  if (parents.length === 0) return { traceparent: 'absent', tracestate: stateAbsent ? 'absent' : 'ignored' };
  if (parents.length > 1) return { traceparent: 'duplicated', tracestate: stateAbsent ? 'absent' : 'ignored' };
  const parsed = parseTraceparent(parents[0]!);
  if (!parsed.ok) return { traceparent: parsed.reason, tracestate: stateAbsent ? 'absent' : 'ignored' };
  if (stateAbsent) return { parent: parsed.value, traceparent: 'valid', tracestate: 'absent' };
  const state = parseTracestateList(states.join(','));
  if (!state.ok) return { parent: parsed.value, traceparent: 'valid', tracestate: state.reason };
  if (state.value === undefined) return { parent: parsed.value, traceparent: 'valid', tracestate: 'empty' };
  return { parent: { ...parsed.value, tracestate: state.value }, traceparent: 'valid', tracestate: 'valid' };
}

/** Options for {@link W3CTraceContextLevel2Propagator}. */
export interface W3CTraceContextLevel2PropagatorOptions {
  /**
   * Longest `tracestate` to send; longer lists are shortened the way the specification says
   * (whole members, those over 128 characters first, then from the right). Default: no limit
   * (a valid list is at most 32 members anyway).
   */
  maxTracestateLength?: number;
}

/**
 * W3C Trace Context Level 2 as an OpenTelemetry `TextMapPropagator`. Register it with
 * `propagation.setGlobalPropagator(new W3CTraceContextLevel2Propagator())`.
 */
export class W3CTraceContextLevel2Propagator implements TextMapPropagator {
  private readonly maxTracestateLength: number | undefined;

  constructor(options: W3CTraceContextLevel2PropagatorOptions = {}) {
    const max = options.maxTracestateLength;
    if (max !== undefined && (!Number.isInteger(max) || max < 0))
      throw new RangeError('maxTracestateLength must be a non-negative integer');
    this.maxTracestateLength = max;
  }

  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    const spanContext = trace.getSpanContext(ctx);
    if (!spanContext || !isSpanContextValid(spanContext)) return;
    setter.set(
      carrier,
      TRACEPARENT_HEADER,
      formatTraceparent(spanContext.traceId, spanContext.spanId, effectiveTraceFlags(ctx, spanContext)),
    );
    let state = toW3CTraceState(spanContext.traceState);
    if (state && this.maxTracestateLength !== undefined) state = state.truncate(this.maxTracestateLength);
    if (state && state.size > 0) setter.set(carrier, TRACESTATE_HEADER, state.serialize());
  }

  extract(ctx: Context, carrier: unknown, getter: TextMapGetter): Context {
    const { parent } = readTraceHeaders(carrier, getter);
    return parent ? contextWithRemoteParent(ctx, parent) : ctx;
  }

  fields(): string[] {
    return [TRACEPARENT_HEADER, TRACESTATE_HEADER];
  }
}

/** `ctx` with the remote parent (and the random-trace-id marker when its flag is set). */
export function contextWithRemoteParent(ctx: Context, parent: IncomingTraceHeaders['parent'] & object): Context {
  const spanContext: SpanContext = {
    traceId: parent.traceId,
    spanId: parent.parentId,
    traceFlags: parent.traceFlags & KNOWN_TRACE_FLAGS,
    isRemote: true,
    ...(parent.tracestate ? { traceState: parent.tracestate } : {}),
  };
  const withParent = trace.setSpanContext(ctx, spanContext);
  return parent.traceFlags & TRACE_FLAG_RANDOM ? markRandomTraceId(withParent, parent.traceId) : withParent.deleteValue(RANDOM_TRACE_ID);
}
