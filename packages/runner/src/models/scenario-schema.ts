import { z } from 'zod';

/** Template roots a scenario may reference inside `{{ … }}`. */
export const TEMPLATE_ROOTS = [
  'input',
  'last_text',
  'last_tool_output',
  'tool_outputs',
  'match',
  'input_match',
  'turn',
  'agent',
  'target',
  'previous_input',
  'previous_input_match',
  'earlier_inputs',
] as const;

const TEMPLATE_PATTERN = /\{\{\s*([^}]*?)\s*\}\}/g;

function templateProblem(text: string): string | undefined {
  for (const m of text.matchAll(TEMPLATE_PATTERN)) {
    const expr = m[1] ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/.test(expr)) return `template '{{${expr}}}' is not a dotted path`;
    const root = expr.split('.')[0] as string;
    if (!(TEMPLATE_ROOTS as readonly string[]).includes(root)) {
      return `template '{{${expr}}}' uses unknown root '${root}' (known: ${TEMPLATE_ROOTS.join(', ')})`;
    }
  }
  return undefined;
}

const TemplateString = z.string().superRefine((s, ctx) => {
  const problem = templateProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A JSON value whose strings may hold templates (arguments, state). */
const TemplatedValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([TemplateString, z.number(), z.boolean(), z.null(), z.array(TemplatedValue), z.record(z.string(), TemplatedValue)]),
);

const RegexString = z.string().superRefine((s, ctx) => {
  try {
    new RegExp(s, 'i');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` });
  }
});

/** When a rule applies. Every given condition must hold. */
export const ScenarioConditionSchema = z
  .object({
    /** Model turn within the current agent run, from 1. */
    turn: z.number().int().min(1).optional(),
    /** What the last conversation item is. */
    last_item: z.enum(['user', 'tool_output']).optional(),
    /** The last item is the output of this tool (wire name). */
    tool: z.string().min(1).optional(),
    /** Regex (case-insensitive) on the run's first user message; groups become `{{input_match.N}}`. */
    input_matches: RegexString.optional(),
    /** Regex (case-insensitive) on the last user or tool text; groups become `{{match.N}}`. */
    last_text_matches: RegexString.optional(),
    /** The request offers a tool with this wire name. */
    offers_tool: z.string().min(1).optional(),
    /** This tool has not been called yet in the current agent run. */
    not_called: z.string().min(1).optional(),
    /** The request does (true) or does not (false) replay earlier turns of the thread before the current message. */
    has_history: z.boolean().optional(),
    /**
     * Regex (case-insensitive) on the user message of the latest replayed earlier turn (fails when
     * there is none); groups become `{{previous_input_match.N}}`.
     */
    previous_input_matches: RegexString.optional(),
  })
  .strict();
export type ScenarioCondition = z.infer<typeof ScenarioConditionSchema>;

const CallSchema = z.object({ name: z.string().min(1), arguments: z.record(z.string(), TemplatedValue).default({}) }).strict();

const HandoffSchema = z
  .object({
    /** Regex picking the target from the offered enum of `target_agent_id`; the first offered otherwise. */
    target: RegexString.optional(),
    input: TemplateString,
    state: z.record(z.string(), TemplatedValue).default({}),
  })
  .strict();

/** One rule: a condition and exactly one action. */
export const ScenarioRuleSchema = z
  .object({
    /** A label for the rule, shown in traces and errors. */
    name: z.string().optional(),
    when: ScenarioConditionSchema.default({}),
    call: CallSchema.optional(),
    handoff: HandoffSchema.optional(),
    message: TemplateString.optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const actions = [rule.call, rule.handoff, rule.message].filter((a) => a !== undefined).length;
    if (actions !== 1) {
      ctx.addIssue({ code: 'custom', message: `a rule needs exactly one of 'call', 'handoff' or 'message' (found ${actions})` });
    }
  });
export type ScenarioRule = z.infer<typeof ScenarioRuleSchema>;

export const ScenarioAgentSchema = z.object({ rules: z.array(ScenarioRuleSchema).min(1) }).strict();

/**
 * An offline-model scenario: rules per agent id (or model name, or `*` for any). The first rule
 * whose conditions hold decides the model's reply.
 */
export const ScenarioSchema = z
  .object({
    /** Scenario format version. */
    version: z.literal(1),
    /** A short name shown in outputs. */
    name: z.string().min(1),
    description: z.string().optional(),
    /** Simulated model latency per call, ms (benchmarks and concurrency tests); default 0. */
    latency_ms: z.number().int().min(0).max(60_000).optional(),
    agents: z.record(z.string().min(1), ScenarioAgentSchema),
  })
  .strict();
export type Scenario = z.infer<typeof ScenarioSchema>;
export type ScenarioInput = z.input<typeof ScenarioSchema>;
