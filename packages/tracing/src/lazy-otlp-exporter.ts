import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * The OTLP/HTTP exporter, loaded on first use: the exporter package takes long to import and
 * most processes (subprocess agents, tests) never export over OTLP.
 */
export class LazyOtlpTraceExporter implements SpanExporter {
  private loading: Promise<SpanExporter> | undefined;

  constructor(private readonly url: string) {}

  private load(): Promise<SpanExporter> {
    this.loading ??= import('@opentelemetry/exporter-trace-otlp-http').then(
      ({ OTLPTraceExporter }) => new OTLPTraceExporter({ url: this.url }),
    );
    return this.loading;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.load().then(
      (exporter) => exporter.export(spans, resultCallback),
      (error: unknown) =>
        resultCallback({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
  }

  async forceFlush(): Promise<void> {
    if (this.loading) await (await this.loading).forceFlush?.();
  }

  async shutdown(): Promise<void> {
    if (this.loading) await (await this.loading).shutdown();
  }
}
