import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  TracingConfigError,
  contextFromTraceparent,
  extractTraceContext,
  setupTracing,
  tracedFetch,
  type JsonlSpanRecord,
  type TracingHandle,
} from '../src/index.js';

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function startServer(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe('setupTracing', () => {
  let dir: string;
  let handle: TracingHandle | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-tracing-'));
  });
  afterEach(async () => {
    await handle?.shutdown();
    handle = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one parseable JSON object per span with parent links, under a remote parent', async () => {
    const file = join(dir, 'spans', 'trace.jsonl');
    handle = setupTracing({ serviceName: 'baton-test', jsonlFile: file, env: {} });
    const remote = contextFromTraceparent({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    await context.with(remote, () =>
      handle!.tracer.startActiveSpan('run', async (run) => {
        await handle!.tracer.startActiveSpan('tool', { attributes: { 'gen_ai.tool.name': 'lookup' } }, async (tool) => {
          tool.addEvent('called', { n: 1 });
          tool.end();
        });
        run.end();
      }),
    );
    await handle.forceFlush();
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    const records = lines.map((line) => JSON.parse(line) as JsonlSpanRecord);
    const run = records.find((r) => r.name === 'run')!;
    const tool = records.find((r) => r.name === 'tool')!;
    expect(run.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(run.parent_span_id).toBe('b7ad6b7169203331');
    expect(tool.parent_span_id).toBe(run.span_id);
    expect(tool).toMatchObject({
      service_name: 'baton-test',
      kind: 'INTERNAL',
      attributes: { 'gen_ai.tool.name': 'lookup' },
      status: { code: 'UNSET' },
      events: [{ name: 'called', attributes: { n: 1 } }],
    });
    expect(Date.parse(tool.start_time)).not.toBeNaN();
    expect(tool.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('exports over OTLP/HTTP to the endpoint from OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const collector = await startServer();
    try {
      handle = setupTracing({ serviceName: 'baton-otlp', env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/` } });
      handle.tracer.startSpan('exported-span').end();
      await handle.forceFlush();
      expect(collector.received).toHaveLength(1);
      expect(collector.received[0]!.url).toBe('/v1/traces');
      expect(collector.received[0]!.body).toContain('exported-span');
    } finally {
      await handle?.shutdown();
      handle = undefined;
      collector.server.close();
    }
  });

  it('rejects bad configuration with a typed error', () => {
    expect(() => setupTracing({ serviceName: '' })).toThrow(TracingConfigError);
    expect(() => setupTracing({ serviceName: 'x', otlpEndpoint: 'not a url', registerGlobal: false })).toThrow(
      /otlpEndpoint is not a valid URL/,
    );
    expect(() => setupTracing({ serviceName: 'x', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' }, registerGlobal: false })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
  });

  it('unregisters globals on shutdown so tracing can be set up again', async () => {
    const first = setupTracing({ serviceName: 'one', env: {} });
    await first.shutdown();
    handle = setupTracing({ serviceName: 'two', env: {} });
    const active = handle.tracer.startActiveSpan('probe', (span) => {
      const id = trace.getActiveSpan()?.spanContext().spanId;
      span.end();
      return { id, expected: span.spanContext().spanId };
    });
    expect(active.id).toBe(active.expected);
  });
});

describe('tracedFetch', () => {
  let target: Awaited<ReturnType<typeof startServer>>;
  let handle: TracingHandle;
  beforeAll(async () => {
    target = await startServer();
    handle = setupTracing({ serviceName: 'fetcher', env: {} });
  });
  afterAll(async () => {
    await handle.shutdown();
    target.server.close();
  });

  it('sends traceparent and tracestate of the active span on every request', async () => {
    const fetchWithTrace = tracedFetch();
    const remote = contextFromTraceparent({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=abc',
    });
    const spanId = await context.with(remote, () =>
      handle.tracer.startActiveSpan('call', async (span) => {
        await fetchWithTrace(`${target.url}/a`, { method: 'POST', headers: { 'x-keep': '1' }, body: '{}' });
        await fetchWithTrace(new Request(`${target.url}/b`, { headers: { 'x-from-request': 'yes' } }));
        span.end();
        return span.spanContext().spanId;
      }),
    );
    const [a, b] = target.received.slice(-2);
    for (const request of [a!, b!]) {
      const extracted = extractTraceContext(request.headers);
      expect(extracted).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId, tracestate: 'vendor=abc' });
    }
    expect(a!.headers['x-keep']).toBe('1');
    expect(a!.body).toBe('{}');
    expect(b!.headers['x-from-request']).toBe('yes');
  });

  it('keeps a traceparent the caller set and adds none outside a span', async () => {
    const fetchWithTrace = tracedFetch();
    const explicit = '00-11111111111111111111111111111111-2222222222222222-01';
    await handle.tracer.startActiveSpan('call', async (span) => {
      await fetchWithTrace(`${target.url}/c`, { headers: { traceparent: explicit } });
      span.end();
    });
    await fetchWithTrace(`${target.url}/d`);
    const [c, d] = target.received.slice(-2);
    expect(c!.headers.traceparent).toBe(explicit);
    expect(d!.headers.traceparent).toBeUndefined();
  });
});
