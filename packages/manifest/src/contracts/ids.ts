import { z } from 'zod';

/** W3C trace-id: 32 lower-case hex characters, not all zero. */
export const TraceIdSchema = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'must be 32 lower-case hex characters')
  .refine((v) => v !== '0'.repeat(32), 'must not be all zeros');

/** W3C span-id / parent-id: 16 lower-case hex characters, not all zero. */
export const SpanIdSchema = z
  .string()
  .regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex characters')
  .refine((v) => v !== '0'.repeat(16), 'must not be all zeros');

/** A UUID string (any version, RFC 9562 layout). */
export const UuidSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID string');

/** Reverse-DNS agent id: lower-case, at least two labels, e.g. `io.baton.examples.triage`. */
export const AgentIdSchema = z
  .string()
  .regex(
    /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/,
    'must be lower-case reverse-DNS with at least two labels (e.g. io.example.agents.triage)',
  );

/** Semantic Versioning 2.0.0, pre-release and build metadata allowed. */
export const SemverSchema = z
  .string()
  .regex(
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/,
    'must be a full semantic version (MAJOR.MINOR.PATCH, e.g. 1.2.3 or 1.2.3-beta.1)',
  );

/** Trace correlation carried in guardrail requests. */
export const TraceRefSchema = z.object({ trace_id: TraceIdSchema, span_id: SpanIdSchema }).strict();
export type TraceRef = z.infer<typeof TraceRefSchema>;
