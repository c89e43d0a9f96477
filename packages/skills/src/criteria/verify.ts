import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import path from 'node:path';
import { scrubbedEnv } from '@baton/runner/process';
import { runProcess } from '../process/run-process.js';
import type { Criterion, CriterionResult, VerifyCriteriaResult } from './types.js';

/** What the criteria are checked against. */
export interface VerifyContext {
  /** The subagent's `output_payload`. */
  output: Record<string, unknown>;
  /** Directory `command` criteria run in. */
  workspace: string;
  /** Workspace-relative paths the subagent's edits changed. */
  changedFiles?: readonly string[];
  /** Cancels running commands. */
  signal?: AbortSignal;
  /** Environment for commands (default: a scrubbed copy of process.env). */
  env?: Record<string, string>;
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) collectStrings(v, out);
}

function targetText(output: Record<string, unknown>, target: string | undefined): string | undefined {
  if (target === undefined) {
    const parts: string[] = [];
    collectStrings(output, parts);
    return parts.join('\n');
  }
  let cur: unknown = output;
  for (const key of target.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  if (cur === undefined) return undefined;
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}

function inBounds(n: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || n >= min) && (max === undefined || n <= max);
}

function describeBounds(min: number | undefined, max: number | undefined): string {
  return [min !== undefined ? `>= ${min}` : '', max !== undefined ? `<= ${max}` : ''].filter(Boolean).join(' and ');
}

async function verifyOne(c: Criterion, ctx: VerifyContext): Promise<CriterionResult> {
  switch (c.type) {
    case 'json_schema': {
      const ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats.default(ajv);
      let validate;
      try {
        validate = ajv.compile(c.schema);
      } catch (err) {
        return { criterion: c, ok: false, message: `the criterion's schema does not compile: ${(err as Error).message}` };
      }
      const ok = validate(ctx.output);
      const errs = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim()).join('; ');
      return {
        criterion: c,
        ok,
        message: ok ? 'output_payload is valid against the schema' : `output_payload is not valid against the schema: ${errs}`,
      };
    }
    case 'command': {
      const [cmd, ...args] = c.command as [string, ...string[]];
      const r = await runProcess({
        command: cmd,
        args,
        cwd: path.resolve(ctx.workspace),
        env: ctx.env ?? scrubbedEnv(),
        timeoutMs: c.timeout_ms,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      const label = c.command.join(' ');
      if (r.spawnError) return { criterion: c, ok: false, message: `\`${label}\` could not start: ${r.spawnError}` };
      if (r.killedBy === 'TIMEOUT')
        return { criterion: c, ok: false, message: `\`${label}\` did not finish within ${c.timeout_ms} ms and was killed` };
      if (r.killedBy) return { criterion: c, ok: false, message: `\`${label}\` was stopped (${r.killedBy.toLowerCase()})` };
      const ok = r.exitCode === 0;
      return { criterion: c, ok, message: ok ? `\`${label}\` exited 0` : `\`${label}\` exited with ${r.exitCode ?? r.signal}` };
    }
    case 'regex': {
      const text = targetText(ctx.output, c.target);
      if (text === undefined) return { criterion: c, ok: false, message: `output_payload has no ${c.target}` };
      const ok = new RegExp(c.pattern, c.flags).test(text);
      return {
        criterion: c,
        ok,
        message: ok ? `${c.target ?? 'output'} matches /${c.pattern}/` : `${c.target ?? 'output'} does not match /${c.pattern}/`,
      };
    }
    case 'word_count':
    case 'length': {
      const text = targetText(ctx.output, c.target);
      if (text === undefined) return { criterion: c, ok: false, message: `output_payload has no ${c.target}` };
      const n = c.type === 'word_count' ? (text.match(/\S+/g) ?? []).length : [...text].length;
      const ok = inBounds(n, c.min, c.max);
      const unit = c.type === 'word_count' ? 'words' : 'characters';
      return { criterion: c, ok, message: `${c.target ?? 'output'} has ${n} ${unit}; needs ${describeBounds(c.min, c.max)}` };
    }
    case 'files_changed': {
      const changed = new Set(ctx.changedFiles ?? []);
      const missing = (c.paths ?? []).filter((p) => !changed.has(p.replace(/^\.\//, '')));
      const min = c.min ?? 1;
      const ok = missing.length === 0 && changed.size >= min;
      const message = missing.length > 0 ? `not changed: ${missing.join(', ')}` : `${changed.size} file(s) changed; needs at least ${min}`;
      return { criterion: c, ok, message };
    }
  }
}

/** Verifies every criterion (in order) and reports each result; `ok` only if all pass. */
export async function verifyCriteria(criteria: readonly Criterion[], ctx: VerifyContext): Promise<VerifyCriteriaResult> {
  const results: CriterionResult[] = [];
  for (const c of criteria) results.push(await verifyOne(c, ctx));
  return { ok: results.every((r) => r.ok), results };
}
