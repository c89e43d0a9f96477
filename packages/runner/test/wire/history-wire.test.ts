import { createGuardrailEngine } from '@baton/guardrail-server';
import { OpenAIProvider } from '@openai/agents-openai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import { startScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';
import type { RecordedRequest, ScriptedOpenAIServer, ScriptedTurn } from '../../src/testing/scripted-openai-server.js';
import { testTools, writeTwoAgents } from './fixtures.js';

// Real servers, SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

type Api = 'chat' | 'responses';
type Entry = Record<string, unknown>;

const conversation = (req: RecordedRequest): Entry[] => (req.api === 'chat' ? req.body.messages : req.body.input) as Entry[];
const toolNames = (req: RecordedRequest): string[] =>
  ((req.body.tools ?? []) as Entry[]).map((t) => String(req.api === 'chat' ? (t.function as Entry).name : t.name));

/** Triage decides from the current turn (after the last user entry): recall, load the case, or hand off; refunds answers. */
function script(req: RecordedRequest): ScriptedTurn {
  if (!toolNames(req).includes('get_case')) return { message: 'Refund of 10 approved for ORD-1.' };
  const entries = conversation(req);
  let last = entries.length - 1;
  while (last >= 0 && entries[last]!.role !== 'user') last--;
  const current = entries.slice(last);
  if (JSON.stringify(current[0]).includes('what did I ask')) return { message: 'You asked about a refund for CASE-7.' };
  const answered = current.some((e) => e.role === 'tool' || e.type === 'function_call_output');
  if (!answered) return { toolCalls: [{ name: 'get_case', arguments: { case_id: 'CASE-7' } }] };
  return {
    toolCalls: [
      {
        name: 'system__handoff',
        arguments: { target_agent_id: 'io.test.refunds', input: 'Refund order ORD-1 for case CASE-7.', state: { order_id: 'ORD-1' } },
      },
    ],
  };
}

/** Every tool call on the wire is answered, in the API's own format. */
function expectAnsweredCalls(req: RecordedRequest): void {
  const entries = conversation(req);
  const calls: string[] = [];
  const answers: string[] = [];
  for (const e of entries) {
    if (req.api === 'chat') {
      for (const c of (e.tool_calls ?? []) as Entry[]) calls.push(String(c.id));
      if (e.role === 'tool') answers.push(String(e.tool_call_id));
    } else {
      if (e.type === 'function_call') calls.push(String(e.call_id));
      if (e.type === 'function_call_output') answers.push(String(e.call_id));
    }
  }
  expect(calls.length).toBeGreaterThan(0);
  expect([...answers].sort()).toEqual([...calls].sort());
}

describe.each<Api>(['chat', 'responses'])('thread history through a real OpenAI model class (%s)', (api) => {
  let server: ScriptedOpenAIServer | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await server?.close();
    cleanup?.();
  });

  it('turn 2 carries turn 1 on the wire, every tool call answered, the handoff included', async () => {
    server = await startScriptedOpenAIServer({ script, api });
    const agents = writeTwoAgents();
    cleanup = agents.cleanup;
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      store: createMemoryThreadStore(),
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }),
    });
    const first = await runner.run({ agentId: 'io.test.triage', input: 'I want a refund for case CASE-7.' });
    expect(first.status, JSON.stringify(first.error)).toBe('completed');
    const before = server.requests.length;
    const second = await runner.run({ agentId: 'io.test.triage', threadId: first.thread_id, input: 'what did I ask before?' });
    expect(second.status, JSON.stringify(second.error)).toBe('completed');
    expect(second.response).toBe('You asked about a refund for CASE-7.');

    const wire = server.requests.slice(before);
    expect(wire).toHaveLength(1);
    const req = wire[0]!;
    const text = JSON.stringify(conversation(req));
    expect(text).toContain('I want a refund for case CASE-7.');
    expect(text).toContain('system__handoff');
    expect(text).toContain('Handed off to io.test.refunds');
    expect(text).not.toContain('Refund of 10 approved');
    expectAnsweredCalls(req);
    // Replayed in the request itself, never by reference to server-side state.
    expect(req.body.previous_response_id).toBeUndefined();
    expect(req.body.conversation).toBeUndefined();
  });
});
