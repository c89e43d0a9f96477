import { z } from 'zod';

const target = z.string().min(1).optional().describe('dot path into output_payload; default: all its string values joined');

/** Machine-verifiable success criteria, the only kind the runtime accepts. */
export const CriterionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).strict(),
  z
    .object({
      type: z.literal('command'),
      command: z.array(z.string().min(1)).min(1),
      timeout_ms: z.number().int().positive().max(600_000).default(60_000),
    })
    .strict(),
  z
    .object({
      type: z.literal('regex'),
      pattern: z.string().min(1),
      flags: z
        .string()
        .regex(/^[imsu]*$/)
        .optional(),
      target,
    })
    .strict(),
  z
    .object({
      type: z.literal('word_count'),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().nonnegative().optional(),
      target,
    })
    .strict(),
  z
    .object({
      type: z.literal('length'),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().nonnegative().optional(),
      target,
    })
    .strict(),
  z
    .object({
      type: z.literal('files_changed'),
      paths: z.array(z.string().min(1)).optional(),
      min: z.number().int().nonnegative().optional(),
    })
    .strict(),
]);
export type Criterion = z.infer<typeof CriterionSchema>;
export type CriterionInput = z.input<typeof CriterionSchema>;

/** The result of checking one criterion. */
export interface CriterionResult {
  criterion: Criterion;
  ok: boolean;
  /** Why it passed or failed, without echoing payload content. */
  message: string;
}

/** The result of {@link verifyCriteria}. */
export interface VerifyCriteriaResult {
  ok: boolean;
  results: CriterionResult[];
}
