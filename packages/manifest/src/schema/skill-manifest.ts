import { z } from 'zod';
import { SemverSchema } from '../contracts/ids.js';

/**
 * The capability vocabulary of skill manifests: the seed's six plus `fs_write`.
 * - `fs_read`: reads files. - `fs_write`: creates or changes files. - `ast_parsing`: parses source.
 * - `subprocess_exec`: starts processes. - `network_outbound`: opens outbound connections.
 * - `file_delete`: deletes files. - `financial_tx`: moves money.
 */
export const SKILL_CAPABILITIES = [
  'fs_read',
  'fs_write',
  'ast_parsing',
  'subprocess_exec',
  'network_outbound',
  'file_delete',
  'financial_tx',
] as const;
export type SkillCapability = (typeof SKILL_CAPABILITIES)[number];

/** Capabilities whose use needs explicit approval (`requires_approval: true`, seed 002). */
export const APPROVAL_REQUIRED_CAPABILITIES: readonly SkillCapability[] = ['network_outbound', 'file_delete', 'financial_tx'];

/** Type names allowed in the shorthand form of `input_schema` / `output_schema`. */
export const SHORTHAND_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

/** `input_schema` / `output_schema`: the seed's shorthand or a full JSON Schema describing an object. */
export const SkillIoSchema = z.record(z.string(), z.unknown()).meta({
  description:
    'Either shorthand ({"field": "string" | "number" | "integer" | "boolean" | "object" | "array" | "null", "?" suffix = optional}) or a JSON Schema (draft 2020-12) with type "object".',
});

/** `skill_name`: usable as a tool or subagent name. */
export const SkillNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 characters of A-Z, a-z, 0-9, '_' and '-'");

/** The skill's `manifest.json` (seed 002): six mandatory fields, plus optional `description` and `$schema`. */
export const SkillManifestSchema = z
  .object({
    $schema: z.string().optional().meta({ description: 'Editor hint: path or URL of this JSON Schema.' }),
    skill_name: SkillNameSchema,
    version: SemverSchema,
    description: z.string().optional(),
    entry_point: z.string().min(1).meta({ description: "Path of the program to run, relative to the skill's directory and inside it." }),
    input_schema: SkillIoSchema,
    output_schema: SkillIoSchema,
    capabilities: z.array(
      z.enum(SKILL_CAPABILITIES, {
        error: (issue) => `unknown capability ${JSON.stringify(issue.input)}; known: ${SKILL_CAPABILITIES.join(', ')}`,
      }),
    ),
  })
  .strict()
  .meta({ title: 'Baton skill manifest.json', description: 'A portable subagent (skill) definition.' });
export type SkillManifest = z.infer<typeof SkillManifestSchema>;
