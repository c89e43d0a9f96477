import { z } from 'zod';

/** Subagent statuses a `yield_control` may report (DESIGN.md decision 6). */
export const YIELD_STATUSES = ['SUCCESS', 'FAILURE', 'PARTIAL_COMPLETION', 'BLOCKED_AWAITING_CLARIFICATION'] as const;
export const YieldStatusSchema = z.enum(YIELD_STATUSES);
export type YieldStatus = z.infer<typeof YieldStatusSchema>;

/** Error codes of the subagent protocol; skills may add their own `ERR_*` codes. */
export const KNOWN_ERROR_CODES = [
  'ERR_INSUFFICIENT_CONTEXT',
  'ERR_RESOURCE_EXHAUSTED',
  'ERR_CONSTRAINT_VIOLATION',
  'ERR_TOOL_FAILURE',
  'ERR_TIMEOUT',
] as const;
export const ErrorCodeSchema = z.string().regex(/^ERR_[A-Z0-9_]+$/, 'must look like ERR_SOMETHING');

export const ErrorReportSchema = z
  .object({ code: ErrorCodeSchema, message: z.string(), details: z.record(z.string(), z.unknown()).optional() })
  .strict();
export type ErrorReport = z.infer<typeof ErrorReportSchema>;

/** `yield_control` arguments: the ResponsePackage a subagent returns to its parent. */
export const ResponsePackageSchema = z
  .object({
    status: YieldStatusSchema,
    output_payload: z.record(z.string(), z.unknown()),
    log_summary: z.string().optional(),
    error_report: ErrorReportSchema.nullable().optional(),
  })
  .strict();
export type ResponsePackage = z.infer<typeof ResponsePackageSchema>;

/** `delegate_task` arguments as the parent model sends them (seed parameters plus Baton's). */
export const DelegateTaskArgsSchema = z
  .object({
    subagent_type: z.string().min(1),
    instruction_set: z.string().min(1),
    input_data: z.record(z.string(), z.unknown()),
    max_iterations: z.number().int().min(1).max(100).default(5),
    termination_trigger: z.string().optional(),
    success_criteria: z.array(z.unknown()).optional(),
    requires_approval: z.boolean().optional(),
  })
  .strict();
export type DelegateTaskArgs = z.infer<typeof DelegateTaskArgsSchema>;

/**
 * What actually crosses to a subagent: the SkillPackage built by the runtime (not the model) from
 * `delegate_task` arguments, with depth and lineage so limits hold across processes.
 */
export const SkillPackageSchema = z
  .object({
    task_id: z.string().min(1),
    subagent_type: z.string().min(1),
    instruction_set: z.string(),
    payload: z.record(z.string(), z.unknown()),
    success_criteria: z.array(z.unknown()).default([]),
    constraints: z
      .object({
        max_iterations: z.number().int().min(1),
        timeout_ms: z.number().int().positive(),
        capabilities: z.array(z.string()).default([]),
      })
      .strict(),
    requires_approval: z.boolean().default(false),
    termination_trigger: z.string().optional(),
    depth: z.number().int().nonnegative(),
    max_depth: z.number().int().positive(),
    lineage: z.array(z.string()).default([]),
    trace: z.object({ trace_id: z.string(), parent_span_id: z.string() }).strict().optional(),
    /** Which attempt this is (1 first; 2 the one self-correction). Added by @baton/skills. */
    attempt: z.number().int().min(1).optional(),
    /** On a self-correction attempt: why the previous attempt failed. Added by @baton/skills. */
    previous_error: ErrorReportSchema.optional(),
  })
  .strict();
export type SkillPackage = z.infer<typeof SkillPackageSchema>;

/** The serialized envelope every hand-off carries (seed: "All hand-offs must include a serialized HandoffPacket"). */
export const HandoffPacketSchema = z
  .object({
    packet_id: z.string().min(1),
    contract_version: z.string().min(1),
    tenant: z.string().min(1),
    recipient: z.string().min(1),
    purpose: z.string().min(1),
    task: z.string().max(2000),
    references: z.record(z.string(), z.string()).default({}),
    fields: z.record(z.string(), z.unknown()).default({}),
    field_classes: z.record(z.string(), z.string()).default({}),
    skill_package: SkillPackageSchema.optional(),
  })
  .strict();
export type HandoffPacket = z.infer<typeof HandoffPacketSchema>;
