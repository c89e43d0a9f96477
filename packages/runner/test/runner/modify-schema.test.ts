/**
 * MODIFY never produces arguments that break the tool's schema. The example triage agent e-mails
 * the customer (`to` is `format: email`) through the real guardrail engine and the offline
 * scenario (a labelled stand-in): with the default policy the redacted address cannot be sent, so
 * the call is a BLOCK that says why and the answer says the e-mail was not sent; with the address
 * allowed per tool (`pii.addressing_fields`) the e-mail goes out with the card number redacted.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { createInProcessGuardrail } from '@baton/guardrail-client';
import { createGuardrailEngine, type PolicyInput } from '@baton/guardrail-server';
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, loadAgentRegistry, Runner, type ToolImplementation } from '../../src/index.js';
import { createOfflineModelProvider } from '../../src/testing/index.js';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const TRIAGE = 'io.baton.examples.triage';
const INPUT = 'Hello, about CASE-1001: please write to me, my card is 4242 4242 4242 4242.';

async function run(policy?: PolicyInput) {
  const sent: Array<Record<string, unknown>> = [];
  const exampleTools = (
    (await import(pathToFileURL(join(EXAMPLES, 'tools/support-tools.mjs')).href)) as { tools: Record<string, ToolImplementation> }
  ).tools;
  const tools: Record<string, ToolImplementation> = {
    ...exampleTools,
    send_customer_email: (args, ctx) => {
      sent.push(args);
      return exampleTools.send_customer_email!(args, ctx);
    },
  };
  const runner = new Runner({
    registry: await loadAgentRegistry({ dir: join(EXAMPLES, 'agents') }),
    tools,
    guardrails: createInProcessGuardrail(createGuardrailEngine(policy ? { policy } : {})),
    store: createMemoryThreadStore(),
    modelProvider: await createOfflineModelProvider({ scenario: join(EXAMPLES, 'scenarios/support.scenario.yml') }),
  });
  const result = await runner.run({ agentId: TRIAGE, input: INPUT });
  const items = (await runner.threadStore.listItems(result.thread_id)).map((i) => i.item);
  return { result, sent, items };
}

describe('a TOOL_CALL MODIFY that would break the schema', () => {
  it('default policy: the redacted address fails format: email, the call is a BLOCK that says so, and the answer does not claim the e-mail went out', async () => {
    const { result, sent, items } = await run();
    expect(result.status).toBe('completed');
    expect(sent).toEqual([]);
    // get_case, then send_customer_email: its MODIFY, and the BLOCK it became.
    const toolCalls = result.guardrail_decisions.filter((d) => d.action_type === 'TOOL_CALL');
    expect(toolCalls.map((d) => [d.decision, d.reason_code])).toEqual([
      ['ALLOW', 'OK'],
      ['MODIFY', 'PII_REDACTED'],
      ['BLOCK', 'GUARDRAIL_MODIFY_BREAKS_SCHEMA'],
    ]);
    const output = items.find((i) => i['type'] === 'function_call_output' && i['name'] === 'send_customer_email');
    expect(output).toMatchObject({ error: 'GUARDRAIL_MODIFY_BREAKS_SCHEMA' });
    expect(String(output?.['output'])).toMatch(/would break the tool's schema \(.*to.*email/);
    expect(result.response).toContain('I could not e-mail the customer about case CASE-1001');
    expect(result.response).not.toContain('I have e-mailed');
  }, 60_000);

  it('with `to` allowed as an addressing field, the e-mail is sent to the real address with the card number redacted', async () => {
    const { result, sent } = await run({ pii: { addressing_fields: { send_customer_email: ['to'] } } });
    expect(result.status).toBe('completed');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toBe('ana.garcia@example.com');
    expect(JSON.stringify(sent[0])).not.toContain('4242 4242');
    expect(result.response).toContain('I have e-mailed the customer about case CASE-1001');
  }, 60_000);
});
