import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, Runner, type ToolImplementation } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail, type ScriptedDecision } from '@baton/manifest/testing';
import { requestText, createScriptedProvider, type ScriptedToolCall } from '../../src/testing/index.js';
import type { GuardrailRequest } from '@baton/manifest';

const AGENT = 'io.baton.test.clerk';

/** One tool call, then a final message; returns what the tool got and what the model saw next. */
async function runOneCall(
  call: ScriptedToolCall,
  options: { decide?: (r: GuardrailRequest) => ScriptedDecision | undefined; impl?: ToolImplementation; noImpl?: boolean } = {},
) {
  const models = createScriptedProvider({ scripts: { clerk: [{ toolCalls: [call] }, { message: 'done' }] } });
  const guard = scriptedGuardrail(options.decide);
  const received: Array<Record<string, unknown>> = [];
  const impl: ToolImplementation = options.impl ?? ((args) => (received.push(args), { found: true, order_id: args['order_id'] }));
  const store = createMemoryThreadStore();
  const runner = new Runner({
    registry: registry([manifest(AGENT, { tools: [lookupTool()] })]),
    tools: options.noImpl ? {} : { lookup_order: impl },
    guardrails: guard.validator,
    store,
    modelProvider: models.provider,
  });
  const result = await runner.run({ agentId: AGENT, input: 'look up my order' });
  const second = models.requests['clerk']![1]!;
  const items = await store.listItems(result.thread_id);
  return { result, received, toolResultSeen: requestText(second), guard, items };
}

describe('tool calls', () => {
  it('runs a tool with schema-valid arguments and returns its output to the model', async () => {
    const { result, received, toolResultSeen } = await runOneCall({ name: 'lookup_order', arguments: { order_id: '42' } });
    expect(result.status).toBe('completed');
    expect(received).toEqual([{ order_id: '42' }]);
    expect(toolResultSeen).toContain('\\"found\\":true');
  });

  it('never calls the tool with schema-invalid arguments; the model gets a clear error', async () => {
    const { result, received, toolResultSeen, guard } = await runOneCall({
      name: 'lookup_order',
      arguments: { order_id: 'abc', extra: 1 },
    });
    expect(result.status).toBe('completed');
    expect(received).toEqual([]);
    expect(toolResultSeen).toContain("invalid arguments for tool 'lookup_order'");
    expect(toolResultSeen).toContain('arguments/order_id must match pattern');
    expect(toolResultSeen).toContain("unknown property 'extra'");
    expect(guard.requests.some((r) => r.action_type === 'TOOL_CALL')).toBe(false);
  });

  it('rejects arguments that are not JSON', async () => {
    const { received, toolResultSeen } = await runOneCall({ name: 'lookup_order', arguments: '{"order_id": ' });
    expect(received).toEqual([]);
    // The SDK itself answers unparsable arguments before the tool is invoked.
    expect(toolResultSeen).toMatch(/valid JSON/);
  });

  it('TOOL_CALL BLOCK: the tool is not called and the model is told why', async () => {
    const { received, toolResultSeen, result } = await runOneCall(
      { name: 'lookup_order', arguments: { order_id: '42' } },
      {
        decide: (r) =>
          r.action_type === 'TOOL_CALL' ? { decision: 'BLOCK', reason_code: 'POLICY', reason_message: 'lookups are disabled' } : undefined,
      },
    );
    expect(received).toEqual([]);
    expect(toolResultSeen).toContain('blocked by a guardrail (POLICY): lookups are disabled');
    expect(result.guardrail_decisions).toContainEqual({
      action_type: 'TOOL_CALL',
      decision: 'BLOCK',
      reason_code: 'POLICY',
      agent_id: AGENT,
    });
  });

  it('TOOL_CALL MODIFY: the tool runs with the modified arguments', async () => {
    const { received, guard } = await runOneCall(
      { name: 'lookup_order', arguments: { order_id: '42', note: 'card 4111 1111 1111 1111' } },
      {
        decide: (r) =>
          r.action_type === 'TOOL_CALL'
            ? {
                decision: 'MODIFY',
                reason_code: 'PII_REDACTED',
                reason_message: 'redacted',
                modified_payload: {
                  ...r.payload,
                  function: { name: 'lookup_order', arguments: '{"order_id":"42","note":"card [REDACTED]"}' },
                },
              }
            : undefined,
      },
    );
    expect(received).toEqual([{ order_id: '42', note: 'card [REDACTED]' }]);
    const toolCall = guard.requests.find((r) => r.action_type === 'TOOL_CALL')!;
    expect(toolCall.payload).toMatchObject({ type: 'function', function: { name: 'lookup_order' } });
  });

  it('TOOL_CALL MODIFY whose arguments break the schema becomes a BLOCK that says so; the tool does not run', async () => {
    const { received, toolResultSeen, result } = await runOneCall(
      { name: 'lookup_order', arguments: { order_id: '42' } },
      {
        decide: (r) =>
          r.action_type === 'TOOL_CALL'
            ? {
                decision: 'MODIFY',
                reason_code: 'X',
                reason_message: 'x',
                modified_payload: { ...r.payload, function: { name: 'lookup_order', arguments: '{"order_id":"[REDACTED]"}' } },
              }
            : undefined,
      },
    );
    expect(received).toEqual([]);
    expect(toolResultSeen).toContain("the guardrail's modified arguments (X) would break the tool's schema");
    expect(toolResultSeen).toContain('pattern');
    expect(result.guardrail_decisions.filter((d) => d.action_type === 'TOOL_CALL').map((d) => d.decision)).toEqual(['MODIFY', 'BLOCK']);
    expect(result.guardrail_decisions.at(-2)).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_MODIFY_BREAKS_SCHEMA' });
  });

  it('TOOL_OUTPUT BLOCK withholds the output from the model', async () => {
    const { toolResultSeen, received, items } = await runOneCall(
      { name: 'lookup_order', arguments: { order_id: '42' } },
      {
        decide: (r) =>
          r.action_type === 'TOOL_OUTPUT'
            ? { decision: 'BLOCK', reason_code: 'INJECTION', reason_message: 'prompt injection in tool output' }
            : undefined,
      },
    );
    expect(received).toHaveLength(1);
    expect(toolResultSeen).toContain('[tool output withheld by guardrail: prompt injection in tool output]');
    expect(toolResultSeen).not.toContain('found');
    expect(JSON.stringify(items)).not.toContain('"found"');
  });

  it('TOOL_OUTPUT MODIFY sends the redacted output', async () => {
    const { toolResultSeen } = await runOneCall(
      { name: 'lookup_order', arguments: { order_id: '42' } },
      {
        impl: () => 'customer ssn 123-45-6789',
        decide: (r) =>
          r.action_type === 'TOOL_OUTPUT' && typeof r.payload === 'object'
            ? {
                decision: 'MODIFY',
                reason_code: 'PII_REDACTED',
                reason_message: 'r',
                modified_payload: { ...r.payload, output: 'customer ssn [REDACTED]' },
              }
            : undefined,
      },
    );
    expect(toolResultSeen).toContain('customer ssn [REDACTED]');
    expect(toolResultSeen).not.toContain('6789');
  });

  it('a tool that throws gives the model an error string, not a crash', async () => {
    const { result, toolResultSeen } = await runOneCall(
      { name: 'lookup_order', arguments: { order_id: '42' } },
      {
        impl: () => {
          throw new Error('database down');
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(toolResultSeen).toContain("tool 'lookup_order' failed: database down");
  });

  it('a tool without an implementation gives the model an error string', async () => {
    const { toolResultSeen } = await runOneCall({ name: 'lookup_order', arguments: { order_id: '42' } }, { noImpl: true });
    expect(toolResultSeen).toContain('has no implementation');
  });

  it('tool names keep hyphens on the wire (the SDK would rewrite them)', async () => {
    const models = createScriptedProvider({
      scripts: { clerk: [{ toolCalls: [{ name: 'lookup-order', arguments: { order_id: '7' } }] }, { message: 'ok' }] },
    });
    const got: unknown[] = [];
    const runner = new Runner({
      registry: registry([manifest(AGENT, { tools: [lookupTool('lookup-order')] })]),
      tools: { 'lookup-order': (a) => (got.push(a), 'ok') },
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    await runner.run({ agentId: AGENT, input: 'x' });
    expect(models.requests['clerk']![0]!.tools.map((t) => (t as { name: string }).name)).toEqual(['lookup-order']);
    expect(got).toEqual([{ order_id: '7' }]);
  });

  it('passes a ToolContext with ids, depth, auth and a trace-propagating fetch', async () => {
    let seen: Parameters<ToolImplementation>[1] | undefined;
    const models = createScriptedProvider({
      scripts: { clerk: [{ toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1' } }] }, { message: 'ok' }] },
    });
    const runner = new Runner({
      registry: registry([manifest(AGENT, { tools: [lookupTool()] })]),
      tools: { lookup_order: (_a, ctx) => ((seen = ctx), 'ok') },
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    const result = await runner.run({
      agentId: AGENT,
      input: 'x',
      depth: 2,
      auth: { tenant: 't1' },
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(seen).toMatchObject({ threadId: result.thread_id, runId: result.run_id, agentId: AGENT, depth: 2, auth: { tenant: 't1' } });
    expect(seen!.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-0[01]$/);
    expect(typeof seen!.fetch).toBe('function');
  });
});
