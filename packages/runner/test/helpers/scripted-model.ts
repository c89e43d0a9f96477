// An offline scripted Model for tests: a labelled stand-in for a real model, driven by the real
// @openai/agents run loop. Each model name has its own script.
import { Usage, type Model, type ModelProvider, type ModelRequest, type ModelResponse, type StreamEvent } from '@openai/agents-core';

export interface ScriptedCall {
  name: string;
  args: unknown;
  id?: string;
}
export interface ScriptedTurn {
  text?: string;
  calls?: ScriptedCall[];
  /** Wait this long (honouring the request's abort signal) before answering. */
  delayMs?: number;
}
export type Script = ScriptedTurn[] | ((request: ModelRequest, index: number) => ScriptedTurn);

export interface ScriptedProvider {
  provider: ModelProvider;
  /** Every request each model name received, in order. */
  requests: Record<string, ModelRequest[]>;
  /** Calls that were aborted by their signal. */
  aborted: string[];
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function scriptedProvider(scripts: Record<string, Script>): ScriptedProvider {
  const requests: Record<string, ModelRequest[]> = {};
  const aborted: string[] = [];
  const models = new Map<string, Model>();
  const modelFor = (name: string): Model => {
    const script = scripts[name];
    if (!script) throw new Error(`scripted provider: no script for model '${name}'`);
    let index = 0;
    const model: Model = {
      async getResponse(request: ModelRequest): Promise<ModelResponse> {
        const i = index++;
        (requests[name] ??= []).push(request);
        const turn = typeof script === 'function' ? script(request, i) : script[i];
        if (!turn) throw new Error(`scripted model '${name}': script exhausted at request ${i + 1}`);
        if (turn.delayMs) {
          try {
            await wait(turn.delayMs, request.signal);
          } catch (error) {
            aborted.push(name);
            throw error;
          }
        }
        const output: ModelResponse['output'] = [];
        if (turn.text !== undefined) {
          output.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text }] });
        }
        (turn.calls ?? []).forEach((c, j) => {
          output.push({
            type: 'function_call',
            callId: c.id ?? `call_${name}_${i + 1}_${j + 1}`,
            name: c.name,
            status: 'completed',
            arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args),
          });
        });
        return { usage: new Usage({ requests: 1 }), output, responseId: `resp_${name}_${i + 1}` };
      },
      getStreamedResponse(): AsyncIterable<StreamEvent> {
        throw new Error('streaming is not scripted');
      },
    };
    return model;
  };
  return {
    requests,
    aborted,
    provider: {
      getModel(name?: string) {
        const key = name ?? 'default';
        let m = models.get(key);
        if (!m) {
          m = modelFor(key);
          models.set(key, m);
        }
        return m;
      },
    },
  };
}

/** The text of every user/assistant/tool item in a request's input, for assertions. */
export function inputText(request: ModelRequest): string {
  return typeof request.input === 'string' ? request.input : JSON.stringify(request.input);
}
