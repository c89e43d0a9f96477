import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, loadAgentRegistry, Runner, type ToolImplementation } from '../../src/index.js';
import { createOfflineModelProvider } from '../../src/testing/index.js';
import { createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { scriptedGuardrail } from '@baton/manifest/testing';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples');

describe('the example agents', () => {
  it('triage hands a refund request off to refunds under the offline model', async () => {
    const registry = await loadAgentRegistry({ dir: path.join(EXAMPLES, 'agents') });
    const { tools } = (await import(pathToFileURL(path.join(EXAMPLES, 'tools', 'support-tools.mjs')).href)) as {
      tools: Record<string, ToolImplementation>;
    };
    const provider = await createOfflineModelProvider({ scenario: path.join(EXAMPLES, 'scenarios', 'support.scenario.yml') });
    const guard = scriptedGuardrail();
    const store = createMemoryThreadStore();
    const captured: Array<{ agentId: string; request: unknown }> = [];
    const runner = new Runner({
      registry,
      tools,
      guardrails: guard.validator,
      store,
      modelProvider: provider,
      modelLabel: provider.label,
      onModelRequest: (e) => void captured.push({ agentId: e.agentId, request: e.request }),
    });
    const result = await runner.run({
      agentId: 'io.baton.examples.triage',
      input: 'Hi, this is about CASE-1001: my headphones arrived broken and I want a refund.',
    });

    expect(result.status).toBe('completed');
    expect(result.model).toBe('offline model');
    expect(result.runs.map((r) => [r.agent_id, r.status])).toEqual([
      ['io.baton.examples.triage', 'cancelled'],
      ['io.baton.examples.refunds', 'completed'],
    ]);
    expect(result.agent_id).toBe('io.baton.examples.refunds');
    expect(result.response).toMatch(/ORD-73914/);
    expect(result.state).toMatchObject({ case_id: 'CASE-1001', order_id: 'ORD-73914' });
    // Nothing from the case notes or prior messages reached the refunds agent's model.
    const refundsRequests = JSON.stringify(
      captured.filter((c) => c.agentId === 'io.baton.examples.refunds').map((c) => (c.request as { input: unknown }).input),
    );
    expect(refundsRequests).not.toMatch(/CANARY-/);
    expect(refundsRequests).not.toContain('ana.garcia@example.com');
  });

  it('completes the same handoff with the real guardrail engine, every decision ALLOW', async () => {
    const registry = await loadAgentRegistry({ dir: path.join(EXAMPLES, 'agents') });
    const { tools } = (await import(pathToFileURL(path.join(EXAMPLES, 'tools', 'support-tools.mjs')).href)) as {
      tools: Record<string, ToolImplementation>;
    };
    const provider = await createOfflineModelProvider({ scenario: path.join(EXAMPLES, 'scenarios', 'support.scenario.yml') });
    const runner = new Runner({
      registry,
      tools,
      guardrails: createInProcessGuardrail(createGuardrailEngine()),
      modelProvider: provider,
      modelLabel: provider.label,
    });
    const result = await runner.run({
      agentId: 'io.baton.examples.triage',
      input: 'Hi, this is about CASE-1001: my headphones arrived broken and I want a refund.',
    });
    expect(result.status).toBe('completed');
    expect(result.agent_id).toBe('io.baton.examples.refunds');
    expect(result.guardrail_decisions.map((d) => d.action_type)).toEqual([
      'AGENT_INPUT',
      'TOOL_CALL',
      'TOOL_OUTPUT',
      'AGENT_HANDOFF',
      'AGENT_INPUT',
      'TOOL_CALL',
      'TOOL_OUTPUT',
      'TOOL_CALL',
      'TOOL_OUTPUT',
      'AGENT_RESPONSE',
    ]);
    expect(result.guardrail_decisions.every((d) => d.decision === 'ALLOW')).toBe(true);
  });
});
