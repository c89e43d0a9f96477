// OFFLINE SCRIPTED MODEL (test stand-in): a real `Model` implementation for the real
// @openai/agents run loop that replays scripted outputs and records every request it receives.
import { Usage } from '@openai/agents';
import type { AgentOutputItem, Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';

export type ScriptStep = AgentOutputItem[] | ((request: ModelRequest) => AgentOutputItem[]);

export class RecordingScriptedModel implements Model {
  /** Every request, in order, as the run loop passed it. */
  readonly requests: ModelRequest[] = [];
  private next = 0;
  constructor(
    readonly label: string,
    private readonly steps: ScriptStep[],
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.steps[this.next++];
    if (!step) throw new Error(`${this.label}: scripted model has no step ${this.next}`);
    const output = typeof step === 'function' ? step(request) : step;
    return { usage: new Usage(), output, responseId: `resp_${this.label}_${this.next}` };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    throw new Error('streaming is not scripted');
  }

  /** Everything this model was sent, as one string, for canary searches. */
  seen(): string {
    return JSON.stringify(this.requests);
  }
}

export function say(text: string): AgentOutputItem {
  return { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] } as AgentOutputItem;
}

export function call(name: string, args: Record<string, unknown>, callId = `call_${name}`): AgentOutputItem {
  return { type: 'function_call', callId, name, status: 'completed', arguments: JSON.stringify(args) } as AgentOutputItem;
}
