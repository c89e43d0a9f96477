/**
 * Tool names on the wire: every path a name reaches the model by is checked against OpenAI's rule
 * (`^[a-zA-Z0-9_-]{1,64}$`, after the `::` → `__` mapping), and one tool never silently replaces
 * another. The accepted case goes through the real @openai/agents run loop and the wire name the
 * model saw is asserted.
 */
import { describe, expect, it } from 'vitest';
import { RegistryError, Runner, ToolNameError, type SystemTool } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider, type ScriptedProviderOptions } from '../../src/testing/index.js';

const A = 'io.baton.test.alpha';
const B = 'io.baton.test.beta';

function systemTool(name: string, execute: SystemTool['execute'] = () => 'done'): SystemTool {
  return { name, description: `system tool ${name}`, parameters: { type: 'object', properties: {}, required: [] }, execute };
}

function runner(
  options: {
    systemTools?: SystemTool[];
    yml?: string;
    tools?: ReturnType<typeof lookupTool>[];
    script?: ScriptedProviderOptions['scripts'];
  } = {},
) {
  const models = createScriptedProvider({ scripts: options.script ?? { alpha: [{ message: 'hi' }], beta: [{ message: 'beta here' }] } });
  const r = new Runner({
    registry: registry([manifest(A, { tools: options.tools ?? [lookupTool()] }), manifest(B)], options.yml),
    tools: { lookup_order: () => 'found' },
    guardrails: scriptedGuardrail().validator,
    modelProvider: models.provider,
    ...(options.systemTools ? { systemTools: options.systemTools } : {}),
  });
  return { runner: r, models };
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('tool names on every path', () => {
  it('createAgentRegistry refuses manifest tool names OpenAI would refuse, naming the tool and the character', () => {
    for (const [name, expected] of [
      ['ns::finish', /'ns::finish' contains ':' at position 3/],
      ['x'.repeat(70), /70 characters long; the limit is 64/],
      ['look up', /contains U\+0020 at position 5/],
      ['order\u200bstatus', /contains U\+200B at position 6/],
      ['', /tool name is empty/],
    ] as const) {
      const error = caught(() => registry([manifest(A, { tools: [lookupTool(name)] })]));
      expect(error).toBeInstanceOf(RegistryError);
      expect((error as RegistryError).message).toMatch(expected);
      expect((error as RegistryError).problems[0]!.pointer).toBe('/tools/0/function/name');
    }
    const dup = caught(() => registry([manifest(A, { tools: [lookupTool(), lookupTool()] })])) as RegistryError;
    expect(dup.message).toMatch(/tools\[1\]\.function\.name: 'lookup_order' is already tools\[0\]/);
  });

  it('baton.yml system_tools: bad names, duplicates and names of manifest tools are refused with their line', () => {
    const yml = (list: string) => `agents:\n  ${A}:\n    system_tools: ${list}\n`;
    const bad = caught(() =>
      registry([manifest(A, { tools: [lookupTool()] })], yml('[ "finish!", lookup_order, done, done, "Ns::x" ]')),
    ) as RegistryError;
    const messages = bad.problems.map((p) => `${p.line}: ${p.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/^3: .*system_tools\[0\]: tool name 'finish!' contains '!' at position 7/),
      expect.stringMatching(/^3: .*system_tools\[1\]: 'lookup_order' is also a tool in the agent's manifest/),
      expect.stringMatching(/^3: .*system_tools\[3\]: 'done' is listed twice/),
      expect.stringMatching(/^3: .*system_tools\[4\]: tool name 'Ns::x' goes on the wire as 'Ns__x', which reads back as 'Ns__x'/),
    ]);
  });

  it('RunnerOptions.systemTools: invalid and duplicate names are refused at construction', () => {
    const long = caught(() => runner({ systemTools: [systemTool('t'.repeat(65))] }));
    expect(long).toBeInstanceOf(ToolNameError);
    expect((long as ToolNameError).message).toMatch(/systemTools\[0\]: tool name is 65 characters long/);
    const colon = caught(() => runner({ systemTools: [systemTool('a:b')] })) as ToolNameError;
    expect(colon.message).toMatch(/'a:b' contains ':' at position 2/);
    expect(colon.tool).toBe('a:b');
    const dup = caught(() => runner({ systemTools: [systemTool('finish'), systemTool('finish')] })) as ToolNameError;
    expect(dup.code).toBe('TOOL_NAME_CONFLICT');
    expect(dup.message).toMatch(/systemTools\[1\]: a system tool named 'finish' is already given/);
    expect(() => runner({ systemTools: [systemTool('system::handoff')] })).toThrow(/reserved for the runner's handoff/);
  });

  it('RunRequest.systemTools: checked per request; a manifest tool or configured system tool is never replaced', async () => {
    const yml = `agents:\n  ${A}:\n    system_tools: [finish]\n    handoffs: [${B}]\n`;
    const { runner: r } = runner({ systemTools: [systemTool('finish')], yml });
    await expect(r.run({ agentId: A, input: 'x', systemTools: [systemTool('bad name')] })).rejects.toThrow(
      /systemTools\[0\]: tool name 'bad name' contains U\+0020 at position 4/,
    );
    await expect(r.run({ agentId: A, input: 'x', systemTools: [systemTool('y'), systemTool('y')] })).rejects.toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
    });
    await expect(r.run({ agentId: A, input: 'x', systemTools: [systemTool('lookup_order')] })).rejects.toThrow(
      /'lookup_order' is also a tool in io\.baton\.test\.alpha's manifest/,
    );
    await expect(r.run({ agentId: A, input: 'x', systemTools: [systemTool('finish')] })).rejects.toThrow(
      /already has the system tool 'finish'/,
    );
  });

  it('an agent reached by handoff whose manifest has the requested tool fails with TOOL_NAME_CONFLICT before its model is called', async () => {
    const yml = `agents:\n  ${A}:\n    handoffs: [${B}]\n`;
    const models = createScriptedProvider({
      scripts: {
        alpha: [{ toolCalls: [{ name: 'system__handoff', arguments: { target_agent_id: B, input: 'go' } }] }],
        beta: [{ message: 'beta here' }],
      },
    });
    const r = new Runner({
      registry: registry([manifest(A), manifest(B, { tools: [lookupTool('finish')] })], yml),
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    const result = await r.run({ agentId: A, input: 'x', systemTools: [systemTool('finish')] });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('TOOL_NAME_CONFLICT');
    expect(result.error?.message).toMatch(/two tools named 'finish'/);
    expect(models.requests['beta'] ?? []).toHaveLength(0);
  });

  it('a namespaced system tool goes on the wire as ns__finish and is recorded as ns::finish', async () => {
    const calls: unknown[] = [];
    const models = createScriptedProvider({
      scripts: { alpha: [{ toolCalls: [{ name: 'ns__finish', arguments: {} }] }, { message: 'finished' }] },
    });
    const r = new Runner({
      registry: registry([manifest(A)]),
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    const result = await r.run({ agentId: A, input: 'x', systemTools: [systemTool('ns::finish', (args) => (calls.push(args), 'ok'))] });
    expect(result.status).toBe('completed');
    expect(calls).toEqual([{}]);
    const offered = (models.requests['alpha']![0]!.tools as Array<{ name: string }>).map((t) => t.name);
    expect(offered).toEqual(['ns__finish']);
    for (const name of offered) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const items = await r.threadStore.listItems(result.thread_id);
    expect(items.map((i) => i.item).find((i) => i['type'] === 'function_call')).toMatchObject({ name: 'ns::finish' });
  });
});
