// OFFLINE SCRIPTED MODEL (test stand-in for a real model, the only one allowed): drives the real
// @openai/agents run loop inside the real Baton Runner. Each model name has its own script.
import { Usage } from '@openai/agents-core';
import type { Model, ModelProvider, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents-core';

export interface ScriptedTurn {
  text?: string;
  calls?: Array<{ name: string; args: unknown }>;
}
export type Script = (request: ModelRequest, index: number) => ScriptedTurn;

export function scriptedProvider(scripts: Record<string, Script>): { provider: ModelProvider; requests: Record<string, ModelRequest[]> } {
  const requests: Record<string, ModelRequest[]> = {};
  const counters = new Map<string, number>();
  const modelFor = (name: string): Model => ({
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const script = scripts[name];
      if (!script) throw new Error(`scripted provider: no script for model '${name}'`);
      const i = counters.get(name) ?? 0;
      counters.set(name, i + 1);
      (requests[name] ??= []).push(request);
      const turn = script(request, i);
      const output: ModelResponse['output'] = [];
      if (turn.text !== undefined) output.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text }] });
      (turn.calls ?? []).forEach((c, j) => output.push({ type: 'function_call', callId: `call_${name}_${i}_${j}`, name: c.name, status: 'completed', arguments: JSON.stringify(c.args) }));
      return { usage: new Usage({ requests: 1 }), output, responseId: `resp_${name}_${i}` };
    },
    getStreamedResponse(): AsyncIterable<StreamEvent> {
      throw new Error('streaming is not scripted');
    },
  });
  return { requests, provider: { getModel: (name?: string) => modelFor(name ?? 'default') } };
}

/** Everything a request carried, as text, for assertions. */
export function requestText(request: ModelRequest): string {
  return typeof request.input === 'string' ? request.input : JSON.stringify(request.input);
}
