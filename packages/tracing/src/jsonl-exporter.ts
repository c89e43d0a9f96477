import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExportResultCode, hrTimeToMilliseconds, hrTimeToTimeStamp, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** One line of a JSONL span file. */
export interface JsonlSpanRecord {
  name: string;
  kind: string;
  service_name: string | null;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  start_time: string;
  end_time: string;
  duration_ms: number;
  attributes: Record<string, unknown>;
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message?: string };
  events: { name: string; time: string; attributes: Record<string, unknown> }[];
}

/** Converts a finished span into the JSONL record shape. */
export function spanToJsonlRecord(span: ReadableSpan): JsonlSpanRecord {
  const context = span.spanContext();
  const serviceName = span.resource?.attributes['service.name'];
  return {
    name: span.name,
    kind: SpanKind[span.kind] ?? String(span.kind),
    service_name: typeof serviceName === 'string' ? serviceName : null,
    trace_id: context.traceId,
    span_id: context.spanId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    start_time: hrTimeToTimeStamp(span.startTime),
    end_time: hrTimeToTimeStamp(span.endTime),
    duration_ms: hrTimeToMilliseconds(span.duration),
    attributes: { ...span.attributes },
    status: {
      code: span.status.code === SpanStatusCode.OK ? 'OK' : span.status.code === SpanStatusCode.ERROR ? 'ERROR' : 'UNSET',
      ...(span.status.message ? { message: span.status.message } : {}),
    },
    events: span.events.map((event) => ({
      name: event.name,
      time: hrTimeToTimeStamp(event.time),
      attributes: { ...(event.attributes ?? {}) },
    })),
  };
}

/**
 * A span exporter that appends one JSON object per finished span to a file: a trace anyone can
 * read with `jq`, no collector needed (the demo uses it). Writes are serialized in order.
 */
export class JsonlFileSpanExporter implements SpanExporter {
  readonly file: string;
  private pending: Promise<void> = Promise.resolve();
  private stopped = false;
  private dirReady: Promise<unknown> | undefined;

  constructor(options: { file: string }) {
    this.file = options.file;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('JsonlFileSpanExporter is shut down') });
      return;
    }
    const text = spans.map((span) => `${JSON.stringify(spanToJsonlRecord(span))}\n`).join('');
    // Spans carry ids, agent names and error text: readable by the owner only (0700 / 0600).
    this.dirReady ??= mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const write = this.pending.then(() => this.dirReady).then(() => appendFile(this.file, text, { encoding: 'utf8', mode: 0o600 }));
    this.pending = write.then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (error: unknown) =>
        resultCallback({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
  }

  forceFlush(): Promise<void> {
    return this.pending;
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.pending;
  }
}
