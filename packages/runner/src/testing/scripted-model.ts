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
  const model: Model = {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const index = calls++;
      requests.push(request);
      if (options.latencyMs) await sleep(options.latencyMs, request.signal);
      const turn = typeof options.script === 'function' ? await options.script(request, index) : options.script[index];
      if (!turn) throw new ScriptExhaustedError(`scripted model: script exhausted after ${calls - 1} replies`);
      if (turn.error) throw new ScriptExhaustedError(`scripted model: ${turn.error.message}`);
      const output: OutputItem[] = [];
      if (turn.message !== undefined) {
        output.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.message }] });
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
      return { usage: new Usage({ requests: 1 }), output, responseId: `resp_scripted_${index + 1}` };
    },
    async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
      const response = await model.getResponse(request);
      yield {
        type: 'response_done',
        response: { id: response.responseId ?? 'resp', usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output: response.output as never },
      };
    },
  };
  return { model, provider: { getModel: () => model }, requests };
}
