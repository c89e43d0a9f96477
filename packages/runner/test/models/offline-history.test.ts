import type { ModelRequest } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { OfflineModelProvider } from '../../src/models/offline-model.js';
import type { OfflineModel } from '../../src/models/offline-model.js';
import { parseScenario } from '../../src/models/scenario-loader.js';
import { ScenarioError } from '../../src/models/errors.js';

const SCENARIO = `
version: 1
name: history
agents:
  io.test.triage:
    rules:
      - when: { turn: 1, previous_input_matches: 'order (ORD-\\d+)' }
        message: 'Still about {{previous_input_match.1}}; first you said "{{earlier_inputs.0}}", last "{{previous_input}}".'
      - when: { turn: 1, has_history: true }
        message: 'We spoke before.'
      - when: { has_history: false }
        message: 'Hello, new conversation.'
`;

function request(input: ModelRequest['input']): ModelRequest {
  return { input, tools: [], handoffs: [], modelSettings: {}, outputType: 'text', tracing: false } as ModelRequest;
}
const model = new OfflineModelProvider(parseScenario(SCENARIO)).getModelForAgent({ agentId: 'io.test.triage' }) as OfflineModel;
const textOf = (r: ModelRequest) => JSON.stringify(model.decide(r).output);
const assistant = (text: string) => ({
  role: 'assistant' as const,
  status: 'completed' as const,
  content: [{ type: 'output_text' as const, text }],
});

describe('offline scenarios that refer to earlier turns', () => {
  it('has_history: false on a request with only the current message', () => {
    expect(textOf(request('hi'))).toContain('Hello, new conversation.');
    expect(textOf(request([{ role: 'user', content: 'hi' }]))).toContain('Hello, new conversation.');
  });

  it('previous_input_matches reads the latest earlier user message; earlier_inputs lists them all', () => {
    const r = request([
      { role: 'user', content: 'about order ORD-1' },
      assistant('ok'),
      { role: 'user', content: 'no wait, order ORD-2' },
      assistant('ok'),
      { role: 'user', content: 'which one?' },
    ]);
    expect(textOf(r)).toContain('Still about ORD-2; first you said \\"about order ORD-1\\", last \\"no wait, order ORD-2\\".');
  });

  it('has_history: true when earlier turns (or only a summary) precede the current message', () => {
    expect(textOf(request([{ role: 'user', content: 'hello' }, assistant('hi'), { role: 'user', content: 'again' }]))).toContain(
      'We spoke before.',
    );
    expect(
      textOf(
        request([
          { role: 'system', content: 'Summary: …' },
          { role: 'user', content: 'again' },
        ]),
      ),
    ).toContain('We spoke before.');
  });

  it('rejects a bad regex or a wrong type with where it is', () => {
    expect(() =>
      parseScenario(`version: 1\nname: x\nagents:\n  a:\n    rules:\n      - when: { previous_input_matches: '(' }\n        message: m\n`),
    ).toThrow(ScenarioError);
    expect(() =>
      parseScenario(`version: 1\nname: x\nagents:\n  a:\n    rules:\n      - when: { has_history: 'yes' }\n        message: m\n`),
    ).toThrow(/has_history/);
    expect(() => parseScenario(`version: 1\nname: x\nagents:\n  a:\n    rules:\n      - message: '{{previous_inputs}}'\n`)).toThrow(
      /unknown root 'previous_inputs'/,
    );
  });
});
