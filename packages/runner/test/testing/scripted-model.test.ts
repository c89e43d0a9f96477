// The one public scripted model: per-name scripts, ids, exhaustion and aborts.
import type { ModelRequest } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { createScriptedModel, createScriptedProvider, requestText } from '../../src/testing/index.js';

const request = (input: string, signal?: AbortSignal): ModelRequest =>
  ({
    input,
    modelSettings: {},
    tools: [],
    handoffs: [],
    outputType: 'text',
    tracing: false,
    ...(signal ? { signal } : {}),
  }) as unknown as ModelRequest;

describe('createScriptedProvider', () => {
  it('answers each model name from its own script, with stable ids, and records requests per name', async () => {
    const models = createScriptedProvider({
      scripts: {
        triage: [
          {
            toolCalls: [
              { name: 'lookup', arguments: { id: 1 } },
              { name: 'raw', arguments: '{"x":2}', id: 'mine' },
            ],
          },
          { message: 'done' },
        ],
        refunds: (req, i) => ({ message: `refunds ${i}: ${requestText(req)}` }),
      },
    });
    const triage = models.provider.getModel('triage') as Awaited<ReturnType<typeof models.provider.getModel>>;
    const first = await triage.getResponse(request('hello'));
    expect(first.responseId).toBe('resp_triage_1');
    expect(first.output).toEqual([
      { type: 'function_call', callId: 'call_triage_1_1', name: 'lookup', status: 'completed', arguments: '{"id":1}' },
      { type: 'function_call', callId: 'mine', name: 'raw', status: 'completed', arguments: '{"x":2}' },
    ]);
    expect((await triage.getResponse(request('again'))).output).toEqual([
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] },
    ]);
    const refunds = await models.provider.getModel('refunds');
    const reply = await refunds.getResponse(request('packet'));
    expect(reply.output[0]).toMatchObject({ content: [{ text: 'refunds 0: packet' }] });
    expect(Object.keys(models.requests).sort()).toEqual(['refunds', 'triage']);
    expect(models.requests['triage']!.map(requestText)).toEqual(['hello', 'again']);
    // The same name is the same model: its script continues rather than restarting.
    await expect((await models.provider.getModel('triage')).getResponse(request('third'))).rejects.toMatchObject({
      code: 'SCRIPT_EXHAUSTED',
      message: "scripted model 'triage': script exhausted after 2 replies (request 3)",
    });
  });

  it('fails for a model name without a script, and for a scripted error', async () => {
    const models = createScriptedProvider({ scripts: { a: [{ error: { status: 500, message: 'model down' } }] } });
    expect(() => models.provider.getModel('b')).toThrow(/no script for model 'b' \(scripts: a\)/);
    await expect((await models.provider.getModel('a')).getResponse(request('x'))).rejects.toThrow("scripted model 'a': model down");
  });

  it('waits delayMs honouring the abort signal, and lists the aborted model', async () => {
    const models = createScriptedProvider({ scripts: { slow: [{ delayMs: 600_000, message: 'never' }] } });
    const controller = new AbortController();
    const pending = (await models.provider.getModel('slow')).getResponse(request('x', controller.signal));
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    expect(models.aborted).toEqual(['slow']);
  });
});

describe('createScriptedModel', () => {
  it('is the same model with one script for every name', async () => {
    const { provider, requests } = createScriptedModel({ script: [{ message: 'one' }, { toolCalls: [{ name: 't', arguments: {} }] }] });
    expect((await (await provider.getModel('anything')).getResponse(request('a'))).responseId).toBe('resp_scripted_1');
    expect((await (await provider.getModel()).getResponse(request('b'))).output[0]).toMatchObject({ callId: 'call_2_1', name: 't' });
    expect(requests.map(requestText)).toEqual(['a', 'b']);
  });
});
