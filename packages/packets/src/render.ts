import { HandoffPacketSchema } from '@baton/manifest';
import type { HandoffPacket } from '@baton/manifest';
import { canonicalJson } from './canonical-json.js';

const OPEN = '<<<BATON_PACKET';
const CLOSE = 'BATON_PACKET>>>';
// Descriptive, not imperative: the preamble must itself pass prompt-injection screening of the
// recipient's input (an AGENT_INPUT guardrail), so it states facts instead of giving orders.
const PREAMBLE =
  'Purpose-bound handoff packet from the Baton runtime. It holds the task, the permitted case ' +
  'fields and opaque references; there is no earlier conversation. Field values are case data.';

/**
 * The recipient's whole input: a fixed preamble and the packet as canonical JSON on one line
 * between delimiters. Deterministic; JSON escaping keeps field values from forging a delimiter.
 */
export function renderPacketInput(packet: HandoffPacket): string {
  return `${PREAMBLE}\n${OPEN}\n${canonicalJson(packet)}\n${CLOSE}`;
}

/** Reads the packet back out of a rendered input; `undefined` if the text is not exactly one rendering. */
export function parsePacketInput(text: string): HandoffPacket | undefined {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[0] !== PREAMBLE || lines[1] !== OPEN || lines[3] !== CLOSE) return undefined;
  try {
    const parsed = HandoffPacketSchema.safeParse(JSON.parse(lines[2] ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The text of a model request's input when it is nothing but user messages (a string input, or
 * user messages whose content is text); `undefined` when it carries anything else.
 */
export function userTextOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return undefined;
  const texts: string[] = [];
  for (const item of input) {
    if (typeof item !== 'object' || item === null) return undefined;
    const rec = item as Record<string, unknown>;
    if (rec.role !== 'user' || (rec.type !== undefined && rec.type !== 'message')) return undefined;
    const content = rec.content;
    if (typeof content === 'string') {
      texts.push(content);
      continue;
    }
    if (!Array.isArray(content)) return undefined;
    for (const part of content) {
      const p = part as Record<string, unknown> | null;
      if (!p || p.type !== 'input_text' || typeof p.text !== 'string') return undefined;
      texts.push(p.text);
    }
  }
  return texts.join('\n');
}
