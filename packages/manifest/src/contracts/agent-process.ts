import { z } from 'zod';
import { SpanIdSchema, TraceIdSchema } from './ids.js';

/** The single JSON object a subprocess agent reads from stdin (seed: Runner Invocation Contract). */
export const AgentProcessInputSchema = z
  .object({
    thread_id: z.string().min(1),
    run_id: z.string().min(1),
    input_message: z.object({ content: z.string(), role: z.literal('user') }).strict(),
    state: z.record(z.string(), z.unknown()),
    config: z.record(z.string(), z.unknown()),
    trace: z
      .object({
        trace_id: TraceIdSchema,
        parent_span_id: SpanIdSchema,
        /** W3C trace-flags of the runner's span, 2 lower-case hex (`01` sampled, `02` random trace id). */
        trace_flags: z
          .string()
          .regex(/^[0-9a-f]{2}$/, 'must be 2 lower-case hex characters')
          .optional(),
        /** The W3C `tracestate` the run carries, to send on with `traceparent`. */
        tracestate: z
          .string()
          .max(32 * 513)
          .optional(),
      })
      .strict(),
  })
  .strict();
export type AgentProcessInput = z.infer<typeof AgentProcessInputSchema>;

/** A tool call an agent process asks the runner to perform (including `system::handoff`). */
export const AgentProcessToolCallSchema = z
  .object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), arguments: z.string() }).strict(),
  })
  .strict();
export type AgentProcessToolCall = z.infer<typeof AgentProcessToolCallSchema>;

/** The single JSON object a subprocess agent writes to stdout before it exits. */
export const AgentProcessOutputSchema = z
  .object({
    /** The agent's reply to the user, if it has one. */
    response: z.string().nullable().optional(),
    /** The agent's updated state; the runner persists it for the next run on the thread. */
    state: z.record(z.string(), z.unknown()),
    /** External actions the agent requests, handoffs included. */
    tool_calls: z.array(AgentProcessToolCallSchema).default([]),
  })
  .strict();
export type AgentProcessOutput = z.infer<typeof AgentProcessOutputSchema>;
