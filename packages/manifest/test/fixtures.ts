import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult, ManifestProblem } from '../src/index.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A valid agent.yml; tests replace one piece of it to make it bad. */
export const VALID_AGENT = `schema_version: "1.0"
id: io.baton.tests.triage
version: 1.2.3
name: Triage
instructions: |
  Load the case with get_case.
model:
  provider: openai
  name: gpt-4.1-mini
tools:
  - type: function
    function:
      name: get_case
      description: Loads a support case.
      parameters:
        type: object
        properties:
          case_id:
            type: string
        required: [case_id]
`;

/** A valid skill manifest.json (the seed's example, with the typo fixed). */
export const VALID_SKILL = `{
  "skill_name": "SourceCodeAnalyzer",
  "version": "1.2.0",
  "entry_point": "analyze.py",
  "input_schema": { "repo_path": "string", "strict_mode": "boolean" },
  "output_schema": { "vulnerabilities": "array", "sloc": "number" },
  "capabilities": ["fs_read", "ast_parsing", "subprocess_exec"]
}
`;

/** Replaces exactly one occurrence of `from` (fails loudly when the fixture drifted). */
export function replaceOnce(source: string, from: string, to: string): string {
  const at = source.indexOf(from);
  if (at < 0 || source.indexOf(from, at + 1) >= 0) throw new Error(`fixture does not contain exactly one ${JSON.stringify(from)}`);
  return source.slice(0, at) + to + source.slice(at + from.length);
}

/** The problems of a failed load (fails the test when it loaded). */
export function problemsOf<T>(result: LoadResult<T>): ManifestProblem[] {
  if (result.ok) throw new Error('expected problems, but the manifest loaded');
  return result.problems;
}

/** 1-based line of the first line containing `needle`. */
export function lineOf(source: string, needle: string): number {
  const index = source.split('\n').findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`no line contains ${JSON.stringify(needle)}`);
  return index + 1;
}

export function readExample(relative: string): string {
  return readFileSync(join(REPO_ROOT, relative), 'utf8');
}

/** A YAML alias bomb ("billion laughs"): 9^12 strings if fully expanded. */
export function aliasBomb(): string {
  let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  let prev = 'a';
  for (const name of 'bcdefghijklm') {
    text += `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
    prev = name;
  }
  return text;
}
