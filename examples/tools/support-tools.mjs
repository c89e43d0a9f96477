// Tool implementations for the example support agents (examples/agents/*.agent.yml).
// `baton run` / `baton serve` load this module (it exports `tools`) from <agents>/../tools/*.mjs,
// or pass it with --tools. The runner validates arguments against each manifest's JSON Schema
// before a tool runs, so these functions can trust their argument types.
import { readFile } from 'node:fs/promises';

const CASES_FILE = new URL('../data/cases.json', import.meta.url);

/** Refund policies by product category; region adjusts the statutory window. */
const POLICIES = {
  electronics: { window_days: 30, condition: 'damaged on arrival or unopened', clause: 'R-2.1' },
  home: { window_days: 30, condition: 'duplicate or erroneous charges are always refunded', clause: 'R-3.4' },
  apparel: { window_days: 30, condition: 'unworn, with tags', clause: 'R-4.2' },
};
const REGION_MINIMUM_DAYS = { EU: 14, UK: 14, US: 0 };

let casesPromise;
async function loadCases() {
  casesPromise ??= readFile(CASES_FILE, 'utf8').then((text) => JSON.parse(text).cases);
  return casesPromise;
}

export const tools = {
  /** The whole case record, as a support agent sees it. */
  async get_case({ case_id }) {
    const found = (await loadCases()).find((c) => c.case_id === case_id);
    return found ? JSON.stringify(found) : JSON.stringify({ error: `no case with id ${case_id}` });
  },

  /** Order facts only: no customer details, notes or messages. */
  async get_order({ order_id }) {
    const c = (await loadCases()).find((x) => x.order_id === order_id);
    if (!c) return JSON.stringify({ error: `no order with id ${order_id}` });
    return JSON.stringify({
      order_id: c.order_id,
      product_category: c.product_category,
      region: c.region,
      amount: c.refund_amount,
      currency: c.currency,
    });
  },

  async get_refund_policy({ category, region }) {
    const policy = POLICIES[category];
    if (!policy) return JSON.stringify({ error: `no refund policy for category ${category}` });
    const window = Math.max(policy.window_days, REGION_MINIMUM_DAYS[region ?? 'US'] ?? 0);
    return JSON.stringify({
      category,
      region: region ?? 'US',
      window_days: window,
      clause: policy.clause,
      summary: `Refunds within ${window} days when ${policy.condition} (clause ${policy.clause}).`,
    });
  },

  /** Does not send anything: records the e-mail in the result, as a stand-in mail gateway. */
  async send_customer_email({ to, subject, body }) {
    return JSON.stringify({ status: 'queued', to, subject, characters: body.length });
  },
};
