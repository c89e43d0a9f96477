// The scenario both runner-overhead scripts drive (index.mjs, the benchmark; _drive.mjs, the
// profiling driver): two agents, one tool call, one handoff, three model turns.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario } from '@baton/runner';

// The offline model drives every variant: rules keyed by what each request offers, so the raw
// SDK (which knows no agent ids) and the Baton runner get the same replies.
export const SCENARIO = parseScenario(`
version: 1
name: bench
agents:
  '*':
    rules:
      - when: { last_item: user, offers_tool: get_case }
        call: { name: get_case, arguments: { case_id: C-1001 } }
      - when: { tool: get_case }
        handoff: { target: refunds, input: 'Refund request for order {{last_tool_output.json.order_id}}', state: { order_id: '{{last_tool_output.json.order_id}}' } }
      - message: Refund approved for the order.
`);

export const getCase = async ({ case_id }) => JSON.stringify({ case_id, order_id: 'ORD-73914', category: 'electronics', amount: 129.99 });

/** Writes the two agents' manifests and baton.yml to a temporary directory; returns it. */
export function writeAgents(inputGuardrail) {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-agents-'));
  const manifest = (id, name, tools) => `schema_version: "1.0"
id: ${id}
version: 1.0.0
name: ${name}
instructions: |
  Benchmark agent.
model:
  provider: openai
  name: bench-model
tools:${tools}
`;
  writeFileSync(
    join(dir, 'triage.agent.yml'),
    manifest(
      'bench.agents.triage',
      'Triage',
      `
  - type: function
    function:
      name: get_case
      description: Loads a case.
      parameters:
        type: object
        properties:
          case_id: { type: string }
        required: [case_id]
        additionalProperties: false`,
    ),
  );
  writeFileSync(join(dir, 'refunds.agent.yml'), manifest('bench.agents.refunds', 'Refunds', ' []'));
  writeFileSync(
    join(dir, 'baton.yml'),
    `agents:
  bench.agents.triage: { handoffs: [bench.agents.refunds], input_guardrail: ${inputGuardrail} }
  bench.agents.refunds: { input_guardrail: ${inputGuardrail} }
`,
  );
  return dir;
}
