// The Level 2 propagator and its parts, case by case from the specification's text.
import {
  ROOT_CONTEXT,
  SpanKind,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  trace,
  type Context,
  type TraceState as OtelTraceState,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidTraceContextError,
  W3CTraceContextLevel2Propagator,
  W3CTraceState,
  contextFromSpanIds,
  contextFromTraceparent,
  headersFromRaw,
  injectTraceHeaders,
  parseTraceparent,
  parseTracestate,
  parseTracestateList,
  readTraceHeaders,
  caseInsensitiveGetter,
  startServerSpan,
  startSpan,
} from '../src/index.js';
import { createTestTracing, type TestTracing } from '../src/testing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const tp = (flags: string) => `00-${TRACE_ID}-${SPAN_ID}-${flags}`;
const propagator = new W3CTraceContextLevel2Propagator();

function inject(ctx: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier, defaultTextMapSetter);
  return carrier;
}

describe('parseTraceparent', () => {
  it("accepts the specification's examples", () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      ok: true,
      value: { version: '00', traceId: TRACE_ID, parentId: SPAN_ID, traceFlags: 1 },
    });
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')).toMatchObject({
      ok: true,
      value: { traceFlags: 0 },
    });
  });

  it('says why it rejects', () => {
    expect(parseTraceparent('')).toEqual({ ok: false, reason: 'empty' });
    expect(parseTraceparent(`ff-${TRACE_ID}-${SPAN_ID}-01`)).toEqual({ ok: false, reason: 'version_ff' });
    expect(parseTraceparent(`0-${TRACE_ID}-${SPAN_ID}-01`)).toEqual({ ok: false, reason: 'bad_version' });
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}`)).toEqual({ ok: false, reason: 'too_short' });
    expect(parseTraceparent(`00-${'0'.repeat(32)}-${SPAN_ID}-01`)).toEqual({ ok: false, reason: 'trace_id_zero' });
    expect(parseTraceparent(`00-${TRACE_ID}-${'0'.repeat(16)}-01`)).toEqual({ ok: false, reason: 'parent_id_zero' });
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01-extra`)).toEqual({ ok: false, reason: 'bad_format' });
  });

  it("reads a higher version's 00 fields and ignores the rest, known flags only", () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-ff-anything-here`)).toEqual({
      ok: true,
      value: { version: '01', traceId: TRACE_ID, parentId: SPAN_ID, traceFlags: 3 },
    });
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01x`)).toEqual({ ok: false, reason: 'bad_format' });
  });

  it('does not choke on huge or hostile values', () => {
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-01-${'x'.repeat(100_000)}`).ok).toBe(true);
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01\u200b`).ok).toBe(false);
    expect(parseTraceparent(`\u00a000-${TRACE_ID}-${SPAN_ID}-01`).ok).toBe(false);
  });
});

describe('tracestate', () => {
  it('parses into a valid list or rejects the whole header, saying why', () => {
    expect(parseTracestateList('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE')).toMatchObject({ ok: true });
    expect(parseTracestateList('a=1,b')).toMatchObject({ ok: false, reason: 'bad_member' });
    expect(parseTracestateList('a=1,B=2')).toMatchObject({ ok: false, reason: 'bad_key' });
    expect(parseTracestateList('a=1,b= ')).toMatchObject({ ok: false, reason: 'bad_value' });
    expect(parseTracestateList(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(','))).toMatchObject({
      ok: false,
      reason: 'too_many_members',
    });
    expect(parseTracestateList(' , ,\t')).toEqual({ ok: true, value: undefined });
  });

  it('keeps OTel-shaped state valid: set moves a key left, past 32 the right-most goes', () => {
    let state = new W3CTraceState([
      ['rojo', '1'],
      ['congo', '2'],
    ]);
    state = state.set('congo', '3');
    expect(state.serialize()).toBe('congo=3,rojo=1');
    expect(state.unset('rojo').serialize()).toBe('congo=3');
    let full = new W3CTraceState(Array.from({ length: 32 }, (_, i) => [`k${i}`, 'v'] as const));
    full = full.set('new', 'v');
    expect(full.size).toBe(32);
    expect(full.keys()[0]).toBe('new');
    expect(full.get('k31')).toBeUndefined();
    expect(() => state.set('Bad', 'v')).toThrow(InvalidTraceContextError);
    expect(() => state.set('ok', 'a,b')).toThrow(InvalidTraceContextError);
  });

  it('truncates whole members, the long ones first, then from the right', () => {
    const long = 'x'.repeat(200);
    const state = new W3CTraceState([
      ['a', '1'],
      ['big', long],
      ['b', '2'],
      ['c', '3'],
    ]);
    expect(state.truncate(11).serialize()).toBe('a=1,b=2,c=3');
    expect(state.truncate(7).serialize()).toBe('a=1,b=2');
    expect(state.truncate(0).serialize()).toBe('');
    expect(state.truncate(1000)).toBe(state);
  });

  it('parseTracestate (string in, string out) follows the same all-or-nothing rule', () => {
    expect(parseTracestate('a=1, b=2 ')).toBe('a=1,b=2');
    expect(parseTracestate('a=1,=2')).toBeUndefined();
  });
});

describe('readTraceHeaders', () => {
  it('reports what it did with each header', () => {
    expect(readTraceHeaders({}, caseInsensitiveGetter)).toEqual({ traceparent: 'absent', tracestate: 'absent' });
    expect(readTraceHeaders({ tracestate: 'a=1' }, caseInsensitiveGetter)).toEqual({ traceparent: 'absent', tracestate: 'ignored' });
    expect(readTraceHeaders({ traceparent: [tp('01'), tp('01')] }, caseInsensitiveGetter)).toEqual({
      traceparent: 'duplicated',
      tracestate: 'absent',
    });
    expect(readTraceHeaders({ traceparent: tp('01'), TraceParent: tp('01') }, caseInsensitiveGetter).traceparent).toBe('duplicated');
    expect(readTraceHeaders({ traceparent: tp('01'), tracestate: 'a=1,A=2' }, caseInsensitiveGetter)).toMatchObject({
      traceparent: 'valid',
      tracestate: 'bad_key',
      parent: { traceId: TRACE_ID },
    });
    expect(readTraceHeaders({ traceparent: tp('01'), tracestate: '' }, caseInsensitiveGetter)).toMatchObject({
      traceparent: 'valid',
      tracestate: 'empty',
    });
  });

  it("keeps repeated fields apart when given Node's rawHeaders", () => {
    const headers = headersFromRaw(['TraceParent', tp('01'), 'tracestate', 'a=1', 'TRACESTATE', 'b=2']);
    expect(readTraceHeaders(headers, caseInsensitiveGetter).parent?.tracestate?.serialize()).toBe('a=1,b=2');
    expect(headersFromRaw(['__proto__', 'x']).__proto__).toEqual(['x']);
  });
});

describe('W3CTraceContextLevel2Propagator on the OpenTelemetry API', () => {
  afterEach(() => propagation.disable());

  it('round-trips through propagation.extract / inject, random flag and tracestate included', () => {
    propagation.setGlobalPropagator(propagator);
    const ctx = propagation.extract(ROOT_CONTEXT, { traceparent: tp('02'), tracestate: 'congo=t61rcWkgMzE' }, defaultTextMapGetter);
    const out: Record<string, string> = {};
    propagation.inject(ctx, out, defaultTextMapSetter);
    expect(out).toEqual({ traceparent: tp('02'), tracestate: 'congo=t61rcWkgMzE' });
    expect(propagator.fields()).toEqual(['traceparent', 'tracestate']);
  });

  it('never sends a tracestate that breaks the grammar, even one another library built', () => {
    const foreign: OtelTraceState = { set: () => foreign, unset: () => foreign, get: () => undefined, serialize: () => 'ok=1,Bad Key=v' };
    const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState: foreign });
    expect(inject(ctx)).toEqual({ traceparent: tp('01') });
    // OpenTelemetry's own TraceState is re-read through the grammar too.
    const otel = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      traceState: new TraceState('ok=1'),
    });
    expect(inject(otel)).toEqual({ traceparent: tp('01'), tracestate: 'ok=1' });
  });

  it('shortens tracestate by the rules when a maximum is set', () => {
    const ctx = contextFromTraceparent({ traceparent: tp('01'), tracestate: `a=1,big=${'x'.repeat(200)},b=2` });
    const carrier: Record<string, string> = {};
    new W3CTraceContextLevel2Propagator({ maxTracestateLength: 20 }).inject(ctx, carrier, defaultTextMapSetter);
    expect(carrier.tracestate).toBe('a=1,b=2');
    expect(() => new W3CTraceContextLevel2Propagator({ maxTracestateLength: -1 })).toThrow(RangeError);
  });
});

describe('startSpan', () => {
  it("without an SDK: its own span id, the parent's trace id, flags and tracestate unchanged", () => {
    for (const flags of ['00', '01', '02', '03']) {
      const parent = contextFromTraceparent({ traceparent: tp(flags), tracestate: 'rojo=1' });
      const child = startSpan({ name: 'hop', parent });
      expect(child.ids.traceId).toBe(TRACE_ID);
      expect(child.ids.spanId).not.toBe(SPAN_ID);
      expect(child.traceparent).toBe(`00-${TRACE_ID}-${child.ids.spanId}-${flags}`);
      expect(injectTraceHeaders({ context: child.context })).toEqual({ traceparent: child.traceparent, tracestate: 'rojo=1' });
      const grandchild = startSpan({ name: 'hop2', parent: child.context });
      expect(grandchild.ids.spanId).not.toBe(child.ids.spanId);
      expect(grandchild.traceparent.endsWith(`-${flags}`)).toBe(true);
    }
  });

  it('without an SDK and without a parent: a new random, unsampled trace', () => {
    const root = startSpan({ name: 'root', parent: ROOT_CONTEXT });
    expect(root.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-02$/);
  });

  describe('with the SDK', () => {
    let tracing: TestTracing;
    afterEach(async () => tracing?.shutdown());

    it('keeps the random flag the SDK drops, and the sampled decision it makes', async () => {
      tracing = createTestTracing();
      const child = startSpan({
        name: 'hop',
        parent: contextFromTraceparent({ traceparent: tp('03') }),
        tracer: tracing.tracer,
        kind: SpanKind.CLIENT,
      });
      expect(child.span.spanContext().traceFlags).toBe(1); // what the SDK itself keeps
      expect(child.traceparent).toBe(`00-${TRACE_ID}-${child.ids.spanId}-03`);
      const unsampled = startSpan({ name: 'hop', parent: contextFromTraceparent({ traceparent: tp('02') }), tracer: tracing.tracer });
      expect(unsampled.traceparent.endsWith('-02')).toBe(true);
      child.span.end();
      unsampled.span.end();
      const spans = await tracing.spans();
      expect(spans.map((s) => s.name)).toEqual(['hop']); // the unsampled one is not recorded
      expect(spans[0]!.parentSpanContext?.spanId).toBe(SPAN_ID);
    });
  });
});

describe('startServerSpan', () => {
  it('continues a valid parent, drops a bad tracestate, and answers a traceresponse', () => {
    const scope = startServerSpan({ headers: ['traceparent', tp('01'), 'tracestate', 'ok=1,BAD=2'], name: 'POST /x' });
    expect(scope.incoming).toMatchObject({ traceparent: 'valid', tracestate: 'bad_key' });
    expect(scope.ids.traceId).toBe(TRACE_ID);
    expect(scope.tracestate).toBeUndefined();
    expect(scope.traceresponse).toBe(scope.traceparent);
    scope.end();
  });

  it('starts a new trace for a repeated or invalid traceparent', () => {
    for (const headers of [
      ['traceparent', tp('01'), 'traceparent', tp('01')],
      ['traceparent', tp('01').toUpperCase()],
      { traceparent: `ff${tp('01').slice(2)}` },
    ]) {
      const scope = startServerSpan({ headers, name: 'POST /x' });
      expect(scope.ids.traceId).not.toBe(TRACE_ID);
      scope.end({ code: 'x', message: 'y' });
    }
  });
});

describe('contextFromSpanIds', () => {
  it('keeps the flags and tracestate a subprocess received', () => {
    const ctx = contextFromSpanIds({ traceId: TRACE_ID, parentSpanId: SPAN_ID, traceFlags: 0, tracestate: 'rojo=1' });
    expect(inject(ctx)).toEqual({ traceparent: tp('00'), tracestate: 'rojo=1' });
    expect(() => contextFromSpanIds({ traceId: TRACE_ID, parentSpanId: SPAN_ID, traceFlags: 256 })).toThrow(InvalidTraceContextError);
  });
});
