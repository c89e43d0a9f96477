/**
 * Thread history with packets on the real Baton runner (examples: triage → refunds, real SQLite,
 * the offline scenario model as a labelled stand-in): over several turns on one thread, history is
 * replayed to the agent the user addresses, yet the specialist reached through a packet still sees
 * its packet alone, and no canary triage read through get_case ever reaches it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createFileCaseDataSource,
  createFilePolicyStore,
  createPacketHandoffGate,
  PACKET_BOUNDARY_KIND,
  parsePacketInput,
  userTextOf,
} from '@baton/packets';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import type { RunAuth, ToolImplementation } from '../../src/index.js';
import { createOfflineModelProvider } from '../../src/testing/index.js';
import { allowAllGuardrail } from '@baton/manifest/testing';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const TRIAGE = 'io.baton.examples.triage';
const REFUNDS = 'io.baton.examples.refunds';
const KEYS = { referenceKey: 'integration-reference-key-0123456789', auditKey: 'integration-audit-key-0123456789abc' };
const AUTH: RunAuth = { tenant: 'acme-retail', subject: 'support-user-1', roles: ['support_agent'] };
const CANARY = /CANARY-[A-Z]+-[0-9a-f]+/;

describe('packets with thread history on', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-packets-history-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('no canary crosses on any turn; each packet run starts at the boundary; the specialist addressed directly sees only its packets and answers', async () => {
    const store = createSqliteThreadStore({ file: join(dir, 'baton.db') });
    const captured: Array<{ agentId: string; runId: string; input: unknown }> = [];
    const tools = (
      (await import(pathToFileURL(join(EXAMPLES, 'tools/support-tools.mjs')).href)) as { tools: Record<string, ToolImplementation> }
    ).tools;
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: join(EXAMPLES, 'agents') }),
      tools,
      guardrails: allowAllGuardrail(),
      store,
      modelProvider: await createOfflineModelProvider({ scenario: join(EXAMPLES, 'scenarios/support.scenario.yml') }),
      modelLabel: 'offline model',
      handoffGate: createPacketHandoffGate({
        policyStore: createFilePolicyStore({ file: join(EXAMPLES, 'contracts/refunds.contract.yml') }),
        caseData: createFileCaseDataSource({ file: join(EXAMPLES, 'data/cases.json') }),
        keys: KEYS,
        audit: store,
        guardrail: allowAllGuardrail(),
      }),
      onModelRequest: (e) =>
        void captured.push({ agentId: e.agentId, runId: e.runId, input: structuredClone((e.request as { input: unknown }).input) }),
    });
    try {
      const t1 = await runner.run({
        agentId: TRIAGE,
        input: 'Hi, I would like a refund for CASE-1001, my headphones arrived broken.',
        auth: AUTH,
      });
      expect(t1.status, JSON.stringify(t1.error)).toBe('completed');
      const threadId = t1.thread_id;
      const t2 = await runner.run({ agentId: TRIAGE, threadId, input: 'Please check the refund for CASE-1001 again.', auth: AUTH });
      expect(t2.status, JSON.stringify(t2.error)).toBe('completed');
      expect(t2.agent_id).toBe(REFUNDS);

      // History is on: triage's first request of turn 2 replays turn 1 (its own runs, canaries included).
      const triageT2 = captured.filter((c) => c.agentId === TRIAGE && c.runId === t2.runs[0]!.run_id)[0]!;
      expect(JSON.stringify(triageT2.input)).toContain('my headphones arrived broken');
      expect(JSON.stringify(triageT2.input)).toMatch(CANARY);

      // Each packet run's first request is the packet alone, and the boundary records agree.
      for (const t of [t1, t2]) {
        const first = captured.find((c) => c.agentId === REFUNDS && c.runId === t.run_id)!;
        expect(Array.isArray(first.input) && first.input.length).toBe(1);
        expect(parsePacketInput(userTextOf(first.input) ?? '')).toBeDefined();
      }
      const boundaries = (await store.listAudit(threadId)).filter((a) => a.kind === PACKET_BOUNDARY_KIND);
      expect(boundaries.map((b) => b.data.input_is_packet)).toEqual([true, true]);

      // Addressed directly, refunds sees its packets and what followed: no canary, no case notes.
      const t3 = await runner.run({ agentId: REFUNDS, threadId, input: 'What did you recommend?', auth: AUTH });
      expect(t3.status, JSON.stringify(t3.error)).toBe('completed');
      const direct = captured.find((c) => c.agentId === REFUNDS && c.runId === t3.run_id)!;
      const directText = JSON.stringify(direct.input);
      expect(directText).toContain('Recommendation for order ORD-73914');
      expect(directText).not.toContain('headphones arrived broken');
      expect(directText).not.toContain('get_case');

      const toRefunds = captured.filter((c) => c.agentId === REFUNDS);
      expect(toRefunds.length).toBeGreaterThan(6);
      for (const c of toRefunds) {
        const seen = JSON.stringify(c.input);
        expect(seen).not.toMatch(CANARY);
        for (const pii of ['Ana Garcia', 'ana.garcia@example.com', '555 0142', 'CASE-1001']) expect(seen).not.toContain(pii);
      }
    } finally {
      await store.close();
    }
  }, 90_000);
});
