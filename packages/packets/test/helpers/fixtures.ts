import { createStaticPolicyStore, createInMemoryCaseDataSource, parseRecipientContract } from '../../src/index.js';
import type { AuditRecordLike, AuditSink, PolicyStore, RecipientContract } from '../../src/index.js';

export const REFUNDS = 'io.baton.examples.refunds';
export const TRIAGE = 'io.baton.examples.triage';
export const PURPOSE = 'refund_eligibility_review';
export const KEYS = { referenceKey: 'test-reference-key-0123456789abcdef', auditKey: 'test-audit-key-0123456789abcdef0123' };
export const AUTH = { tenant: 'acme', subject: 'user-7', roles: ['support_agent'] };

/** Distinct synthetic canaries; none may ever reach the refunds model. */
export const CANARY = {
  tool: 'CANARY-TOOL-7f3a91',
  quote: 'CANARY-QUOTE-b20c4e',
  summary: 'CANARY-SUMMARY-5d8e13',
  notes: 'CANARY-NOTES-0a6f22',
  email: 'canary.email.93c1@example.com',
} as const;

export const CONTRACT_YAML = `contract_version: "2026-11-29.1"
recipients:
  ${REFUNDS}:
    provider: { name: openai, retention_days: 30, zero_data_retention: false }
    purposes:
      ${PURPOSE}:
        task: Review whether the referenced order is eligible for a refund.
        task_max_chars: 120
        data_classes: [identifier, financial, commerce, contact_pii]
        fields:
          order_id: identifier
          refund_amount: financial
          purchase_date: commerce
          product: commerce
          customer_email: { class: contact_pii, path: customer.email }
          customer_id: { class: identifier, path: customer.id, as: reference }
approvals:
  - tenant: "*"
    roles:
      support_agent: [order_id, refund_amount, purchase_date, product, customer_id]
  - tenant: acme
    case_id: C-PRIVILEGED
    roles:
      support_agent: [order_id, refund_amount, purchase_date, product, customer_id, customer_email]
`;

export function contract(): RecipientContract {
  return parseRecipientContract(CONTRACT_YAML, { file: 'test.contract.yml' });
}

export const CASES = [
  {
    tenant: 'acme',
    case_id: 'C-1001',
    customer: { id: 'CUST-88', name: 'Dana Example', email: CANARY.email, phone: '+1 555 0100' },
    order_id: 'O-5521',
    refund_amount: 42.5,
    purchase_date: '2026-11-02',
    product: 'Kettle',
    notes: `Customer is upset. ${CANARY.notes}`,
    prior_messages: [{ role: 'customer', text: `please hurry ${CANARY.notes}` }],
  },
  {
    tenant: 'globex',
    case_id: 'C-2002',
    customer: { id: 'CUST-9', email: 'x@globex.example' },
    order_id: 'O-9',
    refund_amount: 10,
    purchase_date: '2026-10-01',
    product: 'Lamp',
    notes: 'n',
  },
];

/** Case fields ordered in the packet for the legit C-1001 case (customer_id crosses as a reference). */
export const EXPECTED_FIELDS = { order_id: 'O-5521', refund_amount: 42.5, purchase_date: '2026-11-02', product: 'Kettle' };

export function caseData() {
  return createInMemoryCaseDataSource({ cases: CASES });
}

export function policyStore(): PolicyStore {
  return createStaticPolicyStore(contract());
}

/** A policy store that is down. */
export const downPolicyStore: PolicyStore = {
  getContract: async () => {
    throw new Error('ECONNREFUSED policy.internal:443');
  },
  getApprovals: async () => {
    throw new Error('ECONNREFUSED policy.internal:443');
  },
};

/** An in-memory audit sink with the ThreadStore.appendAudit shape. */
export class MemoryAudit implements AuditSink {
  readonly records: Array<AuditRecordLike & { threadId: string; runId: string | null }> = [];
  async appendAudit(record: { id?: string; threadId: string; runId: string | null; kind: string; data: Record<string, unknown> }) {
    const stored = { ...record, id: record.id ?? `a${this.records.length}`, data: structuredClone(record.data) };
    this.records.push(stored);
    return stored;
  }
  ofKind(kind: string) {
    return this.records.filter((r) => r.kind === kind);
  }
}
