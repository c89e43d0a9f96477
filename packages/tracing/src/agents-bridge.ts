import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context as otelContext,
  trace as otelTrace,
  type Attributes,
  type Span as OtelSpan,
  type Tracer,
} from '@opentelemetry/api';
import {
  setTraceProcessors,
  setTracingDisabled,
  type Span as AgentsSpan,
  type SpanData,
  type Trace as AgentsTrace,
  type TracingProcessor,
} from '@openai/agents-core';
import { GEN_AI, GEN_AI_OPERATIONS } from './gen-ai-attributes.js';

/** Options for {@link createAgentsTraceBridge}. */
export interface AgentsTraceBridgeOptions {
  /** Tracer the bridged spans are created with. */
  tracer: Tracer;
  /**
   * Record model inputs/outputs and tool arguments/results as span attributes. Default false:
   * traces then carry names, ids, models and token counts, never conversation content.
   */
  includeSensitiveData?: boolean;
}

type AnySpan = AgentsSpan<SpanData>;

/**
 * A `TracingProcessor` for the OpenAI Agents SDK that re-creates each SDK trace and span as an
 * OpenTelemetry span. An SDK trace becomes a `workflow` span under the OTel context active when
 * the run started (so it nests under the caller's span); each SDK span nests under its SDK
 * parent. Attributes follow the GenAI semantic conventions where a name exists.
 *
 * The bridged spans are not made *active* while the SDK works (a processor cannot enter the
 * SDK's async context), so code inside a tool sees the caller's active span, not the tool's.
 */
export function createAgentsTraceBridge(options: AgentsTraceBridgeOptions): TracingProcessor {
  const { tracer } = options;
  const sensitive = options.includeSensitiveData ?? false;
  const roots = new Map<string, OtelSpan>();
  const spans = new Map<string, { span: OtelSpan; traceId: string }>();

  const startRoot = (sdkTrace: AgentsTrace): OtelSpan => {
    const root = tracer.startSpan(
      `workflow ${sdkTrace.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'openai_agents.trace_id': sdkTrace.traceId,
          ...(sdkTrace.groupId ? { [GEN_AI.conversationId]: sdkTrace.groupId } : {}),
        },
      },
      otelContext.active(),
    );
    roots.set(sdkTrace.traceId, root);
    return root;
  };

  const parentContextFor = (sdkSpan: AnySpan) => {
    const parent = (sdkSpan.parentId && spans.get(sdkSpan.parentId)?.span) || roots.get(sdkSpan.traceId);
    return parent ? otelTrace.setSpan(ROOT_CONTEXT, parent) : otelContext.active();
  };

  const startSpan = (sdkSpan: AnySpan): OtelSpan => {
    const data = sdkSpan.spanData;
    const span = tracer.startSpan(
      spanName(data),
      {
        kind: data.type === 'generation' || data.type === 'response' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: toDate(sdkSpan.startedAt),
        attributes: { 'openai_agents.span_id': sdkSpan.spanId, 'openai_agents.span_type': data.type },
      },
      parentContextFor(sdkSpan),
    );
    spans.set(sdkSpan.spanId, { span, traceId: sdkSpan.traceId });
    return span;
  };

  return {
    async onTraceStart(sdkTrace) {
      if (!roots.has(sdkTrace.traceId)) startRoot(sdkTrace);
    },
    async onTraceEnd(sdkTrace) {
      for (const [id, entry] of spans) {
        if (entry.traceId === sdkTrace.traceId) {
          entry.span.end();
          spans.delete(id);
        }
      }
      roots.get(sdkTrace.traceId)?.end();
      roots.delete(sdkTrace.traceId);
    },
    async onSpanStart(sdkSpan) {
      if (!spans.has(sdkSpan.spanId)) startSpan(sdkSpan);
    },
    async onSpanEnd(sdkSpan) {
      const span = spans.get(sdkSpan.spanId)?.span ?? startSpan(sdkSpan);
      spans.delete(sdkSpan.spanId);
      const data = sdkSpan.spanData;
      span.updateName(spanName(data));
      span.setAttributes(attributesFor(data, sensitive));
      const error = sdkSpan.error;
      if (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        span.setAttribute('error.type', typeof error.data?.code === 'string' ? error.data.code : 'agents_sdk_error');
      }
      if (data.type === 'guardrail' && data.triggered)
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'guardrail tripwire triggered' });
      span.end(toDate(sdkSpan.endedAt));
    },
    async forceFlush() {},
    async shutdown() {
      for (const entry of spans.values()) entry.span.end();
      for (const root of roots.values()) root.end();
      spans.clear();
      roots.clear();
    },
  };
}

/**
 * Makes the bridge the Agents SDK's only trace processor (replacing its default exporter to
 * OpenAI) and turns SDK tracing on. Call it after importing `@openai/agents`, whose import
 * installs that exporter. To stop SDK tracing altogether instead, call `setTracingDisabled(true)`
 * from `@openai/agents` (or set `OPENAI_AGENTS_DISABLE_TRACING=1`).
 */
export function installAgentsTraceBridge(options: AgentsTraceBridgeOptions): TracingProcessor {
  const bridge = createAgentsTraceBridge(options);
  setTraceProcessors([bridge]);
  setTracingDisabled(false);
  return bridge;
}

function spanName(data: SpanData): string {
  switch (data.type) {
    case 'agent':
      return `${GEN_AI_OPERATIONS.invokeAgent} ${data.name}`;
    case 'generation':
      return data.model ? `${GEN_AI_OPERATIONS.chat} ${data.model}` : GEN_AI_OPERATIONS.chat;
    case 'response': {
      const model = typeof data._response?.model === 'string' ? data._response.model : undefined;
      return model ? `${GEN_AI_OPERATIONS.chat} ${model}` : GEN_AI_OPERATIONS.chat;
    }
    case 'function':
      return `${GEN_AI_OPERATIONS.executeTool} ${data.name}`;
    case 'handoff':
      return `handoff ${data.from_agent ?? '?'} -> ${data.to_agent ?? '?'}`;
    case 'guardrail':
      return `guardrail ${data.name}`;
    case 'task':
      return `task ${data.name}`;
    case 'turn':
      return `turn ${data.turn} ${data.agent_name}`;
    case 'custom':
      return data.name;
    default:
      return `openai_agents.${data.type}`;
  }
}

function attributesFor(data: SpanData, sensitive: boolean): Attributes {
  switch (data.type) {
    case 'agent':
      return compact({
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.invokeAgent,
        [GEN_AI.agentName]: data.name,
        'openai_agents.agent.tools': data.tools,
        'openai_agents.agent.handoffs': data.handoffs,
        'openai_agents.agent.output_type': data.output_type,
      });
    case 'generation':
      return compact({
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.chat,
        [GEN_AI.providerName]: 'openai',
        [GEN_AI.requestModel]: data.model,
        [GEN_AI.usageInputTokens]: numberOrUndefined(data.usage?.input_tokens),
        [GEN_AI.usageOutputTokens]: numberOrUndefined(data.usage?.output_tokens),
        ...(sensitive ? { [GEN_AI.inputMessages]: json(data.input), [GEN_AI.outputMessages]: json(data.output) } : {}),
      });
    case 'response': {
      const response = data._response ?? {};
      const usage = (response.usage ?? {}) as Record<string, unknown>;
      return compact({
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.chat,
        [GEN_AI.providerName]: 'openai',
        [GEN_AI.responseId]: data.response_id,
        [GEN_AI.requestModel]: typeof response.model === 'string' ? response.model : undefined,
        [GEN_AI.responseModel]: typeof response.model === 'string' ? response.model : undefined,
        [GEN_AI.usageInputTokens]: numberOrUndefined(usage.input_tokens ?? usage.inputTokens),
        [GEN_AI.usageOutputTokens]: numberOrUndefined(usage.output_tokens ?? usage.outputTokens),
        ...(sensitive ? { [GEN_AI.inputMessages]: json(data._input), [GEN_AI.outputMessages]: json(response.output) } : {}),
      });
    }
    case 'function':
      return compact({
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.executeTool,
        [GEN_AI.toolName]: data.name,
        [GEN_AI.toolType]: 'function',
        ...(sensitive ? { [GEN_AI.toolCallArguments]: data.input, [GEN_AI.toolCallResult]: data.output } : {}),
      });
    case 'handoff':
      return compact({ 'openai_agents.handoff.from_agent': data.from_agent, 'openai_agents.handoff.to_agent': data.to_agent });
    case 'guardrail':
      return { 'openai_agents.guardrail.name': data.name, 'openai_agents.guardrail.triggered': data.triggered };
    case 'task':
      return compact({
        'openai_agents.task.name': data.name,
        [GEN_AI.usageInputTokens]: data.usage?.input_tokens,
        [GEN_AI.usageOutputTokens]: data.usage?.output_tokens,
      });
    case 'turn':
      return compact({
        'openai_agents.turn': data.turn,
        [GEN_AI.agentName]: data.agent_name,
        [GEN_AI.usageInputTokens]: data.usage?.input_tokens,
        [GEN_AI.usageOutputTokens]: data.usage?.output_tokens,
      });
    case 'custom':
      return sensitive ? compact({ 'openai_agents.custom.data': json(data.data) }) : {};
    default:
      return {};
  }
}

function compact(values: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function json(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function toDate(iso: string | null): Date | undefined {
  if (!iso) return undefined;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
