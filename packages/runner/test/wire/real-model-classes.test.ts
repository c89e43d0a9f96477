import { createGuardrailEngine } from '@baton/guardrail-server';
import { OpenAIProvider } from '@openai/agents-openai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import { startScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';
import type { RecordedRequest, ScriptedOpenAIServer, ScriptedTurn } from '../../src/testing/scripted-openai-server.js';
import { CANARY, testTools, writeTwoAgents } from './fixtures.js';

// Real servers, subprocess-free but SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

type Api = 'chat' | 'responses';

interface WireTool {
  name: string;
  parameters: { properties?: Record<string, { enum?: string[] }> };
}

/** Tools as the wire carries them, for either API. */
function wireTools(req: RecordedRequest): WireTool[] {
  const tools = (req.body.tools ?? []) as Array<Record<string, unknown>>;
  return tools.map((t) => (req.api === 'chat' ? (t.function as WireTool) : (t as unknown as WireTool)));
}

/** Every text the request carries (messages or input items), serialised. */
function wireConversation(req: RecordedRequest): unknown[] {
  return (req.api === 'chat' ? req.body.messages : req.body.input) as unknown[];
}

/**
 * The script a real model would follow: triage loads the case, then hands off using the target
 * from the offered enum; refunds answers. It decides only from what the wire request contains.
 */
function script(req: RecordedRequest): ScriptedTurn {
  const names = wireTools(req).map((t) => t.name);
  const text = JSON.stringify(wireConversation(req));
  if (names.includes('get_case')) {
    if (!text.includes(CANARY)) return { toolCalls: [{ name: 'get_case', arguments: { case_id: 'CASE-7' } }] };
    const handoff = wireTools(req).find((t) => t.name === 'system__handoff');
    const target = handoff?.parameters.properties?.target_agent_id?.enum?.[0] ?? 'missing';
    return {
      toolCalls: [
        {
          name: 'system__handoff',
          arguments: { target_agent_id: target, input: 'Refund order ORD-1 for case CASE-7.', state: { order_id: 'ORD-1' } },
        },
      ],
    };
  }
  return { message: 'Refund of 10 approved for ORD-1.' };
}

describe.each<Api>(['chat', 'responses'])('real OpenAI model class over HTTP (%s)', (api) => {
  let server: ScriptedOpenAIServer | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await server?.close();
    cleanup?.();
  });

  it('runs a whole handoff; the target sees only the handoff input', async () => {
    server = await startScriptedOpenAIServer({ script, api });
    const agents = writeTwoAgents();
    cleanup = agents.cleanup;
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const provider = new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' });
    const store = createMemoryThreadStore();
    const captured: Array<{ agentId: string; sequence: number }> = [];
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: provider,
      modelLabel: `openai-compatible (${server.url})`,
      onModelRequest: (e) => void captured.push({ agentId: e.agentId, sequence: e.sequence }),
    });

    const result = await runner.run({ agentId: 'io.test.triage', input: 'I want a refund for case CASE-7, I am very upset about it.' });

    expect(result.status).toBe('completed');
    expect(result.agent_id).toBe('io.test.refunds');
    expect(result.runs.map((r) => [r.agent_id, r.status])).toEqual([
      ['io.test.triage', 'cancelled'],
      ['io.test.refunds', 'completed'],
    ]);
    expect(result.response).toBe('Refund of 10 approved for ORD-1.');
    expect(result.state).toMatchObject({ order_id: 'ORD-1' });

    const requests = server.requests;
    expect(requests.map((r) => r.path)).toEqual(Array(3).fill(api === 'chat' ? '/v1/chat/completions' : '/v1/responses'));
    expect(captured.map((c) => c.agentId)).toEqual(['io.test.triage', 'io.test.triage', 'io.test.refunds']);

    // The handoff is offered as system__handoff with the configured targets as an enum.
    const handoffTool = wireTools(requests[0]!).find((t) => t.name === 'system__handoff');
    expect(handoffTool?.parameters.properties?.target_agent_id?.enum).toEqual(['io.test.refunds']);

    // The target's request holds its instructions and the handoff input, nothing of the source's history.
    const target = requests[2]!;
    const targetText = JSON.stringify(target.body);
    expect(targetText).toContain('Refund order ORD-1 for case CASE-7.');
    expect(targetText).not.toContain(CANARY);
    expect(targetText).not.toContain('very upset');
    expect(targetText).not.toContain('get_case');
    expect(wireTools(target).map((t) => t.name)).toEqual(['get_order']);
    const userTexts = wireConversation(target).filter((m) => (m as { role?: string }).role === 'user');
    expect(userTexts).toHaveLength(1);
    // Baton keeps the thread itself: no server-side conversation state on any request.
    for (const r of requests) {
      expect(r.body).not.toHaveProperty('previous_response_id');
      expect(r.body).not.toHaveProperty('conversation');
    }
    // The handoff call's output never went back to the source agent: no request carries it.
    for (const r of requests) {
      const items = wireConversation(r) as Array<Record<string, unknown>>;
      const outputs = items.filter((i) => i.role === 'tool' || i.type === 'function_call_output');
      expect(JSON.stringify(outputs)).not.toContain('system__handoff');
    }
    const thread = await store.getThread(result.thread_id);
    expect(thread?.state).toMatchObject({ order_id: 'ORD-1' });
  });

  it('turns an upstream HTTP error into a failed run with a clear error, not a crash', async () => {
    server = await startScriptedOpenAIServer({ script: [{ error: { status: 500, message: 'upstream exploded' } }], api });
    const agents = writeTwoAgents();
    cleanup = agents.cleanup;
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }),
    });
    const result = await runner.run({ agentId: 'io.test.triage', input: 'hello' });
    expect(result.status).toBe('failed');
    expect(result.runs[0]!.error?.message).toMatch(/upstream exploded|500/);
  });
});
