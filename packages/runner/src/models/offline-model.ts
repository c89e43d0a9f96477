import { setTimeout as sleep } from 'node:timers/promises';
import { Usage } from '@openai/agents-core';
import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents-core';
import type { AgentAwareModelProvider } from './agent-model.js';
import { readConversation } from './conversation.js';
import type { ConversationFacts } from './conversation.js';
import { ScenarioError } from './errors.js';
import { loadScenarioFile } from './scenario-loader.js';
import { ScenarioSchema } from './scenario-schema.js';
import type { Scenario, ScenarioInput, ScenarioRule } from './scenario-schema.js';
import { renderString, renderValue } from './template.js';
import type { TemplateScope } from './template.js';

/** Every output of the offline model carries this label (DESIGN.md decision 8). */
export const OFFLINE_MODEL_LABEL = 'offline model';

type OutputItem = ModelResponse['output'][number];

interface Decision {
  rule?: ScenarioRule;
  output: OutputItem[];
}

/** Counter shared by one provider, so call ids are unique and the same on every run. */
interface IdSource {
  next(prefix: string): string;
}

function matchRegex(pattern: string | undefined, text: string): string[] | null | undefined {
  if (pattern === undefined) return undefined;
  const m = new RegExp(pattern, 'i').exec(text);
  return m ? Array.from(m, (g) => g ?? '') : null;
}

/**
 * The deterministic offline scripted model. Given a scenario and the agent it speaks for, it reads
 * the conversation and the offered tools from each request and replies with the first matching
 * rule's tool call, handoff or message. Messages are prefixed `[offline model]`.
 */
export class OfflineModel implements Model {
  readonly label = OFFLINE_MODEL_LABEL;
  readonly #scenario: Scenario;
  readonly #agentKeys: string[];
  readonly #ids: IdSource;

  constructor(options: { scenario: Scenario; agentKeys: string[]; ids?: IdSource }) {
    this.#scenario = options.scenario;
    this.#agentKeys = options.agentKeys;
    let n = 0;
    this.#ids = options.ids ?? { next: (p) => `${p}_${++n}` };
  }

  /** The scenario key (agent id, model name or `*`) whose rules this model follows. */
  get agentKey(): string | undefined {
    return this.#agentKeys.find((k) => this.#scenario.agents[k]);
  }

  decide(request: ModelRequest): Decision {
    const facts = readConversation(request);
    const key = this.agentKey;
    const agentLabel = this.#agentKeys[0] ?? '*';
    const rules = key ? (this.#scenario.agents[key]?.rules ?? []) : [];
    for (const rule of rules) {
      const output = this.#apply(rule, facts, agentLabel);
      if (output) return { rule, output: numberCalls(output, request) };
    }
    const text = `[${OFFLINE_MODEL_LABEL}] scenario '${this.#scenario.name}' has no rule for agent '${agentLabel}' at turn ${facts.turn}.`;
    return { output: [this.#message(text)] };
  }

  #apply(rule: ScenarioRule, facts: ConversationFacts, agent: string): OutputItem[] | undefined {
    const w = rule.when;
    if (w.turn !== undefined && w.turn !== facts.turn) return undefined;
    if (w.last_item !== undefined && w.last_item !== facts.lastItem) return undefined;
    if (w.tool !== undefined && w.tool !== facts.lastTool) return undefined;
    if (w.offers_tool !== undefined && !facts.offeredTools.has(w.offers_tool)) return undefined;
    if (w.not_called !== undefined && facts.calledTools.has(w.not_called)) return undefined;
    const inputMatch = matchRegex(w.input_matches, facts.input);
    if (inputMatch === null) return undefined;
    const textMatch = matchRegex(w.last_text_matches, facts.lastText);
    if (textMatch === null) return undefined;
    if (w.has_history !== undefined && w.has_history !== facts.hasHistory) return undefined;
    const previousInput = facts.earlierInputs[facts.earlierInputs.length - 1];
    if (w.previous_input_matches !== undefined && previousInput === undefined) return undefined;
    const previousMatch = matchRegex(w.previous_input_matches, previousInput ?? '');
    if (previousMatch === null) return undefined;
    const scope: TemplateScope = {
      input: facts.input,
      last_text: facts.lastText,
      last_tool_output: facts.lastItem === 'tool_output' ? facts.lastText : '',
      tool_outputs: facts.toolOutputs,
      input_match: inputMatch ?? [],
      match: textMatch ?? inputMatch ?? [],
      turn: facts.turn,
      agent,
      target: '',
      previous_input: previousInput ?? '',
      previous_input_match: previousMatch ?? [],
      earlier_inputs: facts.earlierInputs,
    };
    if (rule.call) {
      // Calling a tool the request does not offer would only make the run loop fail; skip the rule.
      if (!facts.offeredTools.has(rule.call.name)) return undefined;
      return [this.#call(rule.call.name, renderValue(rule.call.arguments, scope))];
    }
    if (rule.handoff) {
      const tool = facts.handoffTool;
      if (!tool) return undefined;
      const pattern = rule.handoff.target;
      const target = pattern === undefined ? tool.targets[0] : tool.targets.find((t) => new RegExp(pattern, 'i').test(t));
      if (target === undefined) return undefined;
      scope.target = target;
      const args = {
        target_agent_id: target,
        input: renderString(rule.handoff.input, scope),
        state: renderValue(rule.handoff.state, scope),
      };
      return [this.#call(tool.name, args)];
    }
    return [this.#message(`[${OFFLINE_MODEL_LABEL}] ${renderString(rule.message ?? '', scope)}`)];
  }

  #call(name: string, args: unknown): OutputItem {
    // Numbered by `numberCalls` once the reply is complete.
    return { type: 'function_call', callId: '', name, status: 'completed', arguments: JSON.stringify(args) };
  }

  #message(text: string): OutputItem {
    return { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] };
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const { output, rule } = this.decide(request);
    const latency = this.#scenario.latency_ms ?? 0;
    // Simulated latency stands for the network round trip of a hosted model; aborts cut it short.
    if (latency > 0) await sleep(latency, undefined, request.signal ? { signal: request.signal } : undefined);
    return {
      usage: new Usage({ requests: 1 }),
      output,
      responseId: this.#ids.next('resp_offline'),
      providerData: { model: OFFLINE_MODEL_LABEL, scenario: this.#scenario.name, ...(rule?.name ? { rule: rule.name } : {}) },
    };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const response = await this.getResponse(request);
    yield { type: 'response_started' };
    // Messages stream word by word (the model's own latency came before the first word).
    for (const item of response.output) {
      if (item.type !== 'message' || item.role !== 'assistant') continue;
      for (const part of item.content) {
        if (part.type !== 'output_text') continue;
        for (const delta of part.text.match(/\S+\s*|\s+/g) ?? []) yield { type: 'output_text_delta', delta };
      }
    }
    yield {
      type: 'response_done',
      response: {
        id: response.responseId ?? 'resp_offline',
        usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        // The stream event's item type is narrower than ModelResponse's but the items are the same.
        output: response.output as never,
        providerData: response.providerData,
      },
    };
  }
}

/** Options for {@link createOfflineModelProvider}. */
export interface OfflineModelProviderOptions {
  /** The scenario, parsed or as a path to a `*.scenario.yml` file. */
  scenario: Scenario | ScenarioInput | string;
}

/** The offline model provider: one {@link OfflineModel} per agent, all sharing one id counter. */
/**
 * Gives the reply's tool calls ids that follow the calls already in the conversation
 * (`call_offline_<n>`). Derived from the request, not from a counter in this process: a run paused
 * for approval keeps its call ids in the stored SDK state and may resume in another process, and
 * the SDK refuses a call id reused for a different invocation. Same request, same ids.
 */
function numberCalls(output: OutputItem[], request: ModelRequest): OutputItem[] {
  let n = Array.isArray(request.input) ? request.input.filter((item) => (item as { type?: string }).type === 'function_call').length : 0;
  return output.map((item) => (item.type === 'function_call' ? { ...item, callId: `call_offline_${++n}` } : item));
}

export class OfflineModelProvider implements AgentAwareModelProvider {
  readonly label = OFFLINE_MODEL_LABEL;
  readonly scenario: Scenario;
  readonly #ids: IdSource;

  constructor(scenario: Scenario) {
    this.scenario = scenario;
    let n = 0;
    this.#ids = { next: (p) => `${p}_${++n}` };
  }

  getModel(modelName?: string): Model {
    return new OfflineModel({ scenario: this.scenario, agentKeys: [...(modelName ? [modelName] : []), '*'], ids: this.#ids });
  }

  getModelForAgent(agent: { agentId: string; modelName?: string }): Model {
    const keys = [agent.agentId, ...(agent.modelName ? [agent.modelName] : []), '*'];
    return new OfflineModel({ scenario: this.scenario, agentKeys: keys, ids: this.#ids });
  }
}

/** Creates the offline model provider from a scenario object or a scenario file path. */
export async function createOfflineModelProvider(options: OfflineModelProviderOptions): Promise<OfflineModelProvider> {
  if (typeof options.scenario === 'string') return new OfflineModelProvider(await loadScenarioFile(options.scenario));
  const parsed = ScenarioSchema.safeParse(options.scenario);
  if (!parsed.success) {
    throw new ScenarioError(parsed.error.issues.map((i) => `<scenario>:${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return new OfflineModelProvider(parsed.data);
}

/** The scenario used when none is given: any agent answers with a labelled echo of its input. */
export const DEFAULT_SCENARIO: Scenario = {
  version: 1,
  name: 'default',
  description: 'Built-in fallback: every agent replies with a labelled acknowledgement of its input.',
  agents: { '*': { rules: [{ when: {}, message: 'received: {{input}}' }] } },
};
