import { VagueCriteriaError } from '../errors.js';
import { CriterionSchema } from './types.js';
import type { Criterion } from './types.js';

/** What the deployment configured that string criteria may refer to. */
export interface ParseCriteriaOptions {
  /** JSON Schema that "JSON is schema-valid" checks against (e.g. the skill's output schema). */
  outputSchema?: Record<string, unknown>;
  /** argv that "Tests pass" runs in the workspace. */
  testCommand?: string[];
  /** Timeout for the test command (default 60000 ms). */
  testTimeoutMs?: number;
}

const COMPARE = /^(>=|<=|>|<|=|≥|≤)$/;

function bound(op: string, n: number): { min?: number; max?: number } {
  switch (op) {
    case '>':
      return { min: n + 1 };
    case '>=':
    case '≥':
      return { min: n };
    case '<':
      return { max: Math.max(0, n - 1) };
    case '<=':
    case '≤':
      return { max: n };
    default:
      return { min: n, max: n };
  }
}

/** Parses one string criterion, or refuses it as vague. */
function parseString(text: string, options: ParseCriteriaOptions): Criterion {
  const s = text.trim();
  let m: RegExpExecArray | null;
  if (/^(the )?(output )?json (is |must be )?(schema[- ]valid|valid against (the )?(output )?schema)\.?$/i.test(s)) {
    if (!options.outputSchema)
      throw new VagueCriteriaError(text, 'no JSON Schema is configured for it; pass { "type": "json_schema", "schema": {...} }');
    return { type: 'json_schema', schema: options.outputSchema };
  }
  if (/^(all )?(the )?tests? (pass|passes|succeed)\.?$/i.test(s)) {
    if (!options.testCommand)
      throw new VagueCriteriaError(
        text,
        'no test command is configured; pass { "type": "command", "command": ["npm", "test"], "timeout_ms": 60000 }',
      );
    return { type: 'command', command: options.testCommand, timeout_ms: options.testTimeoutMs ?? 60_000 };
  }
  if ((m = /^(word count|words|length|characters|character count)\s*(>=|<=|>|<|=|≥|≤)\s*(\d+)\.?$/i.exec(s))) {
    const kind = /word/i.test(m[1] as string) ? 'word_count' : 'length';
    const op = m[2] as string;
    if (!COMPARE.test(op)) throw new VagueCriteriaError(text, `unknown comparison ${op}`);
    return { type: kind, ...bound(op, Number(m[3])) };
  }
  if ((m = /^(at least|at most)\s+(\d+)\s+(words|characters)\.?$/i.exec(s))) {
    const kind = /word/i.test(m[3] as string) ? 'word_count' : 'length';
    const n = Number(m[2]);
    return /least/i.test(m[1] as string) ? { type: kind, min: n } : { type: kind, max: n };
  }
  if ((m = /^(?:output )?(?:matches|must match)\s+\/(.+)\/([imsu]*)$/i.exec(s))) {
    return { type: 'regex', pattern: m[1] as string, ...(m[2] ? { flags: m[2] } : {}) };
  }
  if ((m = /^(?:output )?(?:has|contains|includes|returns?) (?:a |the )?(?:field|key) [`"']?([A-Za-z_][\w-]*)[`"']?\.?$/i.exec(s))) {
    return { type: 'json_schema', schema: { type: 'object', required: [m[1] as string] } };
  }
  if ((m = /^(?:at least (\d+) )?files? (?:are |is )?changed\.?$/i.exec(s))) {
    return { type: 'files_changed', min: m[1] ? Number(m[1]) : 1 };
  }
  throw new VagueCriteriaError(
    text,
    'use a structured criterion ({ type: json_schema | command | regex | word_count | length | files_changed }) or a form like "Word count > 500", "Tests pass", "JSON is schema-valid", "Output has field price"',
  );
}

/**
 * Turns `success_criteria` as a model sent them into machine-verifiable criteria. Throws
 * `VagueCriteriaError` naming the first criterion that cannot be verified by a machine.
 */
export function parseCriteria(raw: readonly unknown[], options: ParseCriteriaOptions = {}): Criterion[] {
  return raw.map((c) => {
    if (typeof c === 'string') return parseString(c, options);
    const parsed = CriterionSchema.safeParse(c);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
      throw new VagueCriteriaError(c, `not a valid criterion${where}: ${issue?.message ?? 'invalid'}`);
    }
    const v = parsed.data;
    if (v.type === 'regex') {
      try {
        new RegExp(v.pattern, v.flags);
      } catch (err) {
        throw new VagueCriteriaError(c, `invalid regular expression: ${(err as Error).message}`);
      }
    }
    if ((v.type === 'word_count' || v.type === 'length') && v.min === undefined && v.max === undefined) {
      throw new VagueCriteriaError(c, 'give min or max');
    }
    return v;
  });
}
