import { RESERVED_TOOL_NAMES } from '../contracts/wire-names.js';
import { toDottedPath, type RawIssue } from '../problems.js';
import { MAX_TOOLS } from '../schema/agent-manifest.js';
import { jsonSchemaCompileProblem } from '../schema/json-schema-compile.js';
import { isRecord } from './util.js';

/** A tool's `parameters` longer than this (as JSON) is refused without compiling it. */
export const MAX_PARAMETERS_CHARS = 16 * 1024;
/** Compiling costs time in proportion to size; past this total (as JSON) the rest is not compiled. */
export const MAX_TOTAL_PARAMETERS_CHARS = 64 * 1024;

/**
 * Checks of `agent.yml` beyond its shape: reserved and duplicate tool names, `required` naming
 * only declared properties, and `parameters` compiling as a JSON Schema. Runs on the raw data
 * (defensively) so these problems are reported even when the shape has problems too.
 */
export function checkAgentManifestData(data: unknown): RawIssue[] {
  const issues: RawIssue[] = [];
  if (!isRecord(data) || !Array.isArray(data.tools)) return issues;
  const firstIndexByName = new Map<string, number>();
  let compiledChars = 0;
  let budgetReported = false;
  data.tools.forEach((tool: unknown, i: number) => {
    if (!isRecord(tool) || !isRecord(tool.function)) return;
    const fn = tool.function;
    const base = ['tools', i, 'function'] as const;
    if (typeof fn.name === 'string') {
      const namePath = [...base, 'name'];
      if (RESERVED_TOOL_NAMES.includes(fn.name)) {
        issues.push({
          path: namePath,
          message: `${toDottedPath(namePath)}: '${fn.name}' is reserved for the runner; user tools may not use it`,
        });
      }
      const first = firstIndexByName.get(fn.name);
      if (first === undefined) firstIndexByName.set(fn.name, i);
      else issues.push({ path: namePath, message: `${toDottedPath(namePath)}: duplicate tool name '${fn.name}' (also tools[${first}])` });
    }
    if (!isRecord(fn.parameters)) return;
    const params = fn.parameters;
    const paramsPath = [...base, 'parameters'];
    if (Array.isArray(params.required)) {
      const declared = isRecord(params.properties) ? params.properties : {};
      const seen = new Set<string>();
      params.required.forEach((entry: unknown, k: number) => {
        if (typeof entry !== 'string') return;
        const entryPath = [...paramsPath, 'required', k];
        if (!Object.prototype.hasOwnProperty.call(declared, entry)) {
          issues.push({ path: entryPath, message: `${toDottedPath(entryPath)}: '${entry}' is required but not declared in properties` });
        }
        if (seen.has(entry)) issues.push({ path: entryPath, message: `${toDottedPath(entryPath)}: '${entry}' is listed twice` });
        seen.add(entry);
      });
    }
    const size = JSON.stringify(params).length;
    if (size > MAX_PARAMETERS_CHARS) {
      issues.push({
        path: paramsPath,
        message: `${toDottedPath(paramsPath)}: schema is ${size} characters as JSON; the limit is ${MAX_PARAMETERS_CHARS}`,
      });
      return;
    }
    // Beyond the tool limit (already a problem) nothing more is compiled.
    if (i >= MAX_TOOLS) return;
    compiledChars += size;
    if (compiledChars > MAX_TOTAL_PARAMETERS_CHARS) {
      if (!budgetReported) {
        issues.push({
          path: paramsPath,
          message: `${toDottedPath(paramsPath)}: the tools' parameter schemas together exceed ${MAX_TOTAL_PARAMETERS_CHARS} characters as JSON; this and later ones were not checked`,
        });
        budgetReported = true;
      }
      return;
    }
    const compileProblem = jsonSchemaCompileProblem(params);
    if (compileProblem) issues.push({ path: paramsPath, message: `${toDottedPath(paramsPath)}: ${compileProblem}` });
  });
  return issues;
}
