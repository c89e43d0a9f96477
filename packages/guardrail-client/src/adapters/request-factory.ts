import { randomBytes, randomUUID } from 'node:crypto';
import { getCurrentSpan, getCurrentTrace, type RunContext } from '@openai/agents-core';
import type { ActionType, TraceRef } from '@baton/manifest';
import type { GuardrailCheckInput, PayloadOf } from '../checker.js';
import { AgentIdSchema } from '@baton/manifest';
import { GuardrailClientConfigError } from '../errors.js';

/** Trace correlation for one guardrail request. */
export interface AdapterTrace extends TraceRef {
  /** Sent as the `tracestate` header. */
  tracestate?: string;
  /**
   * W3C trace-flags for the `traceparent` header, as the trace has them (bit 0 sampled, bit 1
   * random trace id). Default: `03` for the Agents SDK's own trace (recorded, random ids), `02`
   * for fresh ids (random, not recorded); a given trace without flags is sent as `00`.
   */
  trace_flags?: number;
}

/** Options every adapter takes: how to fill in the request around the payload. */
export interface GuardrailAdapterOptions<TContext = unknown> {
  /** Guardrail name in the SDK's results; each adapter has a default. */
  name?: string;
  /** Reverse-DNS id of the calling agent. Default: `<agentIdPrefix>.<agent name as a slug>`. */
  sourceAgentId?: string;
  /** Prefix for ids derived from agent names; default `local.agents`. */
  agentIdPrefix?: string;
  /** Thread id, or how to get it from the run. Default: `context.thread_id`, else one id per run. */
  threadId?: string | ((runContext: RunContext<TContext>) => string | undefined);
  /** Trace ids for the request. Default: the SDK's current trace and span, else fresh ids. */
  trace?: (runContext: RunContext<TContext>) => AdapterTrace | undefined;
  /** Generates `action_id`s; default `crypto.randomUUID`. */
  generateId?: () => string;
  /** Budget of one check in milliseconds; default 2000. */
  timeoutMs?: number;
  /** Action types whose failed checks are allowed through (never BLOCK decisions); default none. */
  failOpen?: ActionType[];
}

/** Fills in the checker's input (ids, thread, trace headers) around a payload, for the adapters. */
export interface RequestFactory<TContext = unknown> {
  build<T extends ActionType>(
    actionType: T,
    payload: PayloadOf<T>,
    where: { agentName?: string; runContext?: RunContext<TContext> },
  ): GuardrailCheckInput<T>;
}

export function createRequestFactory<TContext>(options: GuardrailAdapterOptions<TContext> = {}): RequestFactory<TContext> {
  if (options.sourceAgentId !== undefined && !AgentIdSchema.safeParse(options.sourceAgentId).success) {
    throw new GuardrailClientConfigError(
      `sourceAgentId ${JSON.stringify(options.sourceAgentId)} must be lower-case reverse-DNS with at least two labels (e.g. io.example.agents.triage)`,
    );
  }
  const prefix = options.agentIdPrefix ?? 'local.agents';
  if (!AgentIdSchema.safeParse(`${prefix}.x`).success) {
    throw new GuardrailClientConfigError(
      `agentIdPrefix ${JSON.stringify(prefix)} must be lower-case dot-separated labels (e.g. local.agents)`,
    );
  }
  const threadsByRun = new WeakMap<object, string>();

  function threadId(runContext: RunContext<TContext> | undefined): string {
    if (typeof options.threadId === 'string') return options.threadId;
    if (typeof options.threadId === 'function' && runContext) {
      const id = options.threadId(runContext);
      if (id) return id;
    }
    const fromContext = (runContext?.context as { thread_id?: unknown; threadId?: unknown } | undefined) ?? undefined;
    const candidate = fromContext && typeof fromContext === 'object' ? (fromContext.thread_id ?? fromContext.threadId) : undefined;
    if (typeof candidate === 'string' && candidate.length > 0 && candidate.length <= 256) return candidate;
    if (!runContext) return `thread_${randomUUID()}`;
    let id = threadsByRun.get(runContext);
    if (!id) {
      id = `thread_${randomUUID()}`;
      threadsByRun.set(runContext, id);
    }
    return id;
  }

  function trace(runContext: RunContext<TContext> | undefined): AdapterTrace {
    const given = runContext && options.trace ? options.trace(runContext) : undefined;
    return given ?? sdkTrace() ?? { trace_id: randomHex(16), span_id: randomHex(8), trace_flags: 0x02 };
  }

  return {
    build(actionType, payload, where) {
      const t = trace(where.runContext);
      // Only the flags this W3C version defines are sent; an unsampled trace stays unsampled.
      const flags = (Number.isInteger(t.trace_flags) ? (t.trace_flags as number) : 0) & 0x03;
      return {
        actionType,
        payload,
        sourceAgentId: options.sourceAgentId ?? agentIdFromName(prefix, where.agentName),
        threadId: threadId(where.runContext),
        trace: { trace_id: t.trace_id, span_id: t.span_id },
        headers: {
          traceparent: `00-${t.trace_id}-${t.span_id}-${flags.toString(16).padStart(2, '0')}`,
          ...(t.tracestate ? { tracestate: t.tracestate } : {}),
        },
      };
    },
  };
}

/** `Support Agent` → `local.agents.support-agent`: a stable reverse-DNS id for an SDK agent. */
export function agentIdFromName(prefix: string, name: string | undefined): string {
  const slug = (name ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/g, '');
  return `${prefix}.${slug || 'agent'}`;
}

/** The Agents SDK's active trace (`trace_<32 hex>`) and span (`span_<24 hex>`), as W3C ids. */
function sdkTrace(): AdapterTrace | undefined {
  const traceId = /^trace_([0-9a-f]{32})$/.exec(getCurrentTrace()?.traceId ?? '')?.[1];
  if (!traceId || /^0+$/.test(traceId)) return undefined;
  const spanHex = /^span_([0-9a-f]{16})/.exec(getCurrentSpan()?.spanId ?? '')?.[1];
  return { trace_id: traceId, span_id: spanHex && !/^0+$/.test(spanHex) ? spanHex : randomHex(8), trace_flags: 0x03 };
}

function randomHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}
