import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HandoffPacketSchema } from '@baton/manifest';
import type { HandoffGuardrailCheck, HandoffPayload } from '@baton/manifest';
import { describe, expect, it } from 'vitest';
import {
  buildPacket,
  buildPacketDetailed,
  createFileCaseDataSource,
  deriveReference,
  packetStateView,
  PacketError,
  renderPacketInput,
} from '../src/index.js';
import type { BuildPacketOptions, CaseDataSource } from '../src/index.js';
import {
  AUTH,
  CANARY,
  CASES,
  EXPECTED_FIELDS,
  KEYS,
  PURPOSE,
  REFUNDS,
  caseData,
  contract,
  downPolicyStore,
  policyStore,
} from './helpers/fixtures.js';

const REQUESTED = ['order_id', 'refund_amount', 'purchase_date', 'product', 'customer_id'];

function options(overrides: Partial<BuildPacketOptions> = {}): BuildPacketOptions {
  return {
    policyStore: policyStore(),
    caseData: caseData(),
    auth: AUTH,
    caseRef: 'C-1001',
    recipient: REFUNDS,
    purpose: PURPOSE,
    fields: REQUESTED,
    keys: KEYS,
    ...overrides,
  };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PacketError);
    return (err as PacketError).code;
  }
  throw new Error('expected a PacketError');
}

describe('buildPacket', () => {
  it('builds a minimal packet from authenticated ids, outside model prose', async () => {
    const built = await buildPacketDetailed(options({ idGenerator: () => 'pkt_fixed' }));
    const packet = built.packet;
    expect(HandoffPacketSchema.parse(packet)).toEqual(packet);
    expect(packet).toMatchObject({
      packet_id: 'pkt_fixed',
      contract_version: '2026-11-29.1',
      tenant: 'acme',
      recipient: REFUNDS,
      purpose: PURPOSE,
    });
    expect(packet.fields).toEqual(EXPECTED_FIELDS);
    expect(packet.field_classes).toEqual({
      order_id: 'identifier',
      refund_amount: 'financial',
      purchase_date: 'commerce',
      product: 'commerce',
      customer_id: 'identifier',
    });
    expect(packet.task).toBe('Review whether the referenced order is eligible for a refund.');
    // Scoped opaque references: keyed, not the raw ids.
    expect(packet.references.case).toBe(
      deriveReference({ key: KEYS.referenceKey, recipient: REFUNDS, purpose: PURPOSE, tenant: 'acme', kind: 'case', value: 'C-1001' }),
    );
    expect(packet.references.customer_id).toMatch(/^ref_/);
    const text = JSON.stringify(packet);
    for (const raw of ['C-1001', 'CUST-88', CANARY.email, CANARY.notes, 'Dana', '555']) expect(text).not.toContain(raw);
    expect(built.fieldClasses.map((f) => f.name)).toEqual(['customer_id', 'order_id', 'product', 'purchase_date', 'refund_amount']);
    expect(built.provider.retention_days).toBe(30);
  });

  it('generates a fresh random packet id each time', async () => {
    const a = await buildPacket(options());
    const b = await buildPacket(options());
    expect(a.packet_id).toMatch(/^pkt_[0-9a-f]{32}$/);
    expect(a.packet_id).not.toBe(b.packet_id);
  });

  it('defaults the purpose to the only one and the fields to the approved purpose fields', async () => {
    // customer_email is permitted for the purpose but not approved for C-1001: it stays behind.
    const minimal = await buildPacket(options({ purpose: undefined, fields: undefined }));
    expect(minimal.fields).toEqual(EXPECTED_FIELDS);
    expect(Object.keys(minimal.field_classes)).not.toContain('customer_email');
    expect(await codeOf(buildPacket(options({ fields: undefined, auth: { ...AUTH, roles: ['intern'] } })))).toBe('MISSING_AUTHORIZATION');
    const privileged = createCase('C-PRIVILEGED');
    const packet = await buildPacket(options({ purpose: undefined, fields: undefined, caseRef: 'C-PRIVILEGED', caseData: privileged }));
    expect(packet.fields.customer_email).toBe('p@example.com');
  });

  it('stops each bad request with its own code', async () => {
    expect(await codeOf(buildPacket(options({ auth: undefined })))).toBe('MISSING_AUTHORIZATION');
    expect(await codeOf(buildPacket(options({ auth: { tenant: 'acme', subject: 'u' } })))).toBe('MISSING_AUTHORIZATION');
    expect(await codeOf(buildPacket(options({ auth: { subject: 'u', roles: ['support_agent'] } })))).toBe('MISSING_AUTHORIZATION');
    expect(await codeOf(buildPacket(options({ caseRef: 'C-2002' })))).toBe('TENANT_MISMATCH');
    expect(await codeOf(buildPacket(options({ caseRef: 'C-404' })))).toBe('CASE_NOT_FOUND');
    expect(await codeOf(buildPacket(options({ fields: ['order_id', 'notes'] })))).toBe('UNEXPECTED_FIELD');
    expect(await codeOf(buildPacket(options({ fields: ['order_id', 'customer_email'] })))).toBe('UNEXPECTED_FIELD');
    expect(await codeOf(buildPacket(options({ auth: { ...AUTH, roles: ['intern'] } })))).toBe('UNEXPECTED_FIELD');
    expect(await codeOf(buildPacket(options({ recipient: 'io.baton.examples.billing' })))).toBe('UNKNOWN_RECIPIENT');
    expect(await codeOf(buildPacket(options({ recipient: 'constructor' })))).toBe('UNKNOWN_RECIPIENT');
    expect(await codeOf(buildPacket(options({ purpose: 'marketing' })))).toBe('UNKNOWN_PURPOSE');
    expect(await codeOf(buildPacket(options({ policyStore: downPolicyStore })))).toBe('POLICY_STORE_UNAVAILABLE');
    expect(await codeOf(buildPacket(options({ policyStore: undefined })))).toBe('POLICY_STORE_UNAVAILABLE');
    expect(await codeOf(buildPacket(options({ task: 'x'.repeat(121) })))).toBe('TASK_TOO_LONG');
  });

  it('stops an unavailable policy store even when the contract is pinned (approvals come from the store)', async () => {
    expect(await codeOf(buildPacket(options({ contract: contract(), policyStore: downPolicyStore })))).toBe('POLICY_STORE_UNAVAILABLE');
  });

  it('stops a case-data source that returns a field it was not asked for', async () => {
    const leaky: CaseDataSource = { getCaseFields: async () => ({ order_id: 'O-1', notes: CANARY.notes }) };
    const err = await buildPacket(options({ caseData: leaky })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNEXPECTED_FIELD', field: 'notes' });
    expect(String((err as Error).message)).not.toContain(CANARY.notes);
    const broken: CaseDataSource = { getCaseFields: async () => Promise.reject(new Error('db down')) };
    expect(await codeOf(buildPacket(options({ caseData: broken })))).toBe('CASE_DATA_UNAVAILABLE');
  });

  it('checks what crosses (the rendered packet and its state view) once; anything but ALLOW stops it', async () => {
    const seen: HandoffPayload[] = [];
    const allow: HandoffGuardrailCheck = async (crossing) => {
      seen.push(crossing);
      return { decision: 'ALLOW', reasonCode: 'OK', reasonMessage: '' };
    };
    const packet = await buildPacket(options({ guardrail: { check: allow } }));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.target_agent_id).toBe(REFUNDS);
    expect(seen[0]!.input).toBe(renderPacketInput(packet));
    expect(seen[0]!.state).toEqual(packetStateView(packet));
    const custom = await buildPacket(options({ guardrail: { check: allow, renderInput: (p) => `custom ${p.packet_id}` } }));
    expect(seen[1]!.input).toBe(`custom ${custom.packet_id}`);

    for (const decision of ['BLOCK', 'MODIFY'] as const) {
      const g: HandoffGuardrailCheck = async () => ({ decision, reasonCode: 'TEST', reasonMessage: 'test decision' });
      const err = await buildPacket(options({ guardrail: { check: g } })).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'TASK_BLOCKED', reasonCode: 'TEST' });
    }
    const throwing: HandoffGuardrailCheck = async () => Promise.reject(new Error('down'));
    expect(await codeOf(buildPacket(options({ guardrail: { check: throwing } })))).toBe('TASK_BLOCKED');
  });
});

describe('file case-data source', () => {
  it('reads only the requested fields of the authenticated tenant', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-cases-'));
    try {
      const file = join(dir, 'cases.json');
      await writeFile(file, JSON.stringify(CASES));
      const source = createFileCaseDataSource({ file });
      expect(
        await source.getCaseFields({
          tenant: 'acme',
          caseId: 'C-1001',
          fields: { order_id: 'order_id', email: 'customer.email', missing: 'nope.x' },
        }),
      ).toEqual({
        order_id: 'O-5521',
        email: CANARY.email,
      });
      await expect(source.getCaseFields({ tenant: 'acme', caseId: 'C-2002', fields: { order_id: 'order_id' } })).rejects.toMatchObject({
        code: 'TENANT_MISMATCH',
      });
      await writeFile(file, '{not json');
      await expect(source.getCaseFields({ tenant: 'acme', caseId: 'C-1001', fields: {} })).rejects.toMatchObject({
        code: 'CASE_DATA_UNAVAILABLE',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function createCase(_caseId: string): CaseDataSource {
  return {
    async getCaseFields({ fields }) {
      const record: Record<string, unknown> = { ...EXPECTED_FIELDS, customer_id: 'CUST-1', customer_email: 'p@example.com' };
      return Object.fromEntries(
        Object.keys(fields)
          .filter((k) => k in record)
          .map((k) => [k, record[k]]),
      ) as Record<string, unknown>;
    },
  };
}

describe('the shipped examples', () => {
  const examples = new URL('../../../examples/', import.meta.url).pathname;
  it('builds packets for every example case without any free text, contact data or canary', async () => {
    const { createFilePolicyStore, renderPacketInput } = await import('../src/index.js');
    const policy = createFilePolicyStore({ file: join(examples, 'contracts/refunds.contract.yml') });
    const source = createFileCaseDataSource({ file: join(examples, 'data/cases.json') });
    const { readFile } = await import('node:fs/promises');
    const all = (JSON.parse(await readFile(join(examples, 'data/cases.json'), 'utf8')) as { cases: Array<Record<string, unknown>> }).cases;
    expect(all.length).toBeGreaterThan(0);
    for (const c of all) {
      const tenant = String(c.tenant);
      const packet = await buildPacket({
        policyStore: policy,
        caseData: source,
        auth: { tenant, subject: 'u', roles: ['support_agent'] },
        caseRef: String(c.case_id),
        recipient: 'io.baton.examples.refunds',
        keys: KEYS,
      });
      const rendered = renderPacketInput(packet);
      expect(rendered).not.toMatch(/CANARY-/);
      const customer = c.customer as Record<string, unknown>;
      for (const v of [customer.name, customer.email, customer.phone, customer.card_last4, c.case_id])
        expect(rendered).not.toContain(String(v));
      expect(packet.fields.order_id).toBe(c.order_id);
      // And the same case under another tenant's authentication is refused.
      const other = tenant === 'globex' ? 'acme-retail' : 'globex';
      await expect(
        buildPacket({
          policyStore: policy,
          caseData: source,
          auth: { tenant: other, subject: 'u', roles: ['support_agent'] },
          caseRef: String(c.case_id),
          recipient: 'io.baton.examples.refunds',
          keys: KEYS,
        }),
      ).rejects.toMatchObject({ code: 'TENANT_MISMATCH' });
    }
  });
});
