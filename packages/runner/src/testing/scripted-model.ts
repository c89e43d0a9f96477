import { Usage } from '@openai/agents-core';
import type { Model, ModelProvider, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents-core';
import { ScriptExhaustedError } from '../models/errors.js';
import type { ScriptedTurn } from './scripted-openai-server.js';

/** Options for {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  /** Replies in order, or a function deciding each reply from the request. */
  script: ScriptedTurn[] | ((request: ModelRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);
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

type OutputItem = ModelResponse['output'][number];

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * An in-memory scripted model (a labelled test stand-in, not a real model): replies with the
 * scripted turns in order and records every request it was given.
 */
export function createScriptedModel(options: ScriptedModelOptions): { model: Model; provider: ModelProvider; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let calls = 0;
  /** The next scripted reply, with the chunks its message streams in. */
  const reply = async (request: ModelRequest): Promise<{ index: number; response: ModelResponse; chunks: string[] }> => {
    const index = calls++;
    requests.push(request);
    if (options.latencyMs) await sleep(options.latencyMs, request.signal);
    const turn = typeof options.script === 'function' ? await options.script(request, index) : options.script[index];
    if (!turn) throw new ScriptExhaustedError(`scripted model: script exhausted after ${calls - 1} replies`);
    if (turn.error) throw new ScriptExhaustedError(`scripted model: ${turn.error.message}`);
    const output: OutputItem[] = [];
    const message = turn.message ?? turn.chunks?.join('');
    if (message !== undefined) {
      output.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: message }] });
    }
    (turn.toolCalls ?? []).forEach((c, i) => {
      output.push({
        type: 'function_call',
        callId: c.id ?? `call_${index + 1}_${i + 1}`,
        name: c.name,
        status: 'completed',
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      });
    });
    // Without scripted chunks a message streams word by word, the way a hosted model sends it.
    const chunks = turn.chunks ?? (message?.match(/\S+\s*|\s+/g) ?? []);
    return { index, response: { usage: new Usage({ requests: 1 }), output, responseId: `resp_scripted_${index + 1}` }, chunks };
  };
  const model: Model = {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      return (await reply(request)).response;
    },
    async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
      const { index, response, chunks } = await reply(request);
      yield { type: 'response_started' };
      for (const [chunk, delta] of chunks.entries()) {
        if (chunk > 0 && options.chunkLatencyMs) await sleep(options.chunkLatencyMs, request.signal);
        await options.beforeChunk?.({ call: index, chunk, signal: request.signal });
        request.signal?.throwIfAborted();
        yield { type: 'output_text_delta', delta };
      }
      yield {
        type: 'response_done',
        response: { id: response.responseId ?? 'resp', usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output: response.output as never },
      };
    },
  };
  return { model, provider: { getModel: () => model }, requests };
}
