import { fileURLToPath } from 'node:url';
import type { ModelRequest } from '@openai/agents-core';
import { Agent, Runner } from '@openai/agents-core';
import { describe, expect, it, vi } from 'vitest';
import { readConversation } from '../../src/models/conversation.js';
import { loadScenarioFile } from '../../src/models/scenario-loader.js';
import { renderString, renderValue } from '../../src/models/template.js';
import type { TemplateScope } from '../../src/models/template.js';
import { createScriptedModel } from '../../src/testing/index.js';

// Real servers, subprocess-free but SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const scope: TemplateScope = {
  input: 'refund case C-1',
  last_text: '{"a":{"b":[1,2]},"n":5}',
  last_tool_output: '{"a":{"b":[1,2]},"n":5}',
  tool_outputs: { get_case: '{"case_id":"C-1"}', plain: 'not json' },
  match: ['C-1', 'C'],
  input_match: [],
  turn: 2,
  agent: 'io.x.y',
  target: 'io.x.z',
  previous_input: '',
  previous_input_match: [],
  earlier_inputs: [],
};

describe('templates', () => {
  it('interpolates paths, parses JSON with the json segment and renders missing values as empty', () => {
    expect(renderString('{{input}} / {{ match.1 }} / {{turn}} / {{tool_outputs.get_case.json.case_id}}', scope)).toBe(
      'refund case C-1 / C / 2 / C-1',
    );
    expect(renderString('[{{tool_outputs.plain.json.x}}] [{{last_tool_output.json.missing.deeper}}] [{{match.9}}]', scope)).toBe(
      '[] [] []',
    );
    expect(renderString('{{last_tool_output.json.a}}', scope)).toBe('{"b":[1,2]}');
  });

  it('keeps the JSON type of a whole-string placeholder inside values', () => {
    expect(
      renderValue(
        {
          arr: '{{last_tool_output.json.a.b}}',
          n: '{{last_tool_output.json.n}}',
          s: 'n={{last_tool_output.json.n}}',
          keep: 3,
          nested: ['{{agent}}'],
        },
        scope,
      ),
    ).toEqual({
      arr: [1, 2],
      n: 5,
      s: 'n=5',
      keep: 3,
      nested: ['io.x.y'],
    });
  });
});

describe('readConversation', () => {
  it('finds the handoff enum on SDK handoffs too and counts turns from the last user message', () => {
    const request = {
      input: [
        { role: 'user', content: 'old question' },
        { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'old answer' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'new question' }] },
        { type: 'function_call', callId: 'a', name: 't1', arguments: '{}', status: 'completed' },
        { type: 'function_call', callId: 'b', name: 't2', arguments: '{}', status: 'completed' },
        { type: 'function_call_result', callId: 'a', name: 't1', status: 'completed', output: 'one' },
        { type: 'function_call_result', callId: 'b', name: 't2', status: 'completed', output: [{ type: 'input_text', text: 'two' }] },
      ],
      tools: [],
      handoffs: [
        {
          toolName: 'system__handoff',
          toolDescription: '',
          strictJsonSchema: true,
          inputJsonSchema: { type: 'object', properties: { target_agent_id: { type: 'string', enum: ['a.b', 'c.d'] } } },
        },
      ],
      modelSettings: {},
      outputType: 'text',
      tracing: false,
    } as unknown as ModelRequest;
    const facts = readConversation(request);
    expect(facts.input).toBe('new question');
    expect(facts.turn).toBe(2);
    expect(facts.lastItem).toBe('tool_output');
    expect(facts.lastTool).toBe('t2');
    expect(facts.lastText).toBe('two');
    expect(facts.toolOutputs).toEqual({ t1: 'one', t2: 'two' });
    expect([...facts.calledTools]).toEqual(['t1', 't2']);
    expect(facts.handoffTool).toEqual({ name: 'system__handoff', targets: ['a.b', 'c.d'] });
  });
});

describe('example scenario', () => {
  it('examples/scenarios/support.scenario.yml is valid', async () => {
    const file = fileURLToPath(new URL('../../../../examples/scenarios/support.scenario.yml', import.meta.url));
    const scenario = await loadScenarioFile(file);
    expect(Object.keys(scenario.agents)).toEqual(['io.baton.examples.triage', 'io.baton.examples.refunds']);
  });
});

describe('createScriptedModel', () => {
  it('replies in order through the real run loop, records requests, and says when it runs out', async () => {
    const { model, requests } = createScriptedModel({ script: [{ message: 'one' }] });
    const runner = new Runner({ tracingDisabled: true });
    const result = await runner.run(new Agent({ name: 'a', model }), 'hi');
    expect(result.finalOutput).toBe('one');
    expect(requests).toHaveLength(1);
    await expect(runner.run(new Agent({ name: 'a', model }), 'again')).rejects.toThrow(/script exhausted after 1 replies/);
  });

  it('honours the abort signal during simulated latency', async () => {
    const { model } = createScriptedModel({ script: [{ message: 'late' }], latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = model.getResponse({
      input: 'x',
      tools: [],
      handoffs: [],
      modelSettings: {},
      outputType: 'text',
      tracing: false,
      signal: controller.signal,
    } as ModelRequest);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
