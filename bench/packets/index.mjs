// Bench: @baton/packets — build, gate (build + decision audit + boundary digest) and digest time
// per packet, against an in-process baseline (JSON.stringify + HMAC-SHA-256 of the same packet).
// Run after building: `node bench/packets/index.mjs`. Writes bench/results/packets.json.
import { createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { measure, printTable, round, writeResult } from '../lib.mjs';
import {
  buildPacketDetailed,
  createInMemoryCaseDataSource,
  createPacketHandoffGate,
  createStaticPolicyStore,
  keyedDigest,
  parseRecipientContract,
  renderPacketInput,
} from '../../packages/packets/dist/index.js';

const TARGET_US = 50;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const BATCH = Number(process.env.BENCH_BATCH ?? 20);

const contract = parseRecipientContract(`contract_version: "bench.1"
recipients:
  io.baton.examples.refunds:
    provider: { name: openai, retention_days: 30, zero_data_retention: false }
    purposes:
      refund_eligibility_review:
        task: Review whether the referenced order is eligible for a refund under the refund policy.
        data_classes: [identifier, financial, commerce]
        fields:
          order_id: identifier
          refund_amount: financial
          currency: financial
          product_category: commerce
          region: commerce
          customer_id: { class: identifier, path: customer.id, as: reference }
approvals:
  - tenant: "*"
    roles:
      support_agent: [order_id, refund_amount, currency, product_category, region, customer_id]
`);
const cases = [
  {
    tenant: 'acme-retail',
    case_id: 'CASE-1001',
    customer: { id: 'CUST-1', name: 'Ana Garcia', email: 'ana@example.com' },
    order_id: 'ORD-73914',
    product_category: 'electronics',
    region: 'US',
    refund_amount: 129.99,
    currency: 'USD',
    notes: 'free text that must not cross '.repeat(20),
  },
];
const keys = { referenceKey: 'bench-reference-key-0123456789abcdef', auditKey: 'bench-audit-key-0123456789abcdef01' };
const auth = { tenant: 'acme-retail', subject: 'bench', roles: ['support_agent'] };
const policyStore = createStaticPolicyStore(contract);
const caseData = createInMemoryCaseDataSource({ cases });
const audit = { appendAudit: async (r) => r };
const gate = createPacketHandoffGate({ policyStore, caseData, keys, audit });
const gateRequest = {
  threadId: 'th_bench',
  runId: 'run_bench',
  sourceAgentId: 'io.baton.examples.triage',
  targetAgentId: 'io.baton.examples.refunds',
  input: 'model prose, ignored',
  state: { case_id: 'CASE-1001' },
  threadState: {},
  auth,
};
const buildOptions = { policyStore, caseData, auth, caseRef: 'CASE-1001', recipient: 'io.baton.examples.refunds', keys };

const { packet } = await buildPacketDetailed(buildOptions);
const sentInput = [{ type: 'message', role: 'user', content: renderPacketInput(packet) }];

/** Per-operation time in µs: each recorded sample is a batch of BATCH operations. */
async function perOp(fn) {
  const r = await measure(
    async () => {
      for (let i = 0; i < BATCH; i++) await fn();
    },
    { warmup: 20, iterations: SAMPLES },
  );
  const us = (ms) => (ms * 1000) / BATCH;
  return { median_us: round(us(r.median)), p99_us: round(us(r.p99)), min_us: round(us(r.min)) };
}

/** Runs the bench, prints a table and writes bench/results/packets.json. */
export default async function run() {
  const baseline = await perOp(() => createHmac('sha256', keys.auditKey).update(JSON.stringify(packet)).digest('hex'));
  const measured = {
    build: await perOp(() => buildPacketDetailed(buildOptions)),
    render: await perOp(() => renderPacketInput(packet)),
    digest: await perOp(() => keyedDigest(keys.auditKey, sentInput)),
    gate: await perOp(async () => {
      const prepared = await gate.prepare(gateRequest);
      await prepared.onRecipientModelRequest({ input: [{ type: 'message', role: 'user', content: prepared.input }] });
    }),
  };
  const operations = Object.fromEntries(
    Object.entries(measured).map(([name, r]) => [
      name,
      { ...r, ratio_to_baseline: round(r.median_us / baseline.median_us), under_target: r.median_us < TARGET_US },
    ]),
  );
  printTable(
    [
      {
        operation: 'baseline (JSON.stringify + HMAC)',
        median_us: baseline.median_us,
        p99_us: baseline.p99_us,
        x_baseline: 1,
        under_50us: '',
      },
      ...Object.entries(operations).map(([name, r]) => ({
        operation: name,
        median_us: r.median_us,
        p99_us: r.p99_us,
        x_baseline: r.ratio_to_baseline,
        under_50us: r.under_target ? 'yes' : 'NO',
      })),
    ],
    {
      title: `@baton/packets: per-packet time (µs), ${SAMPLES} samples × ${BATCH} ops, packet ${Buffer.byteLength(JSON.stringify(packet))} B`,
    },
  );
  const file = await writeResult('packets', {
    unit: 'µs per packet',
    target_us: TARGET_US,
    samples: SAMPLES,
    batch: BATCH,
    packet_bytes: Buffer.byteLength(JSON.stringify(packet)),
    notes:
      'build = contract + approvals + case fields + references + packet; gate = build + decision audit + render + boundary digest + boundary audit (in-memory sink); digest = HMAC-SHA-256 over RFC 8785 canonical JSON of the sent input.',
    baseline: { name: 'JSON.stringify + HMAC-SHA-256 of the same packet', ...baseline },
    operations,
  });
  process.stdout.write(`wrote ${file}\n`);
  return operations;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
