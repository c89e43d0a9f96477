import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDelegation, createUnifiedDiff, PayloadTooLargeError } from '../src/index.js';
import { nodeSkill, skillsDir } from './helpers/skills.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

describe('error codes as in seed 002', () => {
  it('forbidden edits are ERR_CONSTRAINT_VIOLATION at once: no self-correction, nothing written', async () => {
    const ws = await tempDir();
    const out = await tempDir('baton-skills-out-');
    await writeFile(path.join(ws, 'keep.txt'), 'keep\n');
    const deletion = createUnifiedDiff({ path: 'keep.txt', before: 'keep\n', after: null });
    const escape = 'FILE: ../outside.txt\nREPLACE_START\na\nREPLACE_WITH\nb\nREPLACE_END\n';
    const dir = await skillsDir([
      {
        name: 'deleter',
        source: nodeSkill(
          `(await import('node:fs')).appendFileSync(process.env.OUT + '/deleter', 'x'); return { status: 'SUCCESS', output_payload: { diff: pkg.payload.diff } };`,
        ),
      },
      {
        name: 'escaper',
        source: nodeSkill(
          `(await import('node:fs')).appendFileSync(process.env.OUT + '/escaper', 'x'); return { status: 'SUCCESS', output_payload: { edits: pkg.payload.edits } };`,
        ),
      },
    ]);
    const d = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      applyEdits: true,
      skillWritablePaths: [out],
      skillEnv: { OUT: out },
    });
    const del = await d.delegate({ subagent_type: 'deleter', instruction_set: 'delete', input_data: { diff: deletion } });
    expect(del).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_CONSTRAINT_VIOLATION' } });
    expect(del.error_report?.message).toMatch(/file_delete/);
    const esc = await d.delegate({ subagent_type: 'escaper', instruction_set: 'escape', input_data: { edits: escape } });
    expect(esc).toMatchObject({ status: 'FAILURE', error_report: { code: 'ERR_CONSTRAINT_VIOLATION' } });
    expect(esc.error_report?.message).toMatch(/outside the workspace/);
    // One attempt each: a retry cannot make a forbidden edit allowed.
    expect(await readFile(path.join(out, 'deleter'), 'utf8')).toBe('x');
    expect(await readFile(path.join(out, 'escaper'), 'utf8')).toBe('x');
    expect(await readFile(path.join(ws, 'keep.txt'), 'utf8')).toBe('keep\n');
  });

  it('an edit that merely does not apply still gets the self-correction (ERR_CRITERIA_NOT_MET)', async () => {
    const ws = await tempDir();
    const out = await tempDir('baton-skills-out-');
    await writeFile(path.join(ws, 'a.txt'), 'one\n');
    const dir = await skillsDir([
      {
        name: 'miss',
        source: nodeSkill(
          `(await import('node:fs')).appendFileSync(process.env.OUT + '/miss', 'x'); return { status: 'SUCCESS', output_payload: { edits: 'FILE: a.txt\\nREPLACE_START\\ntwo\\nREPLACE_WITH\\nthree\\nREPLACE_END\\n' } };`,
        ),
      },
    ]);
    const d = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      applyEdits: true,
      skillWritablePaths: [out],
      skillEnv: { OUT: out },
    });
    const res = await d.delegate({ subagent_type: 'miss', instruction_set: 'x', input_data: {} });
    expect(res.error_report?.code).toBe('ERR_CRITERIA_NOT_MET');
    expect(await readFile(path.join(out, 'miss'), 'utf8')).toBe('xx');
  });

  it('ERR_PAYLOAD_TOO_LARGE says what the payload actually is', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: nodeSkill(`return { status: 'SUCCESS', output_payload: {} };`) }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    const tool = async (input_data: Record<string, unknown>) =>
      JSON.parse(await d.delegateTaskTool.execute({ subagent_type: 'echo', instruction_set: 'x', input_data }, {})) as {
        error_report: { code: string; message: string };
      };
    const prose = Array.from({ length: 1200 }, (_, i) => `Sentence number ${i} of a long report.`).join(' ');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ report: prose }, /^input_data\.report is a \d+-byte text string of 1 line \(limit 32768 bytes\)/],
      [{ img: Buffer.alloc(6000, 7).toString('base64') }, /^input_data\.img is base64-encoded data \(8000 bytes/],
      [{ img: `data:image/png;base64,${Buffer.alloc(6000, 1).toString('base64')}` }, /^input_data\.img is a data: URL of image\/png/],
      [{ bin: 'PNG\u0000\u0001' }, /^input_data\.bin is binary data, not text: it contains control character U\+0000 at offset 3/],
      [{ logs: Array.from({ length: 2500 }, (_, i) => `l${i}`).join('\n') }, /^input_data\.logs is text of 2500 lines/],
      [
        { a: prose.slice(0, 30_000), b: prose.slice(0, 30_000), c: { d: prose.slice(0, 30_001) } },
        /^input_data is \d+ bytes serialised \(limit 65536\); its largest string is input_data\.c\.d \(30001 bytes\)/,
      ],
    ];
    for (const [input, want] of cases) {
      const res = await tool(input);
      expect(res.error_report.code).toBe('ERR_PAYLOAD_TOO_LARGE');
      expect(res.error_report.message).toMatch(want);
      expect(res.error_report.message).toMatch(/file reference/);
    }
    // Long prose below the string limit is not "a base64 blob": it goes through.
    const ok = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { report: prose.slice(0, 20_000) } });
    expect(ok.status).toBe('SUCCESS');
    await expect(d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { report: prose } })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );
  });
});
