import { afterAll, describe, expect, it } from 'vitest';
import { TracingConfigError, createLogger } from '../src/index.js';
import { createTestTracing } from '../src/testing.js';

const fixedClock = () => new Date('2026-01-02T03:04:05.000Z');

function capture() {
  const lines: string[] = [];
  return { lines, write: (line: string) => lines.push(line), parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  const tracing = createTestTracing();
  afterAll(() => tracing.shutdown());

  it('writes one JSON object per line with the fixed keys first', () => {
    const sink = capture();
    const logger = createLogger({ name: 'svc', write: sink.write, clock: fixedClock });
    logger.info('hello', { n: 1 });
    expect(sink.lines).toHaveLength(1);
    expect(Object.keys(sink.parsed()[0]!)).toEqual(['time', 'level', 'name', 'msg', 'trace_id', 'span_id', 'n']);
    expect(sink.parsed()[0]).toEqual({
      time: '2026-01-02T03:04:05.000Z',
      level: 'info',
      name: 'svc',
      msg: 'hello',
      trace_id: null,
      span_id: null,
      n: 1,
    });
  });

  it('carries the ids of the active span', () => {
    const sink = capture();
    const logger = createLogger({ name: 'svc', write: sink.write });
    const ids = tracing.tracer.startActiveSpan('op', (span) => {
      logger.warn('inside');
      span.end();
      return span.spanContext();
    });
    logger.warn('outside');
    const [inside, outside] = sink.parsed();
    expect(inside).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId, level: 'warn' });
    expect(outside).toMatchObject({ trace_id: null, span_id: null });
  });

  it('uses an explicit trace binding when no span is active, and the span when one is', () => {
    const sink = capture();
    const logger = createLogger({
      name: 'svc',
      write: sink.write,
      bindings: { trace: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) }, agent: 'x' },
    });
    logger.info('bound');
    const ids = tracing.tracer.startActiveSpan('op', (span) => {
      logger.info('span wins');
      span.end();
      return span.spanContext();
    });
    const [bound, inSpan] = sink.parsed();
    expect(bound).toMatchObject({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), agent: 'x' });
    expect(bound).not.toHaveProperty('trace');
    expect(inSpan).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
  });

  it('filters by level and merges child bindings', () => {
    const sink = capture();
    const logger = createLogger({ name: 'svc', level: 'warn', write: sink.write, bindings: { a: 1 } });
    logger.debug('no');
    logger.info('no');
    logger.child({ b: 2 }).error('yes', { c: 3 });
    expect(sink.parsed()).toEqual([expect.objectContaining({ msg: 'yes', level: 'error', a: 1, b: 2, c: 3 })]);
  });

  it('never throws: circular fields, bigints, errors, a throwing sink', () => {
    const sink = capture();
    const logger = createLogger({ name: 'svc', write: sink.write });
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const error = Object.assign(new Error('boom'), { code: 'E_X' });
    logger.info('tricky', { circular, big: 10n, error, fn: () => 1 });
    const [line] = sink.parsed();
    expect(line).toMatchObject({
      circular: { name: 'loop', self: '[Circular]' },
      big: '10',
      error: { name: 'Error', message: 'boom', code: 'E_X' },
    });
    expect(line).not.toHaveProperty('fn');
    expect(JSON.stringify(line)).not.toContain('at ');

    const broken = createLogger({
      name: 'svc',
      write: () => {
        throw new Error('disk full');
      },
    });
    expect(() => broken.error('still fine')).not.toThrow();
  });

  it('does not let fields overwrite the correlation keys', () => {
    const sink = capture();
    createLogger({ name: 'svc', write: sink.write }).info('m', { trace_id: 'forged', level: 'debug' });
    expect(sink.parsed()[0]).toMatchObject({ level: 'info', trace_id: null, field_trace_id: 'forged', field_level: 'debug' });
  });

  it('rejects bad options with a typed error', () => {
    expect(() => createLogger({ name: '' })).toThrow(TracingConfigError);
    expect(() => createLogger({ name: 'x', level: 'loud' as never })).toThrow(/level must be one of/);
  });
});
