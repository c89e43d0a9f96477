import { link, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdits, createUnifiedDiff, EditError, sha256Hex } from '../src/index.js';
import type { FileChange } from '../src/index.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

/** Every reported hash is the hash of what is on disk now (re-read, not trusted). */
async function expectHashesMatchDisk(ws: string, changes: FileChange[]): Promise<void> {
  for (const c of changes) {
    if (c.sha256 === null) continue;
    expect(sha256Hex(await readFile(path.join(ws, c.path))), c.path).toBe(c.sha256);
  }
}

async function workspace(): Promise<string> {
  const ws = await tempDir();
  await mkdir(path.join(ws, 'src'));
  await writeFile(path.join(ws, 'src/a.js'), 'const x = 1;\nconst y = 2;\n');
  await symlink('src', path.join(ws, 'alias'));
  return ws;
}

describe('edits through aliases inside the workspace resolve to one real file', () => {
  it('two replace blocks on one file, one through a symlinked folder: both apply, in order', async () => {
    const ws = await workspace();
    const edits =
      'FILE: src/a.js\nREPLACE_START\nconst x = 1;\nREPLACE_WITH\nconst x = 10;\nREPLACE_END\nFILE: alias/a.js\nREPLACE_START\nconst y = 2;\nREPLACE_WITH\nconst y = 20;\nREPLACE_END\n';
    const { changes } = await applyEdits({ workspace: ws, edits });
    expect(await readFile(path.join(ws, 'src/a.js'), 'utf8')).toBe('const x = 10;\nconst y = 20;\n');
    expect(changes).toEqual([{ path: 'src/a.js', action: 'modified', sha256: sha256Hex('const x = 10;\nconst y = 20;\n') }]);
    await expectHashesMatchDisk(ws, changes);
  });

  it('the second edit sees the first one: a block that only matches the original is refused, nothing written', async () => {
    const ws = await workspace();
    const edits =
      'FILE: alias/a.js\nREPLACE_START\nconst x = 1;\nREPLACE_WITH\nconst x = 10;\nREPLACE_END\nFILE: src/a.js\nREPLACE_START\nconst x = 1;\nREPLACE_WITH\nconst x = 99;\nREPLACE_END\n';
    const err = await applyEdits({ workspace: ws, edits }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EditError);
    expect((err as EditError).code).toBe('NO_MATCH');
    expect(await readFile(path.join(ws, 'src/a.js'), 'utf8')).toBe('const x = 1;\nconst y = 2;\n');
  });

  it('a diff and a replace block through a symlinked file inside the workspace edit the real file (the link stays a link)', async () => {
    const ws = await workspace();
    await symlink('src/a.js', path.join(ws, 'a-link.js'));
    const diff = createUnifiedDiff({ path: 'a-link.js', before: 'const x = 1;\nconst y = 2;\n', after: 'const x = 1;\nconst y = 3;\n' });
    const { changes } = await applyEdits({
      workspace: ws,
      edits: [
        { format: 'unified_diff', text: diff },
        { format: 'replace_blocks', text: 'FILE: alias/a.js\nREPLACE_START\nconst x = 1;\nREPLACE_WITH\nconst x = 5;\nREPLACE_END' },
      ],
    });
    expect(await readFile(path.join(ws, 'src/a.js'), 'utf8')).toBe('const x = 5;\nconst y = 3;\n');
    expect(changes.map((c) => c.path)).toEqual(['src/a.js']);
    await expect((await import('node:fs/promises')).lstat(path.join(ws, 'a-link.js')).then((s) => s.isSymbolicLink())).resolves.toBe(true);
    await expectHashesMatchDisk(ws, changes);
  });

  it('hard links to one file are refused (two names, one file): nothing written', async () => {
    const ws = await workspace();
    await link(path.join(ws, 'src/a.js'), path.join(ws, 'hard.js'));
    const edits =
      'FILE: src/a.js\nREPLACE_START\nconst x = 1;\nREPLACE_WITH\nconst x = 10;\nREPLACE_END\nFILE: hard.js\nREPLACE_START\nconst y = 2;\nREPLACE_WITH\nconst y = 20;\nREPLACE_END\n';
    const err = await applyEdits({ workspace: ws, edits }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EditError);
    expect((err as EditError).code).toBe('PATH_ALIAS');
    expect((err as EditError).message).toMatch(/hard\.js.*src\/a\.js|src\/a\.js.*hard\.js/);
    expect(await readFile(path.join(ws, 'src/a.js'), 'utf8')).toBe('const x = 1;\nconst y = 2;\n');
  });

  it('creating a file through a symlinked folder reports the real path and its hash', async () => {
    const ws = await workspace();
    const diff = createUnifiedDiff({ path: 'alias/new.js', before: null, after: 'export {};\n' });
    const { changes } = await applyEdits({ workspace: ws, edits: diff });
    expect(changes).toEqual([{ path: 'src/new.js', action: 'created', sha256: sha256Hex('export {};\n') }]);
    await expectHashesMatchDisk(ws, changes);
  });
});

describe('through delegation (real subprocess skill, applyEdits)', () => {
  it('a skill returning two edits to one file through a symlinked folder: both land, SUCCESS, hashes match the disk', async () => {
    const { createDelegation } = await import('../src/index.js');
    const { nodeSkill, skillsDir } = await import('./helpers/skills.js');
    const ws = await workspace();
    const edits =
      'FILE: src/a.js\nREPLACE_START\nconst x = 1;\nREPLACE_WITH\nconst x = 10;\nREPLACE_END\nFILE: alias/a.js\nREPLACE_START\nconst y = 2;\nREPLACE_WITH\nconst y = 20;\nREPLACE_END\n';
    const dir = await skillsDir([
      { name: 'editor', source: nodeSkill(`return { status: 'SUCCESS', output_payload: { edits: pkg.payload.edits } };`) },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, applyEdits: true });
    const res = await d.delegate({
      subagent_type: 'editor',
      instruction_set: 'edit',
      input_data: { edits },
      success_criteria: [{ type: 'files_changed', paths: ['src/a.js'] }],
    });
    expect(res.status).toBe('SUCCESS');
    expect(await readFile(path.join(ws, 'src/a.js'), 'utf8')).toBe('const x = 10;\nconst y = 20;\n');
    // The same edits again: the originals are gone, so they are refused and the file stays as it is.
    const again = await d.delegate({ subagent_type: 'editor', instruction_set: 'edit', input_data: { edits }, max_iterations: 1 });
    expect(again.status).toBe('FAILURE');
    expect(again.error_report?.code).toBe('ERR_CRITERIA_NOT_MET');
    expect(sha256Hex(await readFile(path.join(ws, 'src/a.js')))).toBe(sha256Hex('const x = 10;\nconst y = 20;\n'));
  });
});
