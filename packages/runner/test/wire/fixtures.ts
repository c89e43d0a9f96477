import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes two agents (triage → refunds) and a baton.yml into a fresh temp dir. */
export function writeTwoAgents(options: { racing?: boolean } = {}): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'baton-wire-'));
  const tool = (name: string, prop: string) => `  - type: function
    function:
      name: ${name}
      description: Reads ${prop}.
      parameters:
        type: object
        properties:
          ${prop}: { type: string }
        required: [${prop}]
`;
  writeFileSync(
    join(dir, 'triage.agent.yml'),
    `schema_version: "1.0"
id: io.test.triage
version: 1.0.0
name: Triage
instructions: |
  Load the case, then hand refunds to the specialist.
model:
  provider: openai
  name: test-model
tools:
${tool('get_case', 'case_id')}`,
  );
  writeFileSync(
    join(dir, 'refunds.agent.yml'),
    `schema_version: "1.0"
id: io.test.refunds
version: 1.0.0
name: Refunds
instructions: |
  Review refunds.
model:
  provider: openai
  name: test-model
tools:
${tool('get_order', 'order_id')}`,
  );
  writeFileSync(
    join(dir, 'baton.yml'),
    `agents:
  io.test.triage:
    handoffs: [io.test.refunds]
    input_guardrail: ${options.racing ? 'racing' : 'blocking'}
  io.test.refunds:
    input_guardrail: ${options.racing ? 'racing' : 'blocking'}
`,
  );
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A secret-looking marker that must never cross the handoff. */
export const CANARY = 'CANARY-HISTORY-5b1f';

export const testTools = {
  get_case: (args: Record<string, unknown>) =>
    JSON.stringify({ case_id: args.case_id, order_id: 'ORD-1', notes: `private note ${CANARY}` }),
  get_order: (args: Record<string, unknown>) => JSON.stringify({ order_id: args.order_id, amount: 10 }),
};
