/**
 * @baton/packets through the real Baton runner: the example triage → refunds handoff under the
 * example recipient contract, real SQLite audit, the offline scenario model (a labelled stand-in),
 * every model request captured. Canaries planted in examples/data/cases.json (notes and prior
 * messages) reach triage through get_case and must never reach refunds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GuardrailRequest, GuardrailValidator } from '@baton/manifest';
import {
  createFileCaseDataSource,
  createFilePolicyStore,
  createPacketHandoffGate,
  defaultResolveCase,
  HANDOFF_DECISION_KIND,
  PACKET_BOUNDARY_KIND,
  parsePacketInput,
  reconcilePacketAudit,
  userTextOf,
} from '@baton/packets';
import type { PacketHandoffGateOptions } from '@baton/packets';
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

/** A labelled test guardrail that allows everything and records what it saw. */
interface Captured {
  agentId: string;
  request: { input: unknown; previousResponseId?: string; conversationId?: string };
}

describe('packets through the Baton runner (examples: triage → refunds)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-packets-runner-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function run(options: {
    auth?: RunAuth;
    gate?: Partial<PacketHandoffGateOptions>;
    input?: string;
    guardrails?: GuardrailValidator;
  }) {
    const store = createSqliteThreadStore({ file: join(dir, 'baton.db') });
    const captured: Captured[] = [];
    const tools = (
      (await import(pathToFileURL(join(EXAMPLES, 'tools/support-tools.mjs')).href)) as { tools: Record<string, ToolImplementation> }
    ).tools;
    const gate = createPacketHandoffGate({
      policyStore: createFilePolicyStore({ file: join(EXAMPLES, 'contracts/refunds.contract.yml') }),
      caseData: createFileCaseDataSource({ file: join(EXAMPLES, 'data/cases.json') }),
      keys: KEYS,
      audit: store,
      guardrail: allowAllGuardrail(),
      ...options.gate,
    });
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: join(EXAMPLES, 'agents') }),
      tools,
      guardrails: options.guardrails ?? allowAllGuardrail(),
      store,
      modelProvider: await createOfflineModelProvider({ scenario: join(EXAMPLES, 'scenarios/support.scenario.yml') }),
      modelLabel: 'offline model',
      handoffGate: gate,
      onModelRequest: (event) => {
        captured.push({ agentId: event.agentId, request: structuredClone(event.request) as Captured['request'] });
      },
    });
    const result = await runner.run({
      agentId: TRIAGE,
      input: options.input ?? 'Hi, I would like a refund for CASE-1001, my headphones arrived broken.',
      auth: options.auth ?? AUTH,
    });
    const audit = await store.listAudit(result.thread_id);
    await store.close();
    return { result, captured, audit };
  }

  it('the packet is checked once, on what crosses, through the runner: real trace ids, in guardrail_decisions and the audit', async () => {
    const seen: GuardrailRequest[] = [];
    const recording: GuardrailValidator = {
      validate: async (request) => {
        seen.push(structuredClone(request));
        return { action_id: request.action_id, decision: 'ALLOW', reason_code: 'TEST_ALLOW', reason_message: 'test guardrail' };
      },
    };
    const { result, captured, audit } = await run({ guardrails: recording });
    expect(result.status).toBe('completed');
    const handoffs = seen.filter((r) => r.action_type === 'AGENT_HANDOFF');
    const packetChecks = handoffs.filter((r) => r.action_type === 'AGENT_HANDOFF' && parsePacketInput(r.payload.input) !== undefined);
    expect(packetChecks).toHaveLength(1);
    const packetCheck = packetChecks[0]!;
    if (packetCheck.action_type !== 'AGENT_HANDOFF') throw new Error('unreachable');
    // What the recipient's model received is exactly what was checked.
    const first = captured.find((c) => c.agentId === REFUNDS)!.request;
    expect(userTextOf(first.input)).toBe(packetCheck.payload.input);
    expect(packetCheck.payload.target_agent_id).toBe(REFUNDS);
    // The run's trace, and a span that exists in it (the audit names the same span).
    expect(packetCheck.trace.trace_id).toBe(result.trace_id);
    expect(result.guardrail_decisions.filter((d) => d.action_type === 'AGENT_HANDOFF')).toHaveLength(handoffs.length);
    const recorded = audit.filter((a) => a.kind === 'guardrail_decision' && a.data['action_id'] === packetCheck.action_id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.data).toMatchObject({
      action_type: 'AGENT_HANDOFF',
      decision: 'ALLOW',
      trace_id: result.trace_id,
      span_id: packetCheck.trace.span_id,
    });
  });

  it('a packet the guardrail blocks never reaches the recipient; the decision is recorded with its reason code', async () => {
    const blocking: GuardrailValidator = {
      validate: async (request) =>
        request.action_type === 'AGENT_HANDOFF' && parsePacketInput(request.payload.input) !== undefined
          ? { action_id: request.action_id, decision: 'BLOCK', reason_code: 'TEST_PACKET_BLOCK', reason_message: 'blocked packet' }
          : { action_id: request.action_id, decision: 'ALLOW', reason_code: 'TEST_ALLOW', reason_message: 'test guardrail' },
    };
    const { result, captured, audit } = await run({ guardrails: blocking });
    expect(captured.filter((c) => c.agentId === REFUNDS)).toHaveLength(0);
    expect(result.guardrail_decisions).toContainEqual(
      expect.objectContaining({ action_type: 'AGENT_HANDOFF', decision: 'BLOCK', reason_code: 'TEST_PACKET_BLOCK' }),
    );
    expect(audit.find((a) => a.kind === HANDOFF_DECISION_KIND)?.data).toMatchObject({ decision: 'deny', code: 'TASK_BLOCKED' });
  });

  it('the refunds agent receives only the packet; canaries from get_case never cross; the records reconcile', async () => {
    const { result, captured, audit } = await run({});
    const toTriage = captured.filter((c) => c.agentId === TRIAGE);
    const toRefunds = captured.filter((c) => c.agentId === REFUNDS);

    // Triage really read the canaries (notes and prior messages) through get_case.
    expect(JSON.stringify(toTriage)).toMatch(/CANARY-NOTES-7f3a/);
    expect(JSON.stringify(toTriage)).toMatch(/CANARY-MSG-1c5d/);

    expect(result.agent_id).toBe(REFUNDS);
    expect(result.status).toBe('completed');
    expect(toRefunds.length).toBeGreaterThan(0);
    for (const c of toRefunds) {
      expect(JSON.stringify(c.request)).not.toMatch(CANARY);
      for (const pii of ['Ana Garcia', 'ana.garcia@example.com', '555 0142', '4242', 'Market Street', 'CASE-1001'])
        expect(JSON.stringify(c.request)).not.toContain(pii);
      expect(c.request.previousResponseId).toBeUndefined();
      expect(c.request.conversationId).toBeUndefined();
    }
    const first = toRefunds[0]!.request;
    const packet = parsePacketInput(userTextOf(first.input) ?? '');
    expect(packet).toBeDefined();
    expect(packet!.fields).toEqual({
      order_id: 'ORD-73914',
      refund_amount: 129.99,
      currency: 'USD',
      product_category: 'electronics',
      region: 'US',
    });
    expect(packet!.tenant).toBe('acme-retail');
    // The legitimate minimal packet is enough for the read-only task.
    expect(result.response).toContain('ORD-73914');
    expect(result.response).toContain('R-2.1');

    const decision = audit.find((a) => a.kind === HANDOFF_DECISION_KIND)!;
    const boundary = audit.find((a) => a.kind === PACKET_BOUNDARY_KIND)!;
    expect(decision.data).toMatchObject({
      decision: 'allow',
      source: TRIAGE,
      destination: REFUNDS,
      purpose: 'refund_eligibility_review',
      contract_version: '2026-11-29.1',
    });
    expect(boundary.data).toMatchObject({ packet_id: packet!.packet_id, input_is_packet: true, decision_record_id: decision.id });
    expect(reconcilePacketAudit({ captured: first, boundaryRecord: boundary, decisionRecord: decision, auditKey: KEYS.auditKey })).toEqual({
      ok: true,
      problems: [],
    });
    // The runner's own handoff record carries the packet id; no audit record carries content.
    expect(audit.find((a) => a.kind === 'handoff')?.data).toMatchObject({ packet_id: packet!.packet_id, target_agent_id: REFUNDS });
    const stored = JSON.stringify(audit);
    expect(stored).not.toMatch(CANARY);
    for (const content of ['ORD-73914', '129.99', 'Ana Garcia', KEYS.auditKey]) expect(stored).not.toContain(content);
  }, 60_000);

  const stops: Array<[string, { auth?: RunAuth; gate?: Partial<PacketHandoffGateOptions> }, string]> = [
    ['a cross-tenant case reference', { auth: { tenant: 'globex', subject: 'u', roles: ['support_agent'] } }, 'TENANT_MISMATCH'],
    [
      'an unapproved field',
      { gate: { resolveCase: (r) => ({ ...defaultResolveCase(r), fields: ['order_id', 'notes'] }) } },
      'UNEXPECTED_FIELD',
    ],
    [
      'a policy-store outage',
      { gate: { policyStore: createFilePolicyStore({ file: join(tmpdir(), 'baton-no-such-policy-store', 'contract.yml') }) } },
      'POLICY_STORE_UNAVAILABLE',
    ],
    ['missing authorization', { auth: {} }, 'MISSING_AUTHORIZATION'],
  ];
  for (const [name, options, code] of stops) {
    it(`${name} stops the handoff before refunds is invoked (${code})`, async () => {
      const { result, captured, audit } = await run(options);
      expect(captured.filter((c) => c.agentId === REFUNDS)).toHaveLength(0);
      expect(result.runs.map((r) => r.agent_id)).not.toContain(REFUNDS);
      const decision = audit.find((a) => a.kind === HANDOFF_DECISION_KIND)!;
      expect(decision.data).toMatchObject({ decision: 'deny', code });
      expect(audit.find((a) => a.kind === PACKET_BOUNDARY_KIND)).toBeUndefined();
      expect(JSON.stringify(audit)).not.toMatch(CANARY);
    }, 60_000);
  }
});
