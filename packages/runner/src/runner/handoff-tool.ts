import { HANDOFF_PROTOCOL_NAME, type HandoffPayload } from '@baton/manifest';
import type { JsonObject } from '../store/types.js';
import type { ArgumentValidator } from './schema-validator.js';

/** The JSON Schema of `system::handoff` arguments; allowed targets are an enum, never prose. */
export function handoffParameters(targets: readonly string[]): JsonObject {
  return {
    type: 'object',
    properties: {
      target_agent_id: { type: 'string', enum: [...targets], description: 'The agent to hand the conversation to.' },
      input: { type: 'string', description: "The user's request, restated for the target agent." },
      state: { type: 'object', description: 'Structured data merged into the thread state for the target agent.' },
    },
    required: ['target_agent_id', 'input'],
    additionalProperties: false,
  };
}

export const HANDOFF_DESCRIPTION = "Hand the conversation over to another agent. Ends your turn: you will not see this call's result.";

export type ParsedHandoff = { ok: true; value: HandoffPayload } | { ok: false; message: string };

/** Parses and validates raw `system::handoff` arguments against the allowed targets. */
export function parseHandoffArguments(raw: string, schema: JsonObject, validator: ArgumentValidator): ParsedHandoff {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, message: `Error: arguments for ${HANDOFF_PROTOCOL_NAME} are not valid JSON` };
  }
  const problem = validator.check(schema, value);
  if (problem) return { ok: false, message: `Error: invalid ${HANDOFF_PROTOCOL_NAME} arguments: ${problem}` };
  const v = value as { target_agent_id: string; input: string; state?: JsonObject };
  return { ok: true, value: { target_agent_id: v.target_agent_id, input: v.input, state: v.state ?? {} } };
}
