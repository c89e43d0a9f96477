// reviewer: a Baton example skill. Reviews another subagent's work and returns a verdict:
// payload { edits?: unified diff or replace blocks, output?: object, schema?: JSON Schema for
// `output`, max_changed_lines?: number, forbid?: regular expressions no added line may match }.
// The verdict is "approve" or "reject" with the reasons; a reject is still a SUCCESSful review.
// The schema check covers the JSON Schema keywords a review needs (type, required, properties,
// additionalProperties: false, enum, const, pattern, min/maxLength, minimum/maximum, items,
// min/maxItems) with no dependencies; unknown keywords are reported, not ignored.
import { readFileSync } from 'node:fs';

const yieldControl = (response) => process.stdout.write(`${JSON.stringify(response)}\n`);
const KNOWN = new Set(['$schema', '$id', 'title', 'description', 'type', 'required', 'properties', 'additionalProperties', 'enum', 'const', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'items', 'minItems', 'maxItems']);

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function check(schema, value, at, problems) {
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) problems.push(`${at || '/'}: schema keyword ${k} is not supported by this reviewer`);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) {
      problems.push(`${at || '/'}: expected ${types.join(' or ')}, got ${t}`);
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) problems.push(`${at || '/'}: not one of the allowed values`);
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) problems.push(`${at || '/'}: not the required constant`);
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${at || '/'}: does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && [...value].length < schema.minLength) problems.push(`${at || '/'}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) problems.push(`${at || '/'}: longer than ${schema.maxLength}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${at || '/'}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${at || '/'}: above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${at || '/'}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${at || '/'}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((v, i) => check(schema.items, v, `${at}/${i}`, problems));
  }
  if (typeOf(value) === 'object') {
    for (const r of schema.required ?? []) if (!(r in value)) problems.push(`${at || '/'}: missing required ${r}`);
    for (const [k, v] of Object.entries(value)) {
      if (schema.properties?.[k]) check(schema.properties[k], v, `${at}/${k}`, problems);
      else if (schema.additionalProperties === false) problems.push(`${at || '/'}: unexpected property ${k}`);
    }
  }
}

/** Lines an edit adds and removes (unified diff `+`/`-` lines, or replace blocks' snippets). */
function changedLines(edits) {
  const added = [];
  let removed = 0;
  if (/^REPLACE_START\s*$/m.test(edits)) {
    const re = /REPLACE_START\n([\s\S]*?)\nREPLACE_WITH\n([\s\S]*?)\nREPLACE_END/g;
    for (const m of edits.matchAll(re)) {
      removed += m[1].split('\n').length;
      added.push(...m[2].split('\n'));
    }
  } else {
    for (const line of edits.split('\n')) {
      if (line.startsWith('+++') || line.startsWith('---')) continue;
      if (line.startsWith('+')) added.push(line.slice(1));
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

function run(pkg) {
  const p = pkg.payload ?? {};
  if (p.edits === undefined && p.output === undefined) {
    return { status: 'BLOCKED_AWAITING_CLARIFICATION', output_payload: {}, error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: 'nothing to review: pass edits and/or output' } };
  }
  const reasons = [];
  let changed = 0;
  if (typeof p.edits === 'string') {
    const { added, removed } = changedLines(p.edits);
    changed = added.length + removed;
    if (changed === 0) reasons.push('the edits change nothing');
    if (typeof p.max_changed_lines === 'number' && changed > p.max_changed_lines) reasons.push(`${changed} changed lines, more than the ${p.max_changed_lines} allowed`);
    for (const pattern of p.forbid ?? []) {
      const re = new RegExp(pattern, 'u');
      if (added.some((l) => re.test(l))) reasons.push(`an added line matches the forbidden pattern /${pattern}/`);
    }
  }
  if (p.schema !== undefined) {
    const problems = [];
    check(p.schema, p.output, '', problems);
    reasons.push(...problems.map((x) => `output ${x}`));
  }
  const verdict = reasons.length === 0 ? 'approve' : 'reject';
  return { status: 'SUCCESS', output_payload: { verdict, reasons, changed_lines: changed }, log_summary: `${verdict}: ${reasons.length} problem(s)` };
}

let pkg;
try {
  pkg = JSON.parse(readFileSync(0, 'utf8'));
} catch (err) {
  yieldControl({ status: 'FAILURE', output_payload: {}, error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: `stdin is not a SkillPackage: ${err.message}` } });
  process.exit(0);
}
try {
  yieldControl(run(pkg));
} catch (err) {
  yieldControl({ status: 'FAILURE', output_payload: {}, error_report: { code: 'ERR_TOOL_FAILURE', message: String(err?.message ?? err) } });
}
