import { z } from 'zod';
import { AgentProcessInputSchema, AgentProcessOutputSchema } from './contracts/agent-process.js';
import { DelegateTaskArgsSchema, HandoffPacketSchema, ResponsePackageSchema, SkillPackageSchema } from './contracts/delegation.js';
import { GuardrailRequestSchema, GuardrailResponseSchema } from './contracts/guardrail.js';
import { AgentManifestSchema } from './schema/agent-manifest.js';
import { SkillManifestSchema } from './schema/skill-manifest.js';

/** The zod schemas published as JSON Schema files: `schemas/<name>.schema.json`. */
const PUBLISHED: ReadonlyArray<{ name: string; title: string; schema: z.ZodType; io: 'input' | 'output' }> = [
  { name: 'agent', title: 'Baton agent.yml', schema: AgentManifestSchema, io: 'input' },
  { name: 'skill-manifest', title: 'Baton skill manifest.json', schema: SkillManifestSchema, io: 'input' },
  { name: 'guardrail-request', title: 'POST /v1/validate request', schema: GuardrailRequestSchema, io: 'input' },
  { name: 'guardrail-response', title: 'POST /v1/validate response', schema: GuardrailResponseSchema, io: 'output' },
  { name: 'agent-process-input', title: 'Agent process stdin', schema: AgentProcessInputSchema, io: 'input' },
  { name: 'agent-process-output', title: 'Agent process stdout', schema: AgentProcessOutputSchema, io: 'input' },
  { name: 'delegate-task-args', title: 'delegate_task arguments', schema: DelegateTaskArgsSchema, io: 'input' },
  { name: 'skill-package', title: 'SkillPackage', schema: SkillPackageSchema, io: 'input' },
  { name: 'handoff-packet', title: 'HandoffPacket', schema: HandoffPacketSchema, io: 'input' },
  { name: 'response-package', title: 'ResponsePackage (yield_control arguments)', schema: ResponsePackageSchema, io: 'input' },
];

/** Base of the `$id`s of the published schemas. */
export const JSON_SCHEMA_ID_BASE = 'https://baton.dev/schemas/';

/**
 * Generates the published JSON Schemas (draft 2020-12) from the zod schemas, keyed by file name
 * (`agent.schema.json`, …). The package's build writes them to `schemas/`.
 */
export function generateJsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const entry of PUBLISHED) {
    const generated = z.toJSONSchema(entry.schema, { target: 'draft-2020-12', io: entry.io, unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    const { $schema, ...rest } = generated;
    out[`${entry.name}.schema.json`] = {
      $schema,
      $id: `${JSON_SCHEMA_ID_BASE}${entry.name}.schema.json`,
      title: entry.title,
      ...rest,
    };
  }
  return out;
}
