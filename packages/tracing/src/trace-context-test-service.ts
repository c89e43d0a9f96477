// The W3C trace-context test suite's "service under test": it receives a POST of
// `[{ url, arguments }]` and, for each item, POSTs `arguments` as JSON to `url` with the trace
// headers of its own client span. Incoming headers go through `startServerSpan`, the same code
// the runner and guardrail services use, so the suite measures what those services do.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, type Tracer } from '@opentelemetry/api';
import { TracingConfigError } from './errors.js';
import { startServerSpan, startSpan } from './spans.js';
import { injectTraceHeaders } from './trace-context.js';
import { TRACERESPONSE_HEADER } from './w3c/propagator.js';

/** Options for {@link startTraceContextTestService}. */
export interface TraceContextTestServiceOptions {
  /** Address to bind; default `127.0.0.1`. */
  host?: string;
  /** Port; default 0 (a free port). */
  port?: number;
  /** Tracer for the spans; default the global one (no SDK needed). */
  tracer?: Tracer;
  /** Largest request body in bytes; default 1 MiB (413 past it). */
  maxBodyBytes?: number;
  /** Deepest callback nesting followed; default 8 (400 past it). */
  maxDepth?: number;
  /** `fetch` for the callbacks; default the global one. */
  fetch?: typeof fetch;
}

/** A running test service. */
export interface TraceContextTestService {
  /** The endpoint to give the suite (`python test.py <url>`). */
  url: string;
  close(): Promise<void>;
}

interface Action {
  url: string;
  arguments: unknown;
}

/** Starts the W3C test suite's service under test on `host:port` (default a free loopback port). */
export async function startTraceContextTestService(options: TraceContextTestServiceOptions = {}): Promise<TraceContextTestService> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TracingConfigError(`port must be an integer from 0 to 65535; got ${String(port)}`);
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const maxDepth = options.maxDepth ?? 8;
  const doFetch = options.fetch ?? globalThis.fetch;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return reply(405, { error: 'use POST with a JSON array of { url, arguments }' }, { allow: 'POST' });
    const body = await readBody(req, maxBody);
    if (body === undefined) return reply(413, { error: `request body is larger than ${maxBody} bytes` });
    const actions = parseActions(body, 0, maxDepth);
    if (typeof actions === 'string') return reply(400, { error: actions });

    const server = startServerSpan({
      headers: req.rawHeaders,
      name: `${req.method} ${req.url ?? '/'}`,
      ...(options.tracer ? { tracer: options.tracer } : {}),
    });
    const results: Array<{ url: string; status?: number; error?: string }> = [];
    for (const action of actions) {
      // One client span per callback: each hop gets its own parent id.
      const client = startSpan({
        name: 'POST',
        parent: server.context,
        kind: SpanKind.CLIENT,
        ...(options.tracer ? { tracer: options.tracer } : {}),
        attributes: { 'url.full': action.url },
      });
      try {
        const response = await doFetch(action.url, {
          method: 'POST',
          headers: injectTraceHeaders({
            context: client.context,
            headers: { 'content-type': 'application/json', accept: 'application/json' },
          }),
          body: JSON.stringify(action.arguments ?? []),
        });
        await response.arrayBuffer();
        results.push({ url: action.url, status: response.status });
        client.span.end();
      } catch (error) {
        results.push({ url: action.url, error: error instanceof Error ? error.message : String(error) });
        client.span.end();
      }
    }
    server.end();
    reply(200, results, { [TRACERESPONSE_HEADER]: server.traceresponse });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/test`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseActions(text: string, depth: number, maxDepth: number): Action[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'request body is not valid JSON';
  }
  return checkActions(value, depth, maxDepth);
}

/** The suite sends an array of `{ url, arguments }`, where `arguments` is again such an array. */
function checkActions(value: unknown, depth: number, maxDepth: number): Action[] | string {
  if (depth > maxDepth) return `callbacks nest deeper than ${maxDepth} levels`;
  if (!Array.isArray(value)) return 'body must be a JSON array of { url, arguments }';
  const out: Action[] = [];
  for (const [i, item] of value.entries()) {
    if (item === null || typeof item !== 'object') return `item ${i} must be an object with url and arguments`;
    const { url, arguments: args } = item as { url?: unknown; arguments?: unknown };
    if (typeof url !== 'string') return `item ${i}: url must be a string`;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `item ${i}: url is not a valid URL`;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `item ${i}: url must be http(s)`;
    if (args !== undefined) {
      const nested = checkActions(args, depth + 1, maxDepth);
      if (typeof nested === 'string') return `item ${i}: arguments: ${nested}`;
    }
    out.push({ url, arguments: args ?? [] });
  }
  return out;
}
