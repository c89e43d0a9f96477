import { createGuardrailEngine } from '@baton/guardrail-server';
import { OpenAIProvider } from '@openai/agents-openai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryThreadStore, loadAgentRegistry, Runner, type RunnerEvent } from '../../src/index.js';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedOpenAIServer, type ScriptedTurn } from '../../src/testing/index.js';
import { CANARY, testTools, writeTwoAgents } from './fixtures.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const ANSWER = ['Refund of 10 approved for ORD-1. ', 'Details [here](https://evil.example/r?em', 'ail=ana@example.com) and more. ', 'Bye.'];

/** Triage loads the case and hands off; refunds answers in chunks (a data-carrying link split in two). */
function script(req: RecordedRequest): ScriptedTurn {
  const tools = (req.body.tools ?? []) as Array<{ name: string; parameters?: { properties?: { target_agent_id?: { enum?: string[] } } } }>;
  const text = JSON.stringify(req.body.input);
  if (tools.some((t) => t.name === 'get_case')) {
    if (!text.includes(CANARY)) return { toolCalls: [{ name: 'get_case', arguments: { case_id: 'CASE-7' } }] };
    const target = tools.find((t) => t.name === 'system__handoff')?.parameters?.properties?.target_agent_id?.enum?.[0] ?? 'missing';
    return {
      toolCalls: [
        {
          name: 'system__handoff',
          arguments: { target_agent_id: target, input: 'Refund order ORD-1 for case CASE-7.', state: { order_id: 'ORD-1' } },
        },
      ],
    };
  }
  return { chunks: ANSWER };
}

describe('streamed answers from the real OpenAI Responses model class over HTTP', () => {
  let server: ScriptedOpenAIServer | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await server?.close();
    cleanup?.();
  });

  it('streams over the wire, releases checked text before the model has finished, and catches a split link', async () => {
    let sawText: () => void = () => undefined;
    const textSeen = new Promise<'text'>((resolve) => (sawText = () => resolve('text')));
    let lastChunkReleasedBy: string | undefined;
    server = await startScriptedOpenAIServer({
      script,
      api: 'responses',
      // The model's last chunk waits until the caller has seen released text: only a real stream
      // gets there (a runner that waited for the whole answer would hit the fallback instead).
      beforeChunk: async ({ chunk }) => {
        if (chunk !== ANSWER.length - 1) return;
        lastChunkReleasedBy = await Promise.race([textSeen, new Promise<'fallback'>((r) => setTimeout(() => r('fallback'), 30_000))]);
      },
    });
    const agents = writeTwoAgents();
    cleanup = agents.cleanup;
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      store: createMemoryThreadStore(),
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
    });
    const events: RunnerEvent[] = [];
    const result = await runner.run({
      agentId: 'io.test.triage',
      input: 'I want a refund for case CASE-7',
      stream: true,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'text_delta') sawText();
      },
    });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
    expect(lastChunkReleasedBy).toBe('text');
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []));
    expect(text[0]).toBe('Refund of 10 approved for ORD-1. ');
    expect(text.join('')).toBe(result.response);
    expect(result.response).toBe('Refund of 10 approved for ORD-1. Details [here]([REMOVED:LINK]) and more. Bye.');
    expect(JSON.stringify(events)).not.toContain('evil.example');
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['run_start', 'tool_start', 'tool_end', 'handoff', 'run_end']));
  });
});
