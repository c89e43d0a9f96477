import type { ModelRequest } from '@openai/agents-core';

/** What the offline model knows about a request: derived only from what the request carries. */
export interface ConversationFacts {
  /** The first user message of the current agent run (the last user message in the input). */
  input: string;
  /** Model turn within the current agent run, from 1. */
  turn: number;
  lastItem: 'user' | 'tool_output' | 'other';
  /** Text of the last user message or tool output. */
  lastText: string;
  /** Tool whose output is the last item, if it is one. */
  lastTool?: string;
  /** The latest output of each tool called in the current agent run. */
  toolOutputs: Record<string, string>;
  /** Tools called so far in the current agent run. */
  calledTools: Set<string>;
  /** Wire names of every tool offered (function tools and handoffs). */
  offeredTools: Set<string>;
  /** The handoff tool offered (one taking `target_agent_id` from an enum), if any. */
  handoffTool?: { name: string; targets: string[] };
  /** User messages of earlier turns replayed before the current one (thread history), oldest first. */
  earlierInputs: string[];
  /** Whether the request carries anything before the current user message (replayed turns or a summary). */
  hasHistory: boolean;
}

type Item = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('');
  if (content && typeof content === 'object') {
    const c = content as Item;
    if (typeof c.text === 'string') return c.text;
    if (typeof c.refusal === 'string') return c.refusal;
    if ('output' in c) return textOf(c.output);
  }
  return '';
}

function enumTargets(schema: unknown): string[] | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const props = (schema as { properties?: Record<string, { enum?: unknown }> }).properties;
  const values = props?.target_agent_id?.enum;
  return Array.isArray(values) && values.every((v) => typeof v === 'string') ? (values as string[]) : undefined;
}

/** Reads the conversation so far and the offered tools from a model request. */
export function readConversation(request: ModelRequest): ConversationFacts {
  const items: Item[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : (request.input as unknown as Item[]);
  let start = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    if ((items[i] as Item).role === 'user') {
      start = i;
      break;
    }
  }
  const current = items.slice(start);
  const earlierInputs = items
    .slice(0, start)
    .filter((i) => i.role === 'user')
    .map((i) => textOf(i.content));
  const first = current[0];
  const input = first && first.role === 'user' ? textOf(first.content) : '';
  const namesByCallId = new Map<string, string>();
  const toolOutputs: Record<string, string> = {};
  const calledTools = new Set<string>();
  let modelTurns = 0;
  let countedTurnForCurrentBatch = false;
  for (const item of current) {
    if (item.type === 'function_call') {
      calledTools.add(String(item.name));
      namesByCallId.set(String(item.callId), String(item.name));
      // Several calls in one model reply are one turn.
      if (!countedTurnForCurrentBatch) modelTurns++;
      countedTurnForCurrentBatch = true;
    } else if (item.type === 'function_call_result') {
      const name = String(item.name ?? namesByCallId.get(String(item.callId)) ?? '');
      toolOutputs[name] = textOf(item.output);
      countedTurnForCurrentBatch = false;
    } else if (item.role === 'assistant') {
      modelTurns++;
      countedTurnForCurrentBatch = false;
    }
  }
  const last = items[items.length - 1];
  let lastItem: ConversationFacts['lastItem'] = 'other';
  let lastText = '';
  let lastTool: string | undefined;
  if (last?.role === 'user') {
    lastItem = 'user';
    lastText = textOf(last.content);
  } else if (last?.type === 'function_call_result') {
    lastItem = 'tool_output';
    lastTool = String(last.name ?? namesByCallId.get(String(last.callId)) ?? '');
    lastText = textOf(last.output);
  }
  const offeredTools = new Set<string>();
  let handoffTool: ConversationFacts['handoffTool'];
  for (const tool of request.tools) {
    if (tool.type !== 'function') continue;
    offeredTools.add(tool.name);
    const targets = enumTargets(tool.parameters);
    if (targets && (!handoffTool || tool.name === 'system__handoff')) handoffTool = { name: tool.name, targets };
  }
  for (const h of request.handoffs) {
    offeredTools.add(h.toolName);
    const targets = enumTargets(h.inputJsonSchema);
    if (targets && (!handoffTool || h.toolName === 'system__handoff')) handoffTool = { name: h.toolName, targets };
  }
  return {
    input,
    turn: modelTurns + 1,
    lastItem,
    lastText,
    lastTool,
    toolOutputs,
    calledTools,
    offeredTools,
    handoffTool,
    earlierInputs,
    hasHistory: start > 0,
  };
}
