import { createGuardrailEngine } from '@baton/guardrail-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunnerServer } from '../../src/http/index.js';
import type { RunnerServer } from '../../src/http/index.js';
import { createMemoryThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import { OfflineModelProvider } from '../../src/models/offline-model.js';
import { parseScenario } from '../../src/models/scenario-loader.js';
import { testTools, writeTwoAgents } from '../wire/fixtures.js';

// Real servers, SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const SCENARIO = parseScenario(`
version: 1
name: http-history
agents:
  io.test.triage:
    rules:
      - when: { previous_input_matches: '(CASE-\\d+)' }
        message: 'We were talking about {{previous_input_match.1}} ({{earlier_inputs.0}}).'
      - when: { has_history: false }
        message: 'Noted: {{input}}'
`);

const TOKEN = 'test-token-0123456789abcdef';

describe('POST /v1/runs with thread_id (thread history)', () => {
  let server: RunnerServer;
  let url: string;
  let cleanup: () => void;
  const requests: Array<{ threadId: string; input: unknown }> = [];

  beforeAll(async () => {
    const agents = writeTwoAgents();
    cleanup = agents.cleanup;
    const store = createMemoryThreadStore();
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents.dir }),
      tools: testTools,
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: new OfflineModelProvider(SCENARIO),
      modelLabel: 'offline model',
      onModelRequest: ({ threadId, request }) =>
        void requests.push({ threadId, input: structuredClone((request as { input: unknown }).input) }),
    });
    server = createRunnerServer({ runner, store, port: 0, token: TOKEN });
    url = (await server.listen()).url;
  });
  afterAll(async () => {
    await server.close();
    cleanup();
  });

  const post = async (body: unknown) => {
    const res = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { thread_id: string; response: string; status: string };
  };

  it('continues the conversation: the second run is sent the first turn', async () => {
    const first = await post({ agent_id: 'io.test.triage', input: 'my case is CASE-42' });
    expect(first.response).toBe('[offline model] Noted: my case is CASE-42');
    const second = await post({ agent_id: 'io.test.triage', thread_id: first.thread_id, input: 'which case was it?' });
    expect(second.thread_id).toBe(first.thread_id);
    expect(second.response).toBe('[offline model] We were talking about CASE-42 (my case is CASE-42).');

    const sent = requests.filter((r) => r.threadId === first.thread_id);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.input).toEqual([
      { role: 'user', content: 'my case is CASE-42' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '[offline model] Noted: my case is CASE-42' }] },
      { role: 'user', content: 'which case was it?' },
    ]);

    // Another thread does not see it.
    const other = await post({ agent_id: 'io.test.triage', input: 'which case was it?' });
    expect(other.response).toBe('[offline model] Noted: which case was it?');
  });
});
