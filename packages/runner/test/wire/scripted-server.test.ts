import { Agent, Runner, tool } from '@openai/agents-core';
import { OpenAIChatCompletionsModel, OpenAIResponsesModel } from '@openai/agents-openai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { startScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';
import type { ScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';

// Real servers, subprocess-free but SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe('startScriptedOpenAIServer', () => {
  let server: ScriptedOpenAIServer | undefined;
  afterEach(() => server?.close());

  const lookup = tool({
    name: 'lookup',
    description: 'look up',
    parameters: z.object({ id: z.string() }),
    execute: ({ id }) => `found ${id}`,
  });

  it('serves the real OpenAIChatCompletionsModel a tool call, then a message, and records bodies as sent', async () => {
    server = await startScriptedOpenAIServer({
      api: 'chat',
      script: [{ toolCalls: [{ name: 'lookup', arguments: { id: 'X1' }, id: 'call_a' }] }, { message: 'done: X1' }],
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const agent = new Agent({ name: 'a', instructions: 'sys', tools: [lookup], model: new OpenAIChatCompletionsModel(client, 'm-chat') });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'find X1');
    expect(result.finalOutput).toBe('done: X1');
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1]!;
    expect(JSON.parse(second.raw)).toEqual(second.body);
    expect(second.body.model).toBe('m-chat');
    expect(second.body.messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          role: 'assistant',
          tool_calls: [expect.objectContaining({ id: 'call_a', function: { name: 'lookup', arguments: '{"id":"X1"}' } })],
        }),
        expect.objectContaining({ role: 'tool', tool_call_id: 'call_a', content: 'found X1' }),
      ]),
    );
    expect(second.headers.authorization).toBe('Bearer test');
  });

  it('serves the real OpenAIResponsesModel', async () => {
    server = await startScriptedOpenAIServer({
      api: 'responses',
      script: [{ toolCalls: [{ name: 'lookup', arguments: '{"id":"Y2"}' }] }, { message: 'done: Y2' }],
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const agent = new Agent({ name: 'a', instructions: 'sys', tools: [lookup], model: new OpenAIResponsesModel(client, 'm-resp') });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'find Y2');
    expect(result.finalOutput).toBe('done: Y2');
    const second = server.requests[1]!;
    expect(second.path).toBe('/v1/responses');
    expect(second.body.input).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'function_call_output', output: 'found Y2' })]),
    );
  });

  it('answers 404 for the other API, 400 for bad JSON or streaming, and 500 when the script runs out', async () => {
    server = await startScriptedOpenAIServer({ api: 'chat', script: [] });
    const post = (path: string, body: string) =>
      fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('/responses', '{}')).status).toBe(404);
    const bad = await post('/chat/completions', '{nope');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/bad JSON/);
    expect((await post('/chat/completions', '{"stream":true}')).status).toBe(400);
    const exhausted = await post('/chat/completions', '{"model":"m"}');
    expect(exhausted.status).toBe(500);
    expect(((await exhausted.json()) as { error: { message: string } }).error.message).toMatch(/script exhausted after 0 replies/);
  });

  it('lets a script function decide from the request', async () => {
    server = await startScriptedOpenAIServer({ script: (req, i) => ({ message: `${req.api}#${i}` }) });
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const r1 = await new Runner({ tracingDisabled: true }).run(
      new Agent({ name: 'a', model: new OpenAIResponsesModel(client, 'm') }),
      'hi',
    );
    const r2 = await new Runner({ tracingDisabled: true }).run(
      new Agent({ name: 'a', model: new OpenAIChatCompletionsModel(client, 'm') }),
      'hi',
    );
    expect([r1.finalOutput, r2.finalOutput]).toEqual(['responses#0', 'chat#1']);
  });
});
