/** The languages `baton skill new` scaffolds. */
export const SCAFFOLD_LANGUAGES = ['ts', 'js', 'python'] as const;
export type ScaffoldLanguage = (typeof SCAFFOLD_LANGUAGES)[number];

const SAMPLE_PACKAGE = (name: string): Record<string, unknown> => ({
  task_id: 'sample-1',
  subagent_type: name,
  instruction_set: 'Upper-case payload.text.',
  payload: { text: 'hello baton' },
  success_criteria: [],
  constraints: { max_iterations: 5, timeout_ms: 60000, capabilities: ['fs_read'] },
  requires_approval: false,
  depth: 1,
  max_depth: 3,
  lineage: ['io.example.parent'],
});

export function manifest(name: string, entryPoint: string): string {
  return `${JSON.stringify(
    {
      skill_name: name,
      version: '0.1.0',
      entry_point: entryPoint,
      input_schema: { text: 'string' },
      output_schema: { result: 'string' },
      capabilities: ['fs_read'],
    },
    null,
    2,
  )}\n`;
}

const JS_BODY = `function run(pkg) {
  const text = pkg.payload?.text;
  if (typeof text !== 'string') {
    // Ambiguity is not guessed at: hand control back and ask.
    return {
      status: 'BLOCKED_AWAITING_CLARIFICATION',
      output_payload: {},
      error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: 'payload.text (a string) is required' },
    };
  }
  return { status: 'SUCCESS', output_payload: { result: text.toUpperCase() }, log_summary: 'upper-cased payload.text' };
}

function main() {
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(0, 'utf8'));
  } catch (err) {
    return { status: 'FAILURE', output_payload: {}, error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: \`stdin is not a SkillPackage: \${err.message}\` } };
  }
  try {
    return run(pkg);
  } catch (err) {
    // Never exit silently: every failure is a yield_control FAILURE.
    return { status: 'FAILURE', output_payload: {}, error_report: { code: 'ERR_TOOL_FAILURE', message: String(err?.message ?? err) } };
  }
}

process.stdout.write(\`\${JSON.stringify(main())}\\n\`);
`;

export function jsEntry(name: string): string {
  return `// ${name}: a Baton skill. Reads one SkillPackage (JSON) on stdin and writes one
// yield_control ResponsePackage (JSON) on stdout. Logs go to stderr.
import { readFileSync } from 'node:fs';

/**
 * @typedef {{ task_id: string, instruction_set: string, payload: Record<string, unknown>,
 *   constraints: { max_iterations: number, timeout_ms: number, capabilities: string[] },
 *   depth: number, max_depth: number, lineage: string[] }} SkillPackage
 * @typedef {{ status: 'SUCCESS' | 'FAILURE' | 'PARTIAL_COMPLETION' | 'BLOCKED_AWAITING_CLARIFICATION',
 *   output_payload: Record<string, unknown>, log_summary?: string,
 *   error_report?: { code: string, message: string } | null }} ResponsePackage
 */

/** @param {SkillPackage} pkg @returns {ResponsePackage} */
${JS_BODY}`;
}

export function tsEntry(name: string): string {
  return `// ${name}: a Baton skill. Reads one SkillPackage (JSON) on stdin and writes one
// yield_control ResponsePackage (JSON) on stdout. Logs go to stderr.
// Node 20 cannot run TypeScript: \`npm run build\` compiles this to dist/skill.js (the entry_point).
import { readFileSync } from 'node:fs';

interface SkillPackage {
  task_id: string;
  instruction_set: string;
  payload: Record<string, unknown>;
  constraints: { max_iterations: number; timeout_ms: number; capabilities: string[] };
  depth: number;
  max_depth: number;
  lineage: string[];
}

interface ResponsePackage {
  status: 'SUCCESS' | 'FAILURE' | 'PARTIAL_COMPLETION' | 'BLOCKED_AWAITING_CLARIFICATION';
  output_payload: Record<string, unknown>;
  log_summary?: string;
  error_report?: { code: string; message: string } | null;
}

${JS_BODY.replace('function run(pkg) {', 'function run(pkg: SkillPackage): ResponsePackage {')
  .replace('function main() {\n  let pkg;', 'function main(): ResponsePackage {\n  let pkg: SkillPackage;')
  .replace('$' + '{err.message}', '$' + '{(err as Error).message}')
  .replace('String(err?.message ?? err)', 'String((err as Error)?.message ?? err)')}`;
}

export function nodeTest(name: string, entry: string): string {
  return `// Runs the skill the way Baton does: a SkillPackage on stdin, a ResponsePackage on stdout.
import { spawnSync } from 'node:child_process';
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../${entry}', import.meta.url));
const samplePackage = ${JSON.stringify(SAMPLE_PACKAGE(name), null, 2).replace(/\n/g, '\n')};

function runSkill(pkg) {
  const r = spawnSync(process.execPath, [entry], { input: JSON.stringify(pkg), encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('yields SUCCESS with the upper-cased text', () => {
  const res = runSkill(samplePackage);
  assert.equal(res.status, 'SUCCESS');
  assert.deepEqual(res.output_payload, { result: 'HELLO BATON' });
});

test('asks for clarification when payload.text is missing', () => {
  const res = runSkill({ ...samplePackage, payload: {} });
  assert.equal(res.status, 'BLOCKED_AWAITING_CLARIFICATION');
  assert.equal(res.error_report.code, 'ERR_INSUFFICIENT_CONTEXT');
});
`;
}

export function pythonEntry(name: string): string {
  return `#!/usr/bin/env python3
"""${name}: a Baton skill.

Reads one SkillPackage (JSON) on stdin and writes one yield_control ResponsePackage (JSON) on
stdout. Logs go to stderr.
"""
import json
import sys


def run(pkg):
    text = (pkg.get("payload") or {}).get("text")
    if not isinstance(text, str):
        # Ambiguity is not guessed at: hand control back and ask.
        return {
            "status": "BLOCKED_AWAITING_CLARIFICATION",
            "output_payload": {},
            "error_report": {"code": "ERR_INSUFFICIENT_CONTEXT", "message": "payload.text (a string) is required"},
        }
    return {"status": "SUCCESS", "output_payload": {"result": text.upper()}, "log_summary": "upper-cased payload.text"}


def main():
    try:
        pkg = json.load(sys.stdin)
    except ValueError as err:
        return {"status": "FAILURE", "output_payload": {}, "error_report": {"code": "ERR_INSUFFICIENT_CONTEXT", "message": "stdin is not a SkillPackage: %s" % err}}
    try:
        return run(pkg)
    except Exception as err:  # never exit silently: every failure is a yield_control FAILURE
        return {"status": "FAILURE", "output_payload": {}, "error_report": {"code": "ERR_TOOL_FAILURE", "message": str(err)}}


if __name__ == "__main__":
    sys.stdout.write(json.dumps(main()) + "\\n")
`;
}

export function pythonTest(name: string): string {
  return `"""Runs the skill the way Baton does: a SkillPackage on stdin, a ResponsePackage on stdout."""
import json
import os
import subprocess
import sys
import unittest

ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "skill.py")
SAMPLE_PACKAGE = json.loads(${JSON.stringify(JSON.stringify(SAMPLE_PACKAGE(name)))})


def run_skill(pkg):
    r = subprocess.run([sys.executable, ENTRY], input=json.dumps(pkg), capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


class SkillTest(unittest.TestCase):
    def test_success(self):
        res = run_skill(SAMPLE_PACKAGE)
        self.assertEqual(res["status"], "SUCCESS")
        self.assertEqual(res["output_payload"], {"result": "HELLO BATON"})

    def test_clarification(self):
        res = run_skill(dict(SAMPLE_PACKAGE, payload={}))
        self.assertEqual(res["status"], "BLOCKED_AWAITING_CLARIFICATION")
        self.assertEqual(res["error_report"]["code"], "ERR_INSUFFICIENT_CONTEXT")


if __name__ == "__main__":
    unittest.main()
`;
}

export function readme(name: string, lang: ScaffoldLanguage, entry: string): string {
  const test = lang === 'python' ? 'python3 -m unittest discover -s test' : 'npm test';
  const build =
    lang === 'ts'
      ? '\n`src/skill.ts` is the source; `npm run build` (TypeScript 5.9) compiles it to `dist/skill.js`, the entry point. The scaffold ships a compiled copy so the skill runs before you install anything.\n'
      : '';
  return `# ${name}

A Baton skill: a subprocess that reads one **SkillPackage** (JSON) on stdin and writes one
**yield_control ResponsePackage** (JSON) on stdout. Logs go to stderr.
${build}
- \`manifest.json\`: name, version, \`entry_point\` (\`${entry}\`), input/output schema, capabilities.
  Check it with \`npx baton validate manifest.json\`.
- Statuses: \`SUCCESS\`, \`FAILURE\`, \`PARTIAL_COMPLETION\`, \`BLOCKED_AWAITING_CLARIFICATION\`; error codes
  \`ERR_INSUFFICIENT_CONTEXT\`, \`ERR_RESOURCE_EXHAUSTED\`, \`ERR_CONSTRAINT_VIOLATION\`, \`ERR_TOOL_FAILURE\`.
- The runtime gives the skill a scrubbed environment (no API keys), the workspace as its working
  directory and a hard timeout; exiting without a ResponsePackage is a \`FAILURE\`.
- Capabilities \`network_outbound\`, \`file_delete\` and \`financial_tx\` need approval.

Test: \`${test}\`

Try it: \`echo '{"task_id":"t","payload":{"text":"hi"},"constraints":{"max_iterations":1,"timeout_ms":1000,"capabilities":[]}}' | ${lang === 'python' ? 'python3' : 'node'} ${entry}\`
`;
}

export function tsPackageJson(name: string): string {
  return `${JSON.stringify(
    {
      name,
      version: '0.1.0',
      private: true,
      type: 'module',
      scripts: { build: 'tsc -p tsconfig.json', test: 'node --test test/skill.test.mjs' },
      devDependencies: { '@types/node': '20.19.25', typescript: '5.9.3' },
    },
    null,
    2,
  )}\n`;
}

export function jsPackageJson(name: string): string {
  return `${JSON.stringify({ name, version: '0.1.0', private: true, type: 'module', scripts: { test: 'node --test test/skill.test.mjs' } }, null, 2)}\n`;
}

export const TS_CONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      rootDir: 'src',
      outDir: 'dist',
      types: ['node'],
      skipLibCheck: true,
    },
    include: ['src'],
  },
  null,
  2,
)}\n`;
