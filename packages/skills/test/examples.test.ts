import { execFileSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDelegation } from '../src/index.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills', import.meta.url));
const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n';
const ADD_FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';

async function buggyWorkspace(): Promise<string> {
  const ws = await tempDir();
  await writeFile(path.join(ws, 'math.js'), BUGGY);
  return ws;
}

describe('example skills', () => {
  for (const format of ['replace_blocks', 'unified_diff'] as const) {
    it(`coder fixes a bug (${format}); the runtime checks the criteria and applies the edit`, async () => {
      const ws = await buggyWorkspace();
      const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: EXAMPLES, workspace: ws, applyEdits: true });
      const res = await d.delegate({
        subagent_type: 'coder',
        instruction_set: 'add() subtracts; make it add.',
        input_data: { file: 'math.js', find: ADD_FIXED.replace('+', '-'), replace: ADD_FIXED, format },
        success_criteria: [
          { type: 'files_changed', paths: ['math.js'] },
          {
            type: 'command',
            command: ['node', '--input-type=module', '-e', "import('./math.js').then(m => process.exit(m.add(2, 3) === 5 ? 0 : 1))"],
            timeout_ms: 30000,
          },
        ],
      });
      expect(res.status).toBe('SUCCESS');
      expect(await readFile(path.join(ws, 'math.js'), 'utf8')).toBe(BUGGY.replace('return a - b;', 'return a + b;'));
    });
  }

  it("coder's unified diff passes git apply --check", async () => {
    const ws = await buggyWorkspace();
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.'], { cwd: ws });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'init'], { cwd: ws });
    const res = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: EXAMPLES, workspace: ws }).delegate({
      subagent_type: 'coder',
      instruction_set: 'fix add',
      input_data: {
        file: 'math.js',
        find: '  return a - b;\n}\n\nexport function sub',
        replace: '  return a + b;\n}\n\nexport function sub',
        format: 'unified_diff',
      },
    });
    expect(res.status).toBe('SUCCESS');
    await writeFile(path.join(ws, 'fix.diff'), res.output_payload.edits as string);
    execFileSync('git', ['apply', '--check', 'fix.diff'], { cwd: ws });
  });

  it('coder asks for clarification when the text to fix is ambiguous', async () => {
    const ws = await buggyWorkspace();
    const res = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: EXAMPLES, workspace: ws }).delegate({
      subagent_type: 'coder',
      instruction_set: 'fix',
      input_data: { file: 'math.js', find: 'return a - b;', replace: 'return a + b;' },
    });
    expect(res.status).toBe('BLOCKED_AWAITING_CLARIFICATION');
    expect(res.error_report?.message).toMatch(/occurs 2 times/);
  });

  it('reviewer approves a small, schema-valid change and rejects a bad one', async () => {
    const ws = await buggyWorkspace();
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: EXAMPLES, workspace: ws });
    const schema = { type: 'object', required: ['summary'], properties: { summary: { type: 'string', maxLength: 80 } } };
    const edits = 'FILE: math.js\nREPLACE_START\n  return a - b;\nREPLACE_WITH\n  return a + b;\nREPLACE_END\n';
    const ok = await d.delegate({
      subagent_type: 'reviewer',
      instruction_set: 'review',
      input_data: { edits, output: { summary: 'fix add' }, schema, max_changed_lines: 10, forbid: ['eval\\('] },
    });
    expect(ok.output_payload).toEqual({ verdict: 'approve', reasons: [], changed_lines: 2 });
    const bad = await d.delegate({
      subagent_type: 'reviewer',
      instruction_set: 'review',
      input_data: { edits: edits.replace('a + b', 'eval("a+b")'), output: { summary: 42 }, schema, forbid: ['eval\\('] },
    });
    expect(bad.output_payload.verdict).toBe('reject');
    expect(bad.output_payload.reasons).toEqual([
      'an added line matches the forbidden pattern /eval\\(/',
      'output /summary: expected string, got integer',
    ]);
  });

  it('cleaner is denied by default and, once approved, its deletion applies', async () => {
    const ws = await buggyWorkspace();
    await writeFile(path.join(ws, 'junk.tmp'), 'junk\n');
    const args = { subagent_type: 'cleaner', instruction_set: 'delete junk', input_data: { paths: ['junk.tmp'] }, requires_approval: true };
    const denied = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: EXAMPLES, workspace: ws, applyEdits: true }).delegate(
      args,
    );
    expect(denied.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
    expect((await readdir(ws)).sort()).toEqual(['junk.tmp', 'math.js']);
    const approved = await createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: EXAMPLES,
      workspace: ws,
      applyEdits: true,
      approvals: async () => true,
    }).delegate(args);
    expect(approved.status).toBe('SUCCESS');
    expect(await readdir(ws)).toEqual(['math.js']);
  });
});
