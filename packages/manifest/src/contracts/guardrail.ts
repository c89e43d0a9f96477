import { z } from 'zod';
import { AgentIdSchema, TraceRefSchema, UuidSchema } from './ids.js';

/**
 * The five boundary types a guardrail is consulted at. The seed's four plus TOOL_OUTPUT
 * (a tool result before it reaches a model: indirect prompt injection). See DESIGN.md decision 3.
 */
export const ACTION_TYPES = ['AGENT_INPUT', 'TOOL_CALL', 'TOOL_OUTPUT', 'AGENT_RESPONSE', 'AGENT_HANDOFF'] as const;
export const ActionTypeSchema = z.enum(ACTION_TYPES);
export type ActionType = z.infer<typeof ActionTypeSchema>;

export const DECISIONS = ['ALLOW', 'BLOCK', 'MODIFY'] as const;
export const DecisionSchema = z.enum(DECISIONS);
export type Decision = z.infer<typeof DecisionSchema>;

/** TOOL_CALL payload: the tool_call object; `arguments` is a JSON string encoding an object. */
export const ToolCallPayloadSchema = z
  .object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().min(1),
        arguments: z.string().refine((s) => {
          try {
            const v: unknown = JSON.parse(s);
            return typeof v === 'object' && v !== null && !Array.isArray(v);
          } catch {
            return false;
          }
        }, 'must be a JSON string encoding an object'),
      })
      .strict(),
  })
  .strict();
export type ToolCallPayload = z.infer<typeof ToolCallPayloadSchema>;

/** TOOL_OUTPUT payload: a tool's result before it reaches a model. */
export const ToolOutputPayloadSchema = z.object({ tool_call_id: z.string().min(1), name: z.string().min(1), output: z.string() }).strict();
export type ToolOutputPayload = z.infer<typeof ToolOutputPayloadSchema>;

/** AGENT_HANDOFF payload: the arguments object of a system::handoff call. */
export const HandoffPayloadSchema = z
  .object({
    target_agent_id: z.string().min(1),
    input: z.string(),
    state: z.record(z.string(), z.unknown()),
  })
  .strict();
export type HandoffPayload = z.infer<typeof HandoffPayloadSchema>;

/** AGENT_INPUT and AGENT_RESPONSE payloads are plain strings. */
export const TextPayloadSchema = z.string();

const base = {
  action_id: UuidSchema,
  source_agent_id: AgentIdSchema,
  thread_id: z.string().min(1).max(256),
  trace: TraceRefSchema,
};

/** A `POST /v1/validate` request body, discriminated on `action_type`. */
export const GuardrailRequestSchema = z.discriminatedUnion('action_type', [
  z.object({ ...base, action_type: z.literal('AGENT_INPUT'), payload: TextPayloadSchema }).strict(),
  z.object({ ...base, action_type: z.literal('AGENT_RESPONSE'), payload: TextPayloadSchema }).strict(),
  z.object({ ...base, action_type: z.literal('TOOL_CALL'), payload: ToolCallPayloadSchema }).strict(),
  z.object({ ...base, action_type: z.literal('TOOL_OUTPUT'), payload: ToolOutputPayloadSchema }).strict(),
  z.object({ ...base, action_type: z.literal('AGENT_HANDOFF'), payload: HandoffPayloadSchema }).strict(),
]);
export type GuardrailRequest = z.infer<typeof GuardrailRequestSchema>;

/** The payload schema for one action type (used to check a MODIFY's `modified_payload`). */
export function payloadSchemaFor(actionType: ActionType): z.ZodType {
  switch (actionType) {
    case 'AGENT_INPUT':
    case 'AGENT_RESPONSE':
      return TextPayloadSchema;
    case 'TOOL_CALL':
      return ToolCallPayloadSchema;
    case 'TOOL_OUTPUT':
      return ToolOutputPayloadSchema;
    case 'AGENT_HANDOFF':
      return HandoffPayloadSchema;
  }
}

/** A detector finding. Never carries the matched text: only where, what and how bad. */
export const FindingSchema = z
  .object({
    detector: z.string(),
    type: z.string(),
    severity: z.enum(['low', 'medium', 'high', 'critical']),
    /** Where the finding is: a JSON pointer into the payload (`""` for a string payload). */
    path: z.string().optional(),
    /** Start offset (UTF-16 code units) within the string at `path`. */
    start: z.number().int().nonnegative(),
    /** End offset, exclusive. */
    end: z.number().int().nonnegative(),
    /** The detector's calibrated score, 0..1, where it has one (prompt injection). */
    score: z.number().min(0).max(1).optional(),
  })
  .strict();
export type Finding = z.infer<typeof FindingSchema>;

/** A `POST /v1/validate` response body. */
export const GuardrailResponseSchema = z
  .object({
    action_id: UuidSchema,
    decision: DecisionSchema,
    reason_code: z.string().min(1),
    reason_message: z.string(),
    modified_payload: z.unknown().optional(),
    findings: z.array(FindingSchema).optional(),
  })
  .strict();
export type GuardrailResponse = z.infer<typeof GuardrailResponseSchema>;

/** Per-call options for a guardrail validation. */
export interface GuardrailCallOptions {
  /** Aborts the call; an aborted call is a BLOCK. */
  signal?: AbortSignal;
  /** W3C traceparent to send with the call (HTTP implementations). */
  traceparent?: string;
  /** W3C tracestate to send with the call (HTTP implementations). */
  tracestate?: string;
}

/**
 * Anything that decides on a guardrail request: the in-process engine, the HTTP client, a test
 * double. Implementations never throw for a decision; the HTTP client turns failures into BLOCK.
 */
export interface GuardrailValidator {
  validate(request: GuardrailRequest, options?: GuardrailCallOptions): Promise<GuardrailResponse>;
}
