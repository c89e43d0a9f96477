import { z } from 'zod';
import { AgentIdSchema, SemverSchema } from '../contracts/ids.js';
import { RESERVED_TOOL_NAMES, WIRE_NAME_PATTERN, wireNameProblem } from '../contracts/wire-names.js';

/** The only `schema_version` of `agent.yml` this package reads. */
export const AGENT_MANIFEST_SCHEMA_VERSION = '1.0';

/** The most tools one agent may declare: the OpenAI API's limit per request. */
export const MAX_TOOLS = 128;

/** A tool name as the OpenAI API accepts it; the message names the offending character. */
export const ToolNameSchema = z
  .string()
  .regex(WIRE_NAME_PATTERN, { error: (issue) => wireNameProblem(String(issue.input)) ?? 'invalid tool name' });

/** A JSON Schema for one property of a tool's parameters (any JSON Schema keywords). */
const PropertySchema = z.record(z.string(), z.unknown()).meta({ description: 'A JSON Schema for one parameter.' });

/**
 * A tool's `parameters`: a JSON Schema object with `type`, `properties` and `required` (all three
 * mandatory, seed 000). Other JSON Schema keywords are allowed; Ajv 2020 rejects unknown ones.
 */
export const ToolParametersSchema = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), PropertySchema),
    required: z.array(z.string()),
  })
  .meta({ description: 'JSON Schema (draft 2020-12) of the tool arguments; must be an object schema.' });

/** One entry of `tools`: an OpenAI function tool. */
export const AgentToolSchema = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: ToolNameSchema.meta({
          description: 'Wire name: ^[a-zA-Z0-9_-]{1,64}$; not a runner-reserved name.',
          not: { enum: [...RESERVED_TOOL_NAMES] },
        }),
        description: z.string().min(1),
        parameters: ToolParametersSchema,
      })
      .strict(),
  })
  .strict();
export type AgentTool = z.infer<typeof AgentToolSchema>;

/** `agent.yml`: every property is mandatory and unknown keys are refused. */
export const AgentManifestSchema = z
  .object({
    schema_version: z.literal(AGENT_MANIFEST_SCHEMA_VERSION),
    id: AgentIdSchema.meta({ description: 'Lower-case reverse-DNS id, at least two labels, e.g. io.baton.examples.triage.' }),
    version: SemverSchema.meta({ description: 'Semantic version 2.0.0 of this agent definition, e.g. 1.2.3.' }),
    name: z.string().min(1).meta({ description: 'Human-readable name.' }),
    instructions: z.string().min(1).meta({ description: 'The instructions given to the model.' }),
    model: z
      .object({
        provider: z.literal('openai'),
        name: z.string().min(1).meta({ description: 'Model name, e.g. gpt-4.1-mini.' }),
      })
      .strict(),
    tools: z.array(AgentToolSchema).max(MAX_TOOLS, {
      error: (issue) => `at most ${MAX_TOOLS} tools are allowed (the OpenAI API's limit); found ${(issue.input as unknown[]).length}`,
    }),
  })
  .strict()
  .meta({ title: 'Baton agent.yml', description: 'An agent definition (schema_version 1.0).' });
export type AgentManifest = z.infer<typeof AgentManifestSchema>;
