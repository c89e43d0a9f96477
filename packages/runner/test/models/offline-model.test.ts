import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, Runner, tool } from '@openai/agents-core';
import type { ModelRequest } from '@openai/agents-core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ScenarioError } from '../../src/models/errors.js';
import { getModelForAgent } from '../../src/models/agent-model.js';
import { OfflineModelProvider, createOfflineModelProvider } from '../../src/models/offline-model.js';
import type { OfflineModel } from '../../src/models/offline-model.js';
import { loadScenarioFile, parseScenario } from '../../src/models/scenario-loader.js';

// Real servers, subprocess-free but SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const SCENARIO = `
version: 1
name: unit
agents:
  io.test.triage:
    rules:
      - name: look up the case
        when: { turn: 1, input_matches: 'case\\s*#?([A-Z0-9-]+)' }
        call: { name: get_case, arguments: { case_id: '{{input_match.1}}' } }
      - name: refunds go to a specialist
        when: { tool: get_case, last_text_matches: 'refund' }
        handoff:
          target: refund
          input: 'Refund for case {{last_tool_output.json.case_id}} ({{last_tool_output.json.amount}})'
          state: { case_id: '{{last_tool_output.json.case_id}}', amount: '{{last_tool_output.json.amount}}' }
      - when: { tool: get_case }
        message: 'Case {{tool_outputs.get_case.json.case_id}} needs no refund.'
      - message: 'Please tell me your case number.'
  '*':
    rules:
      - message: 'echo {{input}}'
`;

function functionTool(
  name: string,
  parameters: Record<string, unknown> = { type: 'object', properties: {}, required: [], additionalProperties: false },
) {
  return { type: 'function' as const, name, description: name, parameters: parameters as never, strict: true };
}

const handoffTool = functionTool('system__handoff', {
  type: 'object',
  properties: {
    target_agent_id: { type: 'string', enum: ['io.test.billing', 'io.test.refunds'] },
    input: { type: 'string' },
    state: { type: 'object' },
  },
  required: ['target_agent_id', 'input', 'state'],
  additionalProperties: false,
});

function request(input: ModelRequest['input'], tools = [functionTool('get_case'), handoffTool]): ModelRequest {
  return { input, tools, handoffs: [], modelSettings: {}, outputType: 'text', tracing: false } as ModelRequest;
}

const provider = new OfflineModelProvider(parseScenario(SCENARIO));
const triage = provider.getModelForAgent({ agentId: 'io.test.triage', modelName: 'gpt-4.1' }) as OfflineModel;

describe('offline model', () => {
  it('calls the tool named by the first matching rule, with regex groups templated in', async () => {
    const res = await triage.getResponse(request('Hi, about case #C-1042 please'));
    expect(res.output).toHaveLength(1);
    expect(res.output[0]).toMatchObject({ type: 'function_call', name: 'get_case', status: 'completed' });
    expect(JSON.parse((res.output[0] as { arguments: string }).arguments)).toEqual({ case_id: 'C-1042' });
    expect(res.providerData).toMatchObject({ model: 'offline model', rule: 'look up the case' });
  });

  it('hands off to the offered enum target chosen by regex, templating input and state from the tool output', async () => {
    const res = await triage.getResponse(
      request([
        { role: 'user', content: 'case C-1042' },
        { type: 'function_call', callId: 'c1', name: 'get_case', arguments: '{"case_id":"C-1042"}', status: 'completed' },
        {
          type: 'function_call_result',
          callId: 'c1',
          name: 'get_case',
          status: 'completed',
          output: { type: 'text', text: '{"case_id":"C-1042","amount":42,"topic":"refund"}' },
        },
      ]),
    );
    const call = res.output[0] as { name: string; arguments: string };
    expect(call.name).toBe('system__handoff');
    expect(JSON.parse(call.arguments)).toEqual({
      target_agent_id: 'io.test.refunds',
      input: 'Refund for case C-1042 (42)',
      state: { case_id: 'C-1042', amount: 42 },
    });
  });

  it('skips a handoff rule when no handoff tool is offered, and labels messages', async () => {
    const res = await triage.getResponse(
      request(
        [
          { role: 'user', content: 'case C-1' },
          { type: 'function_call', callId: 'c1', name: 'get_case', arguments: '{}', status: 'completed' },
          {
            type: 'function_call_result',
            callId: 'c1',
            name: 'get_case',
            status: 'completed',
            output: '{"case_id":"C-1","topic":"refund"}',
          },
        ],
        [functionTool('get_case')],
      ),
    );
    expect(res.output[0]).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: '[offline model] Case C-1 needs no refund.' }],
    });
  });

  it('skips a call rule whose tool is not offered', async () => {
    const res = await triage.getResponse(request('case C-9', [handoffTool]));
    expect(res.output[0]).toMatchObject({ type: 'message', content: [{ text: '[offline model] Please tell me your case number.' }] });
  });

  it('falls back to `*` by model name and says so when nothing matches', async () => {
    const other = provider.getModel('some-model');
    const res = await other.getResponse(request('hello'));
    expect(res.output[0]).toMatchObject({ content: [{ text: '[offline model] echo hello' }] });
    const none = new OfflineModelProvider(parseScenario('version: 1\nname: empty\nagents:\n  a.b:\n    rules:\n      - message: hi\n'));
    const res2 = await none.getModel('x').getResponse(request('hello'));
    expect((res2.output[0] as { content: Array<{ text: string }> }).content[0]!.text).toMatch(
      /^\[offline model\] scenario 'empty' has no rule for agent 'x' at turn 1/,
    );
  });

  it('is deterministic: the same requests give the same outputs on a fresh provider', async () => {
    const run = async () => {
      const p = new OfflineModelProvider(parseScenario(SCENARIO));
      const m = p.getModelForAgent({ agentId: 'io.test.triage' });
      return [await m.getResponse(request('case A-1')), await m.getResponse(request('case A-2'))].map((r) => r.output);
    };
    expect(await run()).toEqual(await run());
  });

  it('streams one response_done event with the same output', async () => {
    const events = [];
    for await (const e of triage.getStreamedResponse(request('case Z-1'))) events.push(e);
    const done = events.find((e) => e.type === 'response_done') as { response: { output: Array<{ name: string }> } };
    expect(done.response.output[0]!.name).toBe('get_case');
  });

  it('getModelForAgent falls back to getModel for providers without agent awareness', async () => {
    const seen: Array<string | undefined> = [];
    const plain = { getModel: (name?: string) => (seen.push(name), triage) };
    await getModelForAgent(plain, { agentId: 'a.b', modelName: 'gpt-x' });
    expect(seen).toEqual(['gpt-x']);
  });

  it('drives the real @openai/agents run loop through a tool call to a final message', async () => {
    const getCase = tool({
      name: 'get_case',
      description: 'look up a case',
      parameters: z.object({ case_id: z.string() }),
      execute: ({ case_id }) => JSON.stringify({ case_id, amount: 10, topic: 'billing' }),
    });
    const agent = new Agent({ name: 'triage', instructions: 'x', tools: [getCase], model: triage });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'case Q-7');
    expect(result.finalOutput).toBe('[offline model] Case Q-7 needs no refund.');
  });
});

describe('scenario files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-scenario-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports every problem with file:line:col', () => {
    const text = [
      'version: 1',
      'name: bad',
      'agents:',
      '  a.b:',
      '    rules:',
      '      - when: { turn: 0 }',
      "        message: 'hi {{nope}}'",
      '      - call: { name: x }',
      '        message: both',
    ].join('\n');
    try {
      parseScenario(text, 'bad.scenario.yml');
      expect.fail('should throw');
    } catch (err) {
      expect(err).toBeInstanceOf(ScenarioError);
      const problems = (err as ScenarioError).problems;
      expect(problems).toContainEqual(expect.stringMatching(/^bad\.scenario\.yml:6:\d+: .*(>=1|at least|too small)/i));
      expect(problems).toContainEqual(expect.stringMatching(/^bad\.scenario\.yml:7:18: template '\{\{nope\}\}' uses unknown root 'nope'/));
      expect(problems).toContainEqual(expect.stringMatching(/^bad\.scenario\.yml:8:\d+: a rule needs exactly one of/));
    }
  });

  it('rejects duplicate keys, bad regexes and YAML syntax errors with positions', () => {
    expect(() => parseScenario('version: 1\nversion: 1\n', 'd.yml')).toThrow(/^d\.yml:2:1: /);
    expect(() =>
      parseScenario(
        "version: 1\nname: r\nagents:\n  a.b:\n    rules:\n      - when: { input_matches: '(' }\n        message: x\n",
        'r.yml',
      ),
    ).toThrow(/r\.yml:6:\d+: not a valid regular expression/);
    expect(() => parseScenario('version: [1\n', 's.yml')).toThrow(/^s\.yml:\d+:\d+: /);
  });

  it('loads from a file and says when the file is missing', async () => {
    const file = join(dir, 'ok.scenario.yml');
    writeFileSync(file, SCENARIO);
    expect((await loadScenarioFile(file)).name).toBe('unit');
    expect((await createOfflineModelProvider({ scenario: file })).scenario.agents['io.test.triage']!.rules).toHaveLength(4);
    await expect(loadScenarioFile(join(dir, 'missing.yml'))).rejects.toThrow(/missing\.yml:1:1: cannot read scenario file: ENOENT/);
  });

  it('validates scenario objects too', async () => {
    await expect(createOfflineModelProvider({ scenario: { version: 2 } as never })).rejects.toBeInstanceOf(ScenarioError);
  });
});

describe('simulated latency', () => {
  const request = (signal?: AbortSignal) =>
    ({
      systemInstructions: 'x',
      input: 'hello',
      modelSettings: {},
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
      ...(signal ? { signal } : {}),
    }) as unknown as ModelRequest;

  it('waits latency_ms per call, and an abort cuts the wait short', async () => {
    const fast = await createOfflineModelProvider({
      scenario: { version: 1, name: 'slow', latency_ms: 150, agents: { '*': { rules: [{ when: {}, message: 'ok' }] } } },
    });
    const started = performance.now();
    await (fast.getModel('any') as OfflineModel).getResponse(request());
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    // A long latency that an abort must cut short.
    const slow = await createOfflineModelProvider({
      scenario: { version: 1, name: 'slower', latency_ms: 20_000, agents: { '*': { rules: [{ when: {}, message: 'ok' }] } } },
    });
    const model = slow.getModel('any') as OfflineModel;
    const controller = new AbortController();
    const aborted = model.getResponse(request(controller.signal));
    setTimeout(() => controller.abort(new Error('stop')), 10);
    // Only the abort can make it reject (the 20 s wait would resolve): no elapsed-time bound needed.
    await expect(aborted).rejects.toThrow();
  });

  it('refuses a negative or huge latency with the scenario path in the message', async () => {
    await expect(
      createOfflineModelProvider({ scenario: { version: 1, name: 'bad', latency_ms: -1, agents: {} } as never }),
    ).rejects.toThrow(/latency_ms/);
    await expect(
      createOfflineModelProvider({ scenario: { version: 1, name: 'bad', latency_ms: 600_000, agents: {} } as never }),
    ).rejects.toThrow(/latency_ms/);
  });
});
