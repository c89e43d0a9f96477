import { posix } from 'node:path';
import { toDottedPath, type RawIssue } from '../problems.js';
import { jsonSchemaCompileProblem } from '../schema/json-schema-compile.js';
import { isFullJsonSchema, shorthandTypeProblem } from '../schema/skill-io.js';
import { isRecord } from './util.js';

/** Why `entryPoint` does not stay inside the skill's directory, or `undefined` when it does. */
export function entryPointProblem(entryPoint: string): string | undefined {
  if (entryPoint.includes('\0')) return 'must not contain a NUL character';
  if (/^([/\\]|[A-Za-z]:)/.test(entryPoint)) return `'${entryPoint}' is absolute; it must be a path relative to the skill's directory`;
  const normalized = posix.normalize(entryPoint.replaceAll('\\', '/'));
  if (normalized === '..' || normalized.startsWith('../')) return `'${entryPoint}' escapes the skill's directory`;
  if (normalized === '.' || normalized === './' || normalized.endsWith('/'))
    return `'${entryPoint}' must name a file inside the skill's directory`;
  return undefined;
}

/**
 * Checks of a skill `manifest.json` beyond its shape: `entry_point` stays inside the skill,
 * io schemas are valid shorthand or compiling JSON Schemas of objects, no capability twice.
 */
export function checkSkillManifestData(data: unknown): RawIssue[] {
  const issues: RawIssue[] = [];
  if (!isRecord(data)) return issues;
  if (typeof data.entry_point === 'string' && data.entry_point !== '') {
    const problem = entryPointProblem(data.entry_point);
    if (problem) issues.push({ path: ['entry_point'], message: `entry_point: ${problem}` });
  }
  for (const key of ['input_schema', 'output_schema'] as const) {
    const io = data[key];
    if (!isRecord(io)) continue;
    if (isFullJsonSchema(io)) {
      if (io.type !== 'object')
        issues.push({ path: [key], message: `${key}: a JSON Schema here must describe an object (type: "object")` });
      const problem = jsonSchemaCompileProblem(io);
      if (problem) issues.push({ path: [key], message: `${key}: ${problem}` });
      continue;
    }
    for (const [field, type] of Object.entries(io)) {
      const problem = shorthandTypeProblem(type);
      if (problem) issues.push({ path: [key, field], message: `${toDottedPath([key, field])}: ${problem}` });
    }
  }
  if (Array.isArray(data.capabilities)) {
    const seen = new Set<unknown>();
    data.capabilities.forEach((cap: unknown, i: number) => {
      if (seen.has(cap)) issues.push({ path: ['capabilities', i], message: `capabilities[${i}]: ${JSON.stringify(cap)} is listed twice` });
      seen.add(cap);
    });
  }
  return issues;
}
