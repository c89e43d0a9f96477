// Helper for writing subprocess agents (subpath `@baton/runner/agent-process`).
import type { Readable, Writable } from 'node:stream';
import { AgentProcessInputSchema, AgentProcessOutputSchema, type AgentProcessInput, type AgentProcessOutput } from '@baton/manifest';
import {
  contextFromSpanIds,
  createLogger,
  runWithTraceContext,
  setupTracing,
  startSpan,
  tracedFetch,
  type Logger,
  type TracingHandle,
} from '@baton/tracing';
import { SpanStatusCode, TraceFlags, trace, type Span } from '@opentelemetry/api';
import type { z } from 'zod';
import { readAll } from './read-stdin.js';

/** What a handler returns: the output contract, with `tool_calls` optional (default `[]`). */
export type AgentProcessHandlerResult = z.input<typeof AgentProcessOutputSchema>;

/** What a handler gets besides its input. */
export interface AgentProcessContext {
  /** JSON-lines logger to stderr; every line carries the run's trace_id and span_id. */
  logger: Logger;
  /** `fetch` that sends `traceparent`/`tracestate` of the agent's span on every request. */
  fetch: typeof fetch;
  /** Aborted when the runner terminates the process (SIGTERM on timeout or cancel). */
  signal: AbortSignal;
  /** The agent's root span (a child of the runner's invocation span). */
  span: Span;
}

/** The agent's logic: the stdin object in, the stdout object out. */
export type AgentProcessHandler = (
  input: AgentProcessInput,
  ctx: AgentProcessContext,
) => Promise<AgentProcessHandlerResult> | AgentProcessHandlerResult;

/** Options for {@link defineAgentProcess}; the stream and exit seams exist for tests. */
export interface DefineAgentProcessOptions {
  /** Logger and `service.name`; default `agent-process`. */
  name?: string;
  /** Log level; default `info`. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Largest stdin accepted; default 16 MiB. */
  maxInputBytes?: number;
  /** Set up OpenTelemetry (OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set); default true. */
  tracing?: boolean;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  /** Ends the process; default `process.exit`. */
  exit?: (code: number) => void;
}

const AGENT_PROCESS_DEFAULTS = { name: 'agent-process', maxInputBytes: 16 * 1024 * 1024 } as const;

/** Exit codes: 0 answered, 1 the handler failed or answered off-contract, 2 bad input, 143 terminated. */
export const AGENT_PROCESS_EXIT_CODES = { ok: 0, handlerFailed: 1, badInput: 2, terminated: 143 } as const;

/**
 * Runs a subprocess agent under the seed's contract: reads all of stdin, validates it, starts
 * the agent's root span under `trace.trace_id` / `trace.parent_span_id`, calls `handler`, and
 * writes exactly one JSON object to stdout. Bad input or a failing handler exits non-zero with
 * one JSON error line on stderr (no stack trace). Resolves with the exit code it used.
 */
export async function defineAgentProcess(handler: AgentProcessHandler, options: DefineAgentProcessOptions = {}): Promise<number> {
  const name = options.name ?? AGENT_PROCESS_DEFAULTS.name;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const baseLogger = createLogger({ name, level: options.logLevel ?? 'info', write: (line) => stderr.write(`${line}\n`) });

  const controller = new AbortController();
  const onTerm = () => controller.abort(new Error('terminated by the runner (SIGTERM)'));
  if (!options.stdin) process.once('SIGTERM', onTerm);

  const end = async (code: number, tracing?: TracingHandle): Promise<number> => {
    process.removeListener('SIGTERM', onTerm);
    await tracing?.shutdown().catch(() => undefined);
    await new Promise<void>((resolve) => stderr.write('', () => resolve()));
    exit(code);
    return code;
  };

  let input: AgentProcessInput;
  try {
    const text = await readAll(stdin, options.maxInputBytes ?? AGENT_PROCESS_DEFAULTS.maxInputBytes);
    input = parseInput(text);
  } catch (error) {
    baseLogger.error('invalid agent process input', { error: { code: 'INVALID_INPUT', message: (error as Error).message } });
    return end(AGENT_PROCESS_EXIT_CODES.badInput);
  }

  const tracing = options.tracing === false ? undefined : setupTracing({ serviceName: name });
  const tracer = tracing?.tracer ?? trace.getTracer(name);
  // Flags as the runner sent them (an unsampled run stays unsampled); older runners sent none: sampled.
  const parent = contextFromSpanIds({
    traceId: input.trace.trace_id,
    parentSpanId: input.trace.parent_span_id,
    traceFlags: input.trace.trace_flags !== undefined ? Number.parseInt(input.trace.trace_flags, 16) : TraceFlags.SAMPLED,
    ...(input.trace.tracestate !== undefined ? { tracestate: input.trace.tracestate } : {}),
  });
  // Its own span id even with tracing off (`tracing: false`, or no SDK): outbound calls name it.
  const { span, context: active } = startSpan({
    tracer,
    name: `invoke_agent ${name}`,
    parent,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': name,
      'baton.thread_id': input.thread_id,
      'baton.run_id': input.run_id,
    },
  });
  const logger = baseLogger.child({ thread_id: input.thread_id, run_id: input.run_id });

  let output: AgentProcessOutput;
  try {
    const result = await runWithTraceContext(active, () =>
      handler(input, { logger, fetch: tracedFetch(), signal: controller.signal, span }),
    );
    output = parseOutput(result);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
    span.end();
    runWithTraceContext(active, () => logger.error('agent handler failed', { error: describeError(error) }));
    return end(AGENT_PROCESS_EXIT_CODES.handlerFailed, tracing);
  }
  if (controller.signal.aborted) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'terminated' });
    span.end();
    return end(AGENT_PROCESS_EXIT_CODES.terminated, tracing);
  }
  span.end();
  await new Promise<void>((resolve) => stdout.write(`${JSON.stringify(output)}\n`, () => resolve()));
  return end(AGENT_PROCESS_EXIT_CODES.ok, tracing);
}

function parseInput(text: string): AgentProcessInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(text.trim() === '' ? 'stdin was empty; expected one JSON object' : 'stdin is not valid JSON');
  }
  const parsed = AgentProcessInputSchema.safeParse(json);
  if (!parsed.success) throw new Error(`stdin does not match the agent process input contract: ${issues(parsed.error.issues)}`);
  return parsed.data;
}

function parseOutput(result: unknown): AgentProcessOutput {
  const parsed = AgentProcessOutputSchema.safeParse(result);
  if (!parsed.success) {
    throw Object.assign(
      new Error(`the handler's result does not match the agent process output contract: ${issues(parsed.error.issues)}`),
      {
        code: 'BAD_OUTPUT',
      },
    );
  }
  return parsed.data;
}

function issues(list: readonly { path: PropertyKey[]; message: string }[]): string {
  return list
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

function describeError(error: unknown): { name: string; message: string; code?: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

export type { AgentProcessInput, AgentProcessOutput };
