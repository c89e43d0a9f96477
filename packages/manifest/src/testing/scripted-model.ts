import { Usage } from '@openai/agents-core';
import type { Model, ModelProvider, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents-core';
import { ScriptExhaustedError } from '../errors.js';
import type { ScriptedTurn } from './scripted-turn.js';

/** Replies in order, or a function deciding each reply from the request (`index` counts from 0). */
export type ModelScript = ScriptedTurn[] | ((request: ModelRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

/** Options for {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  /** The replies, whatever model name is asked for. */
  script: ModelScript;
  /** Simulated model latency per call, ms (default 0); honours the request's abort signal. */
  latencyMs?: number;
  /** Streamed replies: simulated latency before each chunk after the first, ms (default 0). */
  chunkLatencyMs?: number;
  /**
   * Streamed replies: awaited before each chunk is sent (a test seam to hold a stream at a known
   * point); `call` and `chunk` count from 0.
   */
  beforeChunk?: (position: { call: number; chunk: number; signal: AbortSignal | undefined }) => Promise<void> | void;
}

/** Options for {@link createScriptedProvider}. */
export interface ScriptedProviderOptions {
  /**
   * One script per model name (the agent manifest's `model.name`; `default` when none is asked
   * for), so each agent of a multi-agent run has its own. A name without a script fails its call.
   */
  scripts: Record<string, ModelScript>;
  /** Simulated model latency per call, ms (default 0); honours the request's abort signal. */
  latencyMs?: number;
}

/** What {@link createScriptedProvider} returns. */
export interface ScriptedProvider {
  /** For the Runner's `modelProvider`. */
  provider: ModelProvider;
  /** Every request each model name received, in order. */
  requests: Record<string, ModelRequest[]>;
  /** Model names whose call was aborted by the request's signal while waiting. */
  aborted: string[];
}

type OutputItem = ModelResponse['output'][number];

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface ScriptState {
  /** Names the model in errors and ids; undefined for the single-script model. */
  name: string | undefined;
  script: ModelScript;
  latencyMs: number;
  chunkLatencyMs?: number;
  beforeChunk?: ScriptedModelOptions['beforeChunk'];
  calls: number;
  /** Keeps the request (a name's list appears with its first request). */
  record(request: ModelRequest): void;
  aborted: string[];
}

/** The next scripted reply, with the chunks its message streams in. */
async function reply(state: ScriptState, request: ModelRequest): Promise<{ index: number; response: ModelResponse; chunks: string[] }> {
  const index = state.calls++;
  state.record(request);
  const who = state.name === undefined ? 'scripted model' : `scripted model '${state.name}'`;
  const turn = typeof state.script === 'function' ? await state.script(request, index) : state.script[index];
  if (!turn) throw new ScriptExhaustedError(`${who}: script exhausted after ${index} replies (request ${index + 1})`);
  const delay = state.latencyMs + (turn.delayMs ?? 0);
  if (delay > 0) {
    try {
      await wait(delay, request.signal);
    } catch (err) {
      state.aborted.push(state.name ?? 'default');
      throw err;
    }
  }
  if (turn.error) throw new ScriptExhaustedError(`${who}: ${turn.error.message}`);
  const tag = state.name === undefined ? `${index + 1}` : `${state.name}_${index + 1}`;
  const output: OutputItem[] = [];
  const message = turn.message ?? turn.chunks?.join('');
  if (message !== undefined) {
    output.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: message }] });
  }
  (turn.toolCalls ?? []).forEach((c, i) => {
    output.push({
      type: 'function_call',
      callId: c.id ?? `call_${tag}_${i + 1}`,
      name: c.name,
      status: 'completed',
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    });
  });
  // Without scripted chunks a message streams word by word, the way a hosted model sends it.
  const chunks = turn.chunks ?? message?.match(/\S+\s*|\s+/g) ?? [];
  return {
    index,
    response: { usage: new Usage({ requests: 1 }), output, responseId: state.name === undefined ? `resp_scripted_${tag}` : `resp_${tag}` },
    chunks,
  };
}

function modelOf(state: ScriptState): Model {
  const model: Model = {
    getResponse: async (request) => (await reply(state, request)).response,
    async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
      const { index, response, chunks } = await reply(state, request);
      yield { type: 'response_started' };
      for (const [chunk, delta] of chunks.entries()) {
        if (chunk > 0 && state.chunkLatencyMs) await wait(state.chunkLatencyMs, request.signal);
        await state.beforeChunk?.({ call: index, chunk, signal: request.signal });
        request.signal?.throwIfAborted();
        yield { type: 'output_text_delta', delta };
      }
      yield {
        type: 'response_done',
        response: {
          id: response.responseId ?? 'resp',
          usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          output: response.output as never,
        },
      };
    },
  };
  return model;
}

/**
 * An in-memory scripted model provider (a labelled test stand-in, not a real model) for the real
 * @openai/agents run loop: each model name replies with its own script and records every request.
 * For whole conversations driven by rules rather than a fixed order, use the offline model's
 * scenarios ({@link createOfflineModelProvider}).
 */
export function createScriptedProvider(options: ScriptedProviderOptions): ScriptedProvider {
  const requests: Record<string, ModelRequest[]> = {};
  const aborted: string[] = [];
  const models = new Map<string, Model>();
  return {
    requests,
    aborted,
    provider: {
      getModel(modelName?: string): Model {
        const name = modelName ?? 'default';
        let model = models.get(name);
        if (!model) {
          const script = Object.hasOwn(options.scripts, name) ? options.scripts[name] : undefined;
          if (!script)
            throw new ScriptExhaustedError(
              `scripted provider: no script for model '${name}' (scripts: ${Object.keys(options.scripts).join(', ') || 'none'})`,
            );
          model = modelOf({
            name,
            script,
            latencyMs: options.latencyMs ?? 0,
            calls: 0,
            record: (r) => (requests[name] ??= []).push(r),
            aborted,
          });
          models.set(name, model);
        }
        return model;
      },
    },
  };
}

/**
 * One in-memory scripted model (a labelled test stand-in, not a real model): replies with the
 * script whatever model name is asked for, and records every request it was given.
 */
export function createScriptedModel(options: ScriptedModelOptions): { model: Model; provider: ModelProvider; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const model = modelOf({
    name: undefined,
    script: options.script,
    latencyMs: options.latencyMs ?? 0,
    ...(options.chunkLatencyMs !== undefined ? { chunkLatencyMs: options.chunkLatencyMs } : {}),
    ...(options.beforeChunk ? { beforeChunk: options.beforeChunk } : {}),
    calls: 0,
    record: (r) => requests.push(r),
    aborted: [],
  });
  return { model, provider: { getModel: () => model }, requests };
}

/** Everything a request's input carried, as text, for assertions. */
export function requestText(request: ModelRequest): string {
  return typeof request.input === 'string' ? request.input : JSON.stringify(request.input);
}
