import { AgentIdSchema } from '@baton/manifest';
import { z } from 'zod';

/** A case field or purpose name: lower snake case. */
const NameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be lower snake case (a-z, 0-9, _), at most 64 characters');

/** A data class label, e.g. `identifier`, `financial`, `contact_pii`. */
export const DataClassSchema = NameSchema;

/** How a permitted field crosses: its value, or a scoped opaque reference derived from it. */
export const FieldDeliverySchema = z.enum(['value', 'reference']);
export type FieldDelivery = z.infer<typeof FieldDeliverySchema>;

const FieldRuleLongSchema = z
  .object({
    /** The field's data class. */
    class: DataClassSchema,
    /** Dotted path of the field in the case record (defaults to the field name). */
    path: z
      .string()
      .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, 'must be a dotted path like customer.email')
      .optional(),
    /** `value` (default) sends the value; `reference` sends only a keyed opaque reference. */
    as: FieldDeliverySchema.optional(),
  })
  .strict();

/** `order_id: identifier` or `order_id: { class: identifier, path: order.id, as: reference }`. */
export const FieldRuleSchema = z
  .union([DataClassSchema, FieldRuleLongSchema])
  .transform((rule) => (typeof rule === 'string' ? { class: rule, as: 'value' as const } : { ...rule, as: rule.as ?? ('value' as const) }));
export type FieldRule = z.output<typeof FieldRuleSchema>;

export const PurposeSchema = z
  .object({
    /** What the purpose is for, for humans. */
    description: z.string().optional(),
    /** The standard task statement application code sends for this purpose. */
    task: z.string().min(1).max(2000),
    /** Longest task statement accepted for this purpose (default 500). */
    task_max_chars: z.number().int().min(1).max(2000).default(500),
    /** Data classes this purpose may receive; every field's class must be listed. */
    data_classes: z.array(DataClassSchema).min(1),
    /** The case fields this purpose may receive, each with its data class. */
    fields: z.record(NameSchema, FieldRuleSchema),
  })
  .strict()
  .superRefine((purpose, ctx) => {
    for (const [name, rule] of Object.entries(purpose.fields)) {
      if (!purpose.data_classes.includes(rule.class)) {
        ctx.addIssue({
          code: 'custom',
          path: ['fields', name],
          message: `field '${name}' has data class '${rule.class}', which is not in this purpose's data_classes (${purpose.data_classes.join(', ')})`,
        });
      }
    }
  });
export type Purpose = z.output<typeof PurposeSchema>;

export const ProviderBoundarySchema = z
  .object({
    /** The model provider the recipient runs on, e.g. `openai`. */
    name: z.string().min(1),
    /** Longest retention the provider may apply to what crosses, in days. */
    retention_days: z.number().int().min(0),
    /** Whether the recipient runs under zero data retention. */
    zero_data_retention: z.boolean(),
  })
  .strict();
export type ProviderBoundary = z.infer<typeof ProviderBoundarySchema>;

export const RecipientSchema = z
  .object({
    description: z.string().optional(),
    provider: ProviderBoundarySchema,
    purposes: z.record(NameSchema, PurposeSchema).refine((p) => Object.keys(p).length > 0, 'a recipient needs at least one purpose'),
  })
  .strict();
export type Recipient = z.output<typeof RecipientSchema>;

/** One approval entry of the case owner: which roles may see which fields, for a tenant and case. */
export const ApprovalSchema = z
  .object({
    /** Tenant the approval applies to, or `*`. */
    tenant: z.string().min(1),
    /** Case the approval applies to, or `*` (default). */
    case_id: z.string().min(1).default('*'),
    /** Role → approved field names. */
    roles: z.record(z.string().min(1), z.array(NameSchema)),
  })
  .strict();
export type Approval = z.output<typeof ApprovalSchema>;

export const RecipientContractSchema = z
  .object({
    /** The contract's version; every packet and audit record carries it. */
    contract_version: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, 'must be a version label such as 2026-11-29.1 or 1.0.0'),
    /** Specialist agent id → its provider boundary and purposes. */
    recipients: z.record(AgentIdSchema, RecipientSchema),
    /** The case owner's approvals. */
    approvals: z.array(ApprovalSchema).default([]),
  })
  .strict();
export type RecipientContract = z.output<typeof RecipientContractSchema>;

/** The roles → field approvals that apply to one case. */
export interface CaseApprovals {
  /** Role → field names the case owner approved for that role. */
  roles: Record<string, string[]>;
}

/**
 * The approvals that apply to (tenant, caseId): the most specific matching entries win
 * (exact tenant+case, then exact tenant with `*` case, then `*` tenant). Same-level entries merge.
 */
export function approvalsFor(contract: RecipientContract, tenant: string, caseId: string): CaseApprovals {
  const score = (a: Approval): number => {
    const t = a.tenant === tenant ? 2 : a.tenant === '*' ? 1 : 0;
    const c = a.case_id === caseId ? 2 : a.case_id === '*' ? 1 : 0;
    return t === 0 || c === 0 ? 0 : t * 3 + c;
  };
  let best = 0;
  for (const a of contract.approvals) best = Math.max(best, score(a));
  const roles: Record<string, string[]> = {};
  if (best === 0) return { roles };
  for (const a of contract.approvals) {
    if (score(a) !== best) continue;
    for (const [role, fields] of Object.entries(a.roles)) {
      roles[role] = [...new Set([...(roles[role] ?? []), ...fields])];
    }
  }
  return { roles };
}
