#!/usr/bin/env node
// An example subprocess agent (DESIGN.md decision 7). The runner writes one JSON object to its
// stdin and reads one JSON object from its stdout; logs go to stderr as JSON lines that carry
// the run's trace_id and span_id.
//
// It answers order-status questions from a small fixed table (or from `config.status_api_url`
// when set, calling it with trace headers), remembers the last order it looked up in the thread
// state, and hands refund requests off to the refunds agent with a `system::handoff` tool call.
//
// Try it:
//   echo '{"thread_id":"t1","run_id":"r1","input_message":{"role":"user","content":"Where is order 10042?"},
//          "state":{},"config":{},"trace":{"trace_id":"0af7651916cd43dd8448eb211c80319c","parent_span_id":"b7ad6b7169203331"}}' \
//     | node examples/agents/process/order-status-agent.mjs
import { defineAgentProcess } from '@baton/runner/agent-process';

const ORDERS = {
  10042: 'shipped on 2026-03-02, arriving in 2 days',
  10043: 'being packed',
  10044: 'delivered on 2026-02-27',
};

const REFUND = /\b(refund|money back|return (?:it|this|my))\b/i;
const ORDER_ID = /\b(\d{5,10})\b/;

async function lookUp(orderId, config, ctx) {
  if (typeof config.status_api_url !== 'string') return ORDERS[orderId];
  const response = await ctx.fetch(`${config.status_api_url.replace(/\/$/, '')}/orders/${orderId}`, { signal: ctx.signal });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`order status service answered HTTP ${response.status}`);
  const body = await response.json();
  return typeof body.status === 'string' ? body.status : undefined;
}

await defineAgentProcess(
  async (input, ctx) => {
    const text = input.input_message.content;
    const orderId = ORDER_ID.exec(text)?.[1] ?? input.state.last_order_id;
    ctx.logger.info('received a message', { chars: text.length, has_order_id: orderId !== undefined });

    if (REFUND.test(text)) {
      const target = typeof input.config.refunds_agent_id === 'string' ? input.config.refunds_agent_id : 'io.baton.examples.refunds';
      ctx.logger.info('handing off', { target_agent_id: target });
      return {
        response: null,
        state: input.state,
        tool_calls: [
          {
            id: `call_${input.run_id}_handoff`,
            type: 'function',
            function: {
              name: 'system::handoff',
              arguments: JSON.stringify({
                target_agent_id: target,
                input: orderId ? `The customer wants a refund for order ${orderId}.` : 'The customer wants a refund.',
                state: orderId ? { order_id: orderId } : {},
              }),
            },
          },
        ],
      };
    }

    if (!orderId) {
      return { response: 'Which order do you mean? Please give me the order number.', state: input.state, tool_calls: [] };
    }
    const status = await lookUp(orderId, input.config, ctx);
    const lookups = typeof input.state.lookups === 'number' ? input.state.lookups + 1 : 1;
    return {
      response: status ? `Order ${orderId} is ${status}.` : `I could not find order ${orderId}.`,
      state: { ...input.state, last_order_id: orderId, lookups },
      tool_calls: [],
    };
  },
  { name: 'io.baton.examples.order-status' },
);
