/**
 * The seed's falsification test at the packet and gate level, on the real @openai/agents run loop
 * with offline scripted models (labelled stand-ins; everything else is real).
 */
import { handoff } from '@openai/agents';
import { removeAllTools } from '@openai/agents-core/extensions';
import type { ModelRequest } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import {
  HANDOFF_DECISION_KIND,
  PACKET_BOUNDARY_KIND,
  createPacketBoundaryFilter,
  createPacketHandoffGate,
  packetAgentTool,
  packetHandoff,
  parsePacketInput,
  reconcilePacketAudit,
  userTextOf,
} from '../src/index.js';
import type { PacketGateRequest, PacketHandoffOptions } from '../src/index.js';
import {
  AUTH,
  CANARY,
  EXPECTED_FIELDS,
  KEYS,
  MemoryAudit,
  PURPOSE,
  REFUNDS,
  TRIAGE,
  caseData,
  downPolicyStore,
  policyStore,
} from './helpers/fixtures.js';
import { codeIn, newRunner, priorHistory, refundsSpecialist, triageCoordinator } from './helpers/scenario.js';

const CANARIES = Object.values(CANARY);

function packetOptions(overrides: Partial<PacketHandoffOptions> = {}): PacketHandoffOptions {
  return {
    policyStore: policyStore(),
    caseData: caseData(),
    keys: KEYS,
    auth: AUTH,
    recipient: REFUNDS,
    sourceAgentId: TRIAGE,
    resolveCase: ({ args }) => ({
      caseRef: args.case_id,
      purpose: PURPOSE,
      fields: ['order_id', 'refund_amount', 'purchase_date', 'product'],
    }),
    ...overrides,
  };
}

function crossed(seen: string): string[] {
  return CANARIES.filter((c) => seen.includes(c));
}

describe('falsification: canaries never cross a packet handoff', () => {
  it('packetHandoff: no canary reaches the specialist; its input is the packet alone; the read-only task succeeds', async () => {
    const specialist = refundsSpecialist();
    const audit = new MemoryAudit();
    const boundary = createPacketBoundaryFilter();
    const triage = triageCoordinator({
      handoff: packetHandoff(specialist.agent, packetOptions({ audit, onPrepared: boundary.onPrepared })),
    });
    const result = await newRunner().run(triage.agent, priorHistory(), { callModelInputFilter: boundary.callModelInputFilter });

    // The coordinator really did see every canary (so the filter had something to stop).
    expect(crossed(triage.model.seen())).toEqual(expect.arrayContaining([CANARY.tool, CANARY.summary]));
    expect(triage.model.requests[1]!.input).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'function_call_result' })]));

    expect(specialist.model.requests.length).toBeGreaterThan(0);
    expect(crossed(specialist.model.seen())).toEqual([]);
    const first = specialist.model.requests[0]!;
    expect(Array.isArray(first.input) && first.input.length).toBe(1);
    const packet = parsePacketInput(userTextOf(first.input)!);
    expect(packet?.fields).toEqual(EXPECTED_FIELDS);
    expect(packet?.recipient).toBe(REFUNDS);
    expect(first.previousResponseId).toBeUndefined();
    expect(first.conversationId).toBeUndefined();

    expect(result.finalOutput).toBe('Order O-5521 is eligible for a refund of 42.5.');

    const [decision] = audit.ofKind(HANDOFF_DECISION_KIND);
    const [crossing] = audit.ofKind(PACKET_BOUNDARY_KIND);
    expect(decision!.data).toMatchObject({ decision: 'allow', destination: REFUNDS, packet_id: packet!.packet_id });
    expect(crossing!.data).toMatchObject({ packet_id: packet!.packet_id, input_is_packet: true, decision_record_id: decision!.id });
    expect(
      reconcilePacketAudit({ captured: first, boundaryRecord: crossing!, decisionRecord: decision!, auditKey: KEYS.auditKey }),
    ).toEqual({ ok: true, problems: [] });
  });

  it('CONTROL: the SDK default handoff lets every canary cross', async () => {
    const specialist = refundsSpecialist();
    const triage = triageCoordinator({ handoff: handoff(specialist.agent) });
    await newRunner().run(triage.agent, priorHistory());
    expect(crossed(specialist.model.seen()).sort()).toEqual([CANARY.quote, CANARY.summary, CANARY.tool].sort());
  });

  it('CONTROL: removeAllTools alone drops the tool result but the quoting message and the summary still cross', async () => {
    const specialist = refundsSpecialist();
    const triage = triageCoordinator({ handoff: handoff(specialist.agent, { inputFilter: removeAllTools }) });
    await newRunner().run(triage.agent, priorHistory());
    const leaked = crossed(specialist.model.seen());
    expect(leaked).not.toContain(CANARY.tool);
    expect(leaked).toEqual(expect.arrayContaining([CANARY.quote, CANARY.summary]));
  });
});

describe('falsification: stops happen before the recipient is invoked', () => {
  const cases: Array<[string, Partial<PacketHandoffOptions>, string | undefined]> = [
    ['a cross-tenant case reference', {}, 'C-2002'],
    ['an unapproved field', { resolveCase: ({ args }) => ({ caseRef: args.case_id, fields: ['order_id', 'customer_email'] }) }, undefined],
    [
      'a field the purpose does not permit',
      { resolveCase: ({ args }) => ({ caseRef: args.case_id, fields: ['order_id', 'notes'] }) },
      undefined,
    ],
    ['a policy-store outage', { policyStore: downPolicyStore }, undefined],
    ['missing authorization', { auth: () => undefined }, undefined],
  ];
  const expected: Record<string, string> = {
    'a cross-tenant case reference': 'TENANT_MISMATCH',
    'an unapproved field': 'UNEXPECTED_FIELD',
    'a field the purpose does not permit': 'UNEXPECTED_FIELD',
    'a policy-store outage': 'POLICY_STORE_UNAVAILABLE',
    'missing authorization': 'MISSING_AUTHORIZATION',
  };
  for (const [name, overrides, caseId] of cases) {
    it(`${name}: the specialist's model receives no request (${expected[name]})`, async () => {
      const specialist = refundsSpecialist();
      const audit = new MemoryAudit();
      const triage = triageCoordinator({
        handoff: packetHandoff(specialist.agent, packetOptions({ audit, ...overrides })),
        ...(caseId ? { caseId } : {}),
      });
      const err = await newRunner()
        .run(triage.agent, priorHistory())
        .then(() => undefined)
        .catch((e: unknown) => e);
      expect(codeIn(err)).toBe(expected[name]);
      expect(specialist.model.requests).toHaveLength(0);
      const [decision] = audit.ofKind(HANDOFF_DECISION_KIND);
      expect(decision!.data).toMatchObject({ decision: 'deny', code: expected[name], packet_id: null });
      expect(audit.ofKind(PACKET_BOUNDARY_KIND)).toHaveLength(0);
    });
  }
});

describe('falsification: server-managed conversations', () => {
  it('the SDK refuses a filtered (packet) handoff on server-managed history, so nothing reaches the specialist', async () => {
    for (const ids of [{ previousResponseId: 'resp_original_1' }, { conversationId: 'conv_original_1' }]) {
      const specialist = refundsSpecialist();
      const triage = triageCoordinator({ handoff: packetHandoff(specialist.agent, packetOptions()) });
      await expect(newRunner().run(triage.agent, priorHistory(), ids)).rejects.toThrow(/conversationId or previousResponseId/);
      expect(specialist.model.requests).toHaveLength(0);
    }
  });

  it('CONTROL: the SDK default handoff forwards the original conversation id to the specialist', async () => {
    const specialist = refundsSpecialist();
    const triage = triageCoordinator({ handoff: handoff(specialist.agent) });
    await newRunner().run(triage.agent, priorHistory(), { conversationId: 'conv_original_1' });
    expect(specialist.model.requests[0]!.conversationId).toBe('conv_original_1');
  });

  it('packetAgentTool starts a separate run: no conversation id, no previous-response id, no canary', async () => {
    for (const ids of [{ previousResponseId: 'resp_original_1' }, { conversationId: 'conv_original_1' }]) {
      const specialist = refundsSpecialist();
      const audit = new MemoryAudit();
      const specialistTool = packetAgentTool(specialist.agent, {
        ...packetOptions({ audit }),
        toolName: 'refunds_review',
        toolDescription: 'Ask the refunds specialist about one case.',
        runner: newRunner(),
        resolveCase: ({ args }) => ({ caseRef: args.case_id, fields: ['order_id', 'refund_amount', 'purchase_date', 'product'] }),
      });
      const triage = triageCoordinator({ specialistTool });
      const result = await newRunner().run(triage.agent, priorHistory(), ids);
      expect(result.finalOutput).toBe('The refunds team has answered.');
      // The coordinator's own later requests continue server-managed history; the specialist's never do.
      expect(triage.model.requests.some((r) => r.previousResponseId !== undefined || r.conversationId !== undefined)).toBe(true);
      for (const r of specialist.model.requests) {
        expect(r.previousResponseId).toBeUndefined();
        expect(r.conversationId).toBeUndefined();
      }
      expect(specialist.model.requests).toHaveLength(2);
      expect(crossed(specialist.model.seen())).toEqual([]);
      const toolResult = JSON.stringify(triage.model.requests[2]!.input);
      expect(toolResult).toContain('Order O-5521 is eligible for a refund of 42.5.');
      const [decision] = audit.ofKind(HANDOFF_DECISION_KIND);
      const [crossing] = audit.ofKind(PACKET_BOUNDARY_KIND);
      expect(
        reconcilePacketAudit({
          captured: specialist.model.requests[0],
          boundaryRecord: crossing!,
          decisionRecord: decision!,
          auditKey: KEYS.auditKey,
        }).ok,
      ).toBe(true);
    }
  });
});

describe('falsification: the Baton transfer gate (runner shape)', () => {
  function gateRequest(overrides: Partial<PacketGateRequest> = {}): PacketGateRequest {
    return {
      threadId: 'th_1',
      runId: 'run_triage',
      sourceAgentId: TRIAGE,
      targetAgentId: REFUNDS,
      // Model prose: never copied into the packet.
      input: `Refund please. Notes said ${CANARY.quote} and ${CANARY.tool}`,
      state: { case_id: 'C-1001', summary: CANARY.summary },
      threadState: { case_id: 'C-1001', summary: CANARY.summary, notes: CANARY.notes },
      auth: AUTH,
      // What the runner reports: the coordinator read both cases through get_case on this thread.
      toolResults: [
        { agentId: TRIAGE, runId: 'run_triage', name: 'get_case', arguments: { case_id: 'C-1001' } },
        { agentId: TRIAGE, runId: 'run_triage', name: 'get_case', arguments: { case_id: 'C-2002' } },
      ],
      ...overrides,
    };
  }

  /** Runs the specialist the way the Baton runner does: a new run whose input is the gate's input. */
  async function runThroughGate(
    gateOverrides: Partial<Parameters<typeof createPacketHandoffGate>[0]> = {},
    req: Partial<PacketGateRequest> = {},
  ) {
    const audit = new MemoryAudit();
    const gate = createPacketHandoffGate({ policyStore: policyStore(), caseData: caseData(), keys: KEYS, audit, ...gateOverrides });
    const specialist = refundsSpecialist();
    let prepared;
    try {
      prepared = await gate.prepare(gateRequest(req));
    } catch (err) {
      return { audit, specialist, error: err, prepared: undefined, result: undefined };
    }
    const model = specialist.model;
    const original = model.getResponse.bind(model);
    let firstCall = true;
    model.getResponse = async (request: ModelRequest) => {
      if (firstCall) {
        firstCall = false;
        await prepared.onRecipientModelRequest(request);
      }
      return original(request);
    };
    const result = await newRunner().run(specialist.agent, prepared.input);
    return { audit, specialist, error: undefined, prepared, result };
  }

  it('a legit minimal packet crosses; capture, packet manifest and decision record agree; a tampered capture does not', async () => {
    const { audit, specialist, prepared, result } = await runThroughGate({
      resolveCase: (r) => ({ caseRef: String(r.state.case_id), fields: ['order_id', 'refund_amount', 'purchase_date', 'product'] }),
    });
    expect(result!.finalOutput).toBe('Order O-5521 is eligible for a refund of 42.5.');
    expect(crossed(specialist.model.seen())).toEqual([]);
    const captured = specialist.model.requests[0]!;
    expect(userTextOf(captured.input)).toBe(prepared!.input);

    const [decision] = audit.ofKind(HANDOFF_DECISION_KIND);
    const [crossing] = audit.ofKind(PACKET_BOUNDARY_KIND);
    expect(decision!.data).toMatchObject({
      decision: 'allow',
      code: 'ALLOWED',
      source: TRIAGE,
      destination: REFUNDS,
      purpose: PURPOSE,
      packet_id: prepared!.packetId,
      contract_version: '2026-11-29.1',
    });
    expect(crossing!.data).toMatchObject({
      packet_id: prepared!.packetId,
      destination: REFUNDS,
      decision_record_id: decision!.id,
      input_is_packet: true,
      input_items: 1,
      canonicalization: 'RFC8785',
    });
    expect(crossing!.data.digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const packet = parsePacketInput(prepared!.input)!;
    expect(Object.keys(packet.field_classes).sort()).toEqual((crossing!.data.fields as Array<{ name: string }>).map((f) => f.name).sort());

    const auditKey = KEYS.auditKey;
    expect(reconcilePacketAudit({ captured, boundaryRecord: crossing!, decisionRecord: decision!, auditKey })).toEqual({
      ok: true,
      problems: [],
    });

    // Tampering with what was sent is caught.
    const tampered = structuredClone(captured) as { input: Array<{ content: string }> };
    tampered.input[0]!.content = tampered.input[0]!.content.replace('42.5', '4250');
    const bad = reconcilePacketAudit({ captured: tampered, boundaryRecord: crossing!, decisionRecord: decision!, auditKey });
    expect(bad.ok).toBe(false);
    expect(bad.problems).toContain('digest of the captured input does not match the boundary record');
    // A forwarded continuation id is caught.
    expect(
      reconcilePacketAudit({
        captured: { ...captured, previousResponseId: 'resp_1' },
        boundaryRecord: crossing!,
        decisionRecord: decision!,
        auditKey,
      }).problems,
    ).toContain('captured request carries a previous response id');
    // A wrong key, or records that do not belong together, are caught.
    expect(reconcilePacketAudit({ captured, boundaryRecord: crossing!, decisionRecord: decision!, auditKey: 'other-key' }).ok).toBe(false);
    const otherDecision = { ...decision!, id: 'aud_other' };
    expect(reconcilePacketAudit({ captured, boundaryRecord: crossing!, decisionRecord: otherDecision, auditKey }).problems).toContain(
      'boundary record is not linked to this decision record',
    );
    const lying = { ...crossing!, data: { ...crossing!.data, fields: [{ name: 'order_id', class: 'identifier', as: 'value' }] } };
    expect(reconcilePacketAudit({ captured, boundaryRecord: lying, decisionRecord: decision!, auditKey }).ok).toBe(false);
  });

  it('audit records carry no content: no field values, task text, canaries or raw case id', async () => {
    const { audit } = await runThroughGate({
      resolveCase: (r) => ({ caseRef: String(r.state.case_id), fields: ['order_id', 'refund_amount', 'purchase_date', 'product'] }),
    });
    const stored = JSON.stringify(audit.records);
    for (const content of [
      ...CANARIES,
      'O-5521',
      '42.5',
      'Kettle',
      '2026-11-02',
      'C-1001',
      'Review whether',
      KEYS.auditKey,
      KEYS.referenceKey,
    ])
      expect(stored).not.toContain(content);
  });

  it('stops before invocation: cross-tenant, unapproved field, policy-store outage, unknown recipient and purpose, missing auth', async () => {
    const stops: Array<[string, Parameters<typeof runThroughGate>[0], Partial<PacketGateRequest>]> = [
      ['TENANT_MISMATCH', {}, { state: { case_id: 'C-2002' } }],
      ['UNEXPECTED_FIELD', {}, { state: { case_id: 'C-1001', fields: ['order_id', 'customer_email'] } }],
      ['UNEXPECTED_FIELD', {}, { state: { case_id: 'C-1001', fields: ['order_id', 'notes'] } }],
      ['POLICY_STORE_UNAVAILABLE', { policyStore: downPolicyStore }, {}],
      ['UNKNOWN_RECIPIENT', {}, { targetAgentId: 'io.baton.examples.billing' }],
      ['UNKNOWN_PURPOSE', {}, { state: { case_id: 'C-1001', purpose: 'marketing' } }],
      ['MISSING_AUTHORIZATION', {}, { auth: {} }],
      ['TASK_TOO_LONG', { task: () => 'x'.repeat(500) }, {}],
    ];
    for (const [code, gateOverrides, req] of stops) {
      const { error, specialist, audit } = await runThroughGate(gateOverrides, req);
      expect(codeIn(error), code).toBe(code);
      // Error messages end up in run results and logs: they name codes and fields, never content.
      for (const content of [...CANARIES, 'O-5521', '42.5', 'Kettle', 'C-1001'])
        expect(String((error as Error).message)).not.toContain(content);
      expect(specialist.model.requests).toHaveLength(0);
      expect(audit.records).toHaveLength(1);
      expect(audit.records[0]!.data).toMatchObject({ decision: 'deny', code });
    }
  });

  it('a recipient request carrying more than the packet is recorded and refused', async () => {
    const audit = new MemoryAudit();
    const gate = createPacketHandoffGate({
      policyStore: policyStore(),
      caseData: caseData(),
      keys: KEYS,
      audit,
      resolveCase: () => ({ caseRef: 'C-1001', fields: ['order_id'] }),
    });
    const prepared = await gate.prepare(gateRequest());
    const leaky = {
      input: [
        { role: 'system', content: CANARY.summary },
        { type: 'message', role: 'user', content: prepared.input },
      ],
    };
    await expect(prepared.onRecipientModelRequest(leaky)).rejects.toMatchObject({ code: 'BOUNDARY_VIOLATION' });
    expect(audit.ofKind(PACKET_BOUNDARY_KIND)[0]!.data).toMatchObject({ input_is_packet: false, input_items: 2 });

    const prepared2 = await gate.prepare(gateRequest());
    await expect(prepared2.onRecipientModelRequest({ input: prepared2.input, previousResponseId: 'resp_1' })).rejects.toMatchObject({
      code: 'BOUNDARY_VIOLATION',
    });
  });

  it('binds the case to the caller: a model-named case must be allowed to the caller or read by the source in this thread (CASE_NOT_BOUND)', async () => {
    const notBound: Array<[string, Partial<PacketGateRequest>]> = [
      // The coordinator read C-1001, the model handed off another case: no evidence, no packet.
      [
        'a case the source never read',
        {
          state: { case_id: 'C-2002' },
          toolResults: [{ agentId: TRIAGE, runId: 'r', name: 'get_case', arguments: { case_id: 'C-1001' } }],
        },
      ],
      // Read by another agent, or through a tool that does not read cases, is not evidence.
      [
        'read by another agent',
        { toolResults: [{ agentId: 'io.baton.examples.other', runId: 'r', name: 'get_case', arguments: { case_id: 'C-1001' } }] },
      ],
      [
        'read through another tool',
        { toolResults: [{ agentId: TRIAGE, runId: 'r', name: 'send_email', arguments: { case_id: 'C-1001' } }] },
      ],
      ['no evidence at all', { toolResults: undefined }],
      ["a case outside the caller's allowed cases", { auth: { ...AUTH, allowedCases: ['C-7777'] } }],
      ['two allowed cases, the named one never read', { auth: { ...AUTH, allowedCases: ['C-1001', 'C-1002'] }, toolResults: [] }],
      ['no case named and none fixed by the request', { state: {}, threadState: {} }],
      ['a case id that is not a string', { state: { case_id: { $ne: 1 } } }],
      ['a malformed allowedCases', { auth: { ...AUTH, allowedCases: 'C-1001' as unknown as string[] } }],
    ];
    for (const [name, req] of notBound) {
      const { error, specialist, audit } = await runThroughGate({}, req);
      expect(codeIn(error), name).toBe('CASE_NOT_BOUND');
      expect(String((error as Error).message)).not.toContain('C-1001');
      expect(specialist.model.requests, name).toHaveLength(0);
      expect(audit.records[0]!.data).toMatchObject({ decision: 'deny', code: 'CASE_NOT_BOUND' });
    }
    // Bound cases cross: the caller's one allowed case (even with no case named), or a named one
    // that is allowed and was read.
    for (const req of [
      { state: {}, threadState: {}, auth: { ...AUTH, allowedCases: ['C-1001'] }, toolResults: [] },
      { auth: { ...AUTH, allowedCases: ['C-1001'] }, toolResults: [] },
      { auth: { ...AUTH, allowedCases: ['C-1001', 'C-1002'] } },
    ] satisfies Array<Partial<PacketGateRequest>>) {
      const { error, prepared } = await runThroughGate({}, req);
      expect(error).toBeUndefined();
      expect(parsePacketInput(prepared!.input)!.fields).toMatchObject({ order_id: 'O-5521' });
    }
  });

  it('a subprocess recipient: stdin carries the packet and only approved fields; the proof digests all of stdin and reconciles', async () => {
    const audit = new MemoryAudit();
    const gate = createPacketHandoffGate({ policyStore: policyStore(), caseData: caseData(), keys: KEYS, audit });
    const prepared = await gate.prepare(gateRequest());
    const packet = parsePacketInput(prepared.input)!;
    expect(Object.keys(prepared.state).sort()).toEqual(Object.keys(packet.field_classes).sort());
    expect(JSON.stringify(prepared.state)).not.toMatch(/CANARY/);
    const stdin = {
      thread_id: 'th_1',
      run_id: 'run_refunds',
      input_message: { role: 'user', content: prepared.input },
      state: prepared.state,
      config: {},
      trace: { trace_id: 'a'.repeat(32), parent_span_id: 'b'.repeat(16) },
    };
    await prepared.onRecipientProcessInput(stdin);
    const [decision] = audit.ofKind(HANDOFF_DECISION_KIND);
    const [crossing] = audit.ofKind(PACKET_BOUNDARY_KIND);
    expect(crossing!.data).toMatchObject({ transport: 'process_stdin', input_is_packet: true, decision_record_id: decision!.id });
    // What the process parsed from stdin reconciles; any change to it does not.
    const received = JSON.parse(JSON.stringify(stdin)) as typeof stdin;
    expect(
      reconcilePacketAudit({ captured: received, boundaryRecord: crossing!, decisionRecord: decision!, auditKey: KEYS.auditKey }),
    ).toEqual({ ok: true, problems: [] });
    const extra = { ...received, state: { ...received.state, summary: CANARY.summary } };
    const bad = reconcilePacketAudit({ captured: extra, boundaryRecord: crossing!, decisionRecord: decision!, auditKey: KEYS.auditKey });
    expect(bad.problems).toEqual(
      expect.arrayContaining([
        'digest of the captured input does not match the boundary record',
        "captured stdin state is not exactly the packet's approved fields",
      ]),
    );
    // A model request does not reconcile against a stdin proof.
    expect(
      reconcilePacketAudit({
        captured: { input: prepared.input },
        boundaryRecord: crossing!,
        decisionRecord: decision!,
        auditKey: KEYS.auditKey,
      }).problems,
    ).toContain('captured request is a model_request, the boundary record says process_stdin');

    // Extra state, or a different message, is recorded and refused before the process starts.
    for (const leaky of [
      { ...stdin, state: { ...prepared.state, history_summary: { nested: CANARY.summary } } },
      { ...stdin, input_message: { role: 'user', content: `${prepared.input}\n${CANARY.quote}` } },
      { ...stdin, state: {} },
    ]) {
      const p = await gate.prepare(gateRequest());
      await expect(
        p.onRecipientProcessInput({
          ...leaky,
          input_message: leaky.input_message === stdin.input_message ? { role: 'user', content: p.input } : leaky.input_message,
        }),
      ).rejects.toMatchObject({
        code: 'BOUNDARY_VIOLATION',
      });
    }
    expect(
      audit
        .ofKind(PACKET_BOUNDARY_KIND)
        .slice(1)
        .map((r) => r.data.input_is_packet),
    ).toEqual([false, false, false]);
    const p4 = await gate.prepare(gateRequest());
    await expect(p4.onRecipientProcessInput({ input: p4.input })).rejects.toMatchObject({ code: 'BOUNDARY_VIOLATION' });
  });

  it('fails closed when the audit sink is down', async () => {
    const gate = createPacketHandoffGate({
      policyStore: policyStore(),
      caseData: caseData(),
      keys: KEYS,
      audit: { appendAudit: async () => Promise.reject(new Error('disk full')) },
      resolveCase: () => ({ caseRef: 'C-1001', fields: ['order_id'] }),
    });
    await expect(gate.prepare(gateRequest())).rejects.toMatchObject({ code: 'AUDIT_UNAVAILABLE' });
  });
});
