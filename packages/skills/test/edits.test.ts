import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdits, ConstraintViolationError, createUnifiedDiff, EditError, parseReplaceBlocks, sha256Hex } from '../src/index.js';
import { tempDir } from './helpers/tmp.js';

async function workspaceWith(files: Record<string, string>): Promise<string> {
  const ws = await tempDir();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, name)), { recursive: true });
    await writeFile(path.join(ws, name), content);
  }
  return ws;
}

async function expectEditError(p: Promise<unknown>, code: string, text?: RegExp): Promise<EditError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EditError);
  expect((err as EditError).code).toBe(code);
  if (text) expect((err as EditError).message).toMatch(text);
  return err as EditError;
}

describe('replace blocks', () => {
  it('parses several blocks and applies them', async () => {
    const ws = await workspaceWith({ 'src/a.js': 'const x = 1;\nconst y = 2;\n', 'b.txt': 'hello world\n' });
    const text =
      'FILE: src/a.js\nREPLACE_START\nconst y = 2;\nREPLACE_WITH\nconst y = 3;\nREPLACE_END\n\nFILE: b.txt\nREPLACE_START\nhello\nREPLACE_WITH\ngoodbye\nREPLACE_END\n';
    expect(parseReplaceBlocks(text)).toHaveLength(2);
    const res = await applyEdits({ workspace: ws, edits: text });
    expect(res.changes).toEqual([
      { path: 'src/a.js', action: 'modified', sha256: sha256Hex('const x = 1;\nconst y = 3;\n') },
      { path: 'b.txt', action: 'modified', sha256: sha256Hex('goodbye world\n') },
    ]);
    expect(await readFile(path.join(ws, 'src/a.js'), 'utf8')).toBe('const x = 1;\nconst y = 3;\n');
    expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('goodbye world\n');
  });

  it('accepts an absolute path inside the workspace (the seed uses absolute paths)', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n' });
    await applyEdits({ workspace: ws, edits: `FILE: ${path.join(ws, 'a.txt')}\nREPLACE_START\none\nREPLACE_WITH\ntwo\nREPLACE_END\n` });
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('two\n');
  });

  it('refuses a snippet that matches zero times, naming the file and the count', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n' });
    await expectEditError(
      applyEdits({ workspace: ws, edits: 'FILE: a.txt\nREPLACE_START\nthree\nREPLACE_WITH\nfour\nREPLACE_END' }),
      'NO_MATCH',
      /a\.txt.*0 times/,
    );
  });

  it('refuses a snippet that matches several times', async () => {
    const ws = await workspaceWith({ 'a.txt': 'x = 1\nx = 1\nx = 1\n' });
    const err = await expectEditError(
      applyEdits({ workspace: ws, edits: 'FILE: a.txt\nREPLACE_START\nx = 1\nREPLACE_WITH\nx = 2\nREPLACE_END' }),
      'AMBIGUOUS_MATCH',
      /3 times/,
    );
    expect(err.file).toBe('a.txt');
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
  });

  it('reports malformed blocks as PARSE_ERROR with a line number', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n' });
    await expectEditError(
      applyEdits({ workspace: ws, edits: 'FILE: a.txt\nREPLACE_START\none\nREPLACE_END\n' }),
      'PARSE_ERROR',
      /line \d+/,
    );
    await expectEditError(applyEdits({ workspace: ws, edits: [{ format: 'replace_blocks', text: 'garbage' }] }), 'PARSE_ERROR');
  });
});

describe('workspace confinement', () => {
  it('refuses .. escapes and absolute paths outside the workspace, writing nothing', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n' });
    const outside = await tempDir();
    await writeFile(path.join(outside, 'victim.txt'), 'safe\n');
    const rel = path.relative(ws, path.join(outside, 'victim.txt'));
    await expectEditError(
      applyEdits({ workspace: ws, edits: `FILE: ${rel}\nREPLACE_START\nsafe\nREPLACE_WITH\npwned\nREPLACE_END` }),
      'PATH_ESCAPE',
    );
    await expectEditError(
      applyEdits({
        workspace: ws,
        edits: `FILE: ${path.join(outside, 'victim.txt')}\nREPLACE_START\nsafe\nREPLACE_WITH\npwned\nREPLACE_END`,
      }),
      'PATH_ESCAPE',
    );
    await expectEditError(applyEdits({ workspace: ws, edits: '--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-a\n+b\n' }), 'PATH_ESCAPE');
    expect(await readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('safe\n');
  });

  it('refuses symlink escapes (a symlinked directory and a symlinked file)', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n' });
    const outside = await tempDir();
    await writeFile(path.join(outside, 'victim.txt'), 'safe\n');
    await symlink(outside, path.join(ws, 'link-dir'));
    await symlink(path.join(outside, 'victim.txt'), path.join(ws, 'link-file.txt'));
    await expectEditError(
      applyEdits({ workspace: ws, edits: 'FILE: link-dir/victim.txt\nREPLACE_START\nsafe\nREPLACE_WITH\npwned\nREPLACE_END' }),
      'PATH_ESCAPE',
      /symlink/,
    );
    await expectEditError(
      applyEdits({ workspace: ws, edits: 'FILE: link-file.txt\nREPLACE_START\nsafe\nREPLACE_WITH\npwned\nREPLACE_END' }),
      'PATH_ESCAPE',
      /symlink/,
    );
    await expectEditError(
      applyEdits({ workspace: ws, edits: '--- /dev/null\n+++ b/link-dir/new.txt\n@@ -0,0 +1 @@\n+evil\n' }),
      'PATH_ESCAPE',
    );
    expect(await readdir(outside)).toEqual(['victim.txt']);
    expect(await readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('safe\n');
  });
});

describe('unified diffs', () => {
  it('modifies, creates and deletes files (deletion needs file_delete)', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n' });
    const patch = [
      createUnifiedDiff({ path: 'a.txt', before: 'one\ntwo\nthree\n', after: 'one\n2\nthree\n' }),
      createUnifiedDiff({ path: 'dir/new.txt', before: null, after: 'fresh\n' }),
      createUnifiedDiff({ path: 'gone.txt', before: 'bye\n', after: null }),
    ].join('');
    const denied = await applyEdits({ workspace: ws, edits: patch }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ConstraintViolationError);
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    const res = await applyEdits({ workspace: ws, edits: patch, capabilities: ['file_delete'] });
    expect(res.changes.map((c) => `${c.action}:${c.path}`).sort()).toEqual(['created:dir/new.txt', 'deleted:gone.txt', 'modified:a.txt']);
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('one\n2\nthree\n');
    expect(await readFile(path.join(ws, 'dir/new.txt'), 'utf8')).toBe('fresh\n');
    expect((await readdir(ws)).sort()).toEqual(['a.txt', 'dir']);
  });

  it('applies without fuzz: a context mismatch fails', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\nTWO\nthree\nfour\n' });
    const patch = '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+3\n';
    await expectEditError(applyEdits({ workspace: ws, edits: patch }), 'PATCH_DOES_NOT_APPLY', /a\.txt/);
  });

  it('is all or nothing: one bad file leaves every file untouched', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const patch =
      createUnifiedDiff({ path: 'a.txt', before: 'one\n', after: 'uno\n' }) + '--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-zwei\n+dos\n';
    await expectEditError(applyEdits({ workspace: ws, edits: patch }), 'PATCH_DOES_NOT_APPLY', /b\.txt/);
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('one\n');
    expect((await readdir(ws)).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('rolls back files already renamed when a later rename fails', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const patch =
      createUnifiedDiff({ path: 'a.txt', before: 'one\n', after: 'uno\n' }) +
      createUnifiedDiff({ path: 'new/c.txt', before: null, after: 'c\n' }) +
      createUnifiedDiff({ path: 'b.txt', before: 'two\n', after: 'dos\n' });
    const { rename } = await import('node:fs/promises');
    let calls = 0;
    const flaky = async (from: string, to: string): Promise<void> => {
      if (++calls === 3) throw new Error('disk full (injected)');
      await rename(from, to);
    };
    await expectEditError(applyEdits({ workspace: ws, edits: patch, rename: flaky }), 'WRITE_FAILED', /rolled back/);
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('one\n');
    expect(await readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('two\n');
    expect((await readdir(ws)).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('reports garbage as PARSE_ERROR', async () => {
    const ws = await workspaceWith({ 'a.txt': 'one\n' });
    await expectEditError(applyEdits({ workspace: ws, edits: [{ format: 'unified_diff', text: 'this is not a diff' }] }), 'PARSE_ERROR');
  });
});

describe('createUnifiedDiff and git apply', () => {
  it('produces patches that pass `git apply --check` in a real repository', async () => {
    const ws = await tempDir();
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
        cwd: ws,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    git('init', '-q');
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    await writeFile(path.join(ws, 'file.txt'), before);
    await writeFile(path.join(ws, 'old.txt'), 'obsolete\n');
    await writeFile(path.join(ws, 'nonl.txt'), 'a\nb');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    const after = before.replace('line 3\n', 'line three\n').replace('line 18\n', 'line 18\nline 18.5\n');
    const patches = [
      createUnifiedDiff({ path: 'file.txt', before, after }),
      createUnifiedDiff({ path: 'sub/new.txt', before: null, after: 'brand new\n' }),
      createUnifiedDiff({ path: 'old.txt', before: 'obsolete\n', after: null }),
      createUnifiedDiff({ path: 'nonl.txt', before: 'a\nb', after: 'a\nc' }),
    ];
    for (const p of patches) {
      await writeFile(path.join(ws, 'p.diff'), p);
      git('apply', '--check', 'p.diff');
    }
    await writeFile(path.join(ws, 'all.diff'), patches.join(''));
    git('apply', '--check', 'all.diff');
    // Baton applies the same patch to the same result as git would.
    await applyEdits({ workspace: ws, edits: patches.join(''), capabilities: ['file_delete'] });
    expect(await readFile(path.join(ws, 'file.txt'), 'utf8')).toBe(after);
    expect(await readFile(path.join(ws, 'nonl.txt'), 'utf8')).toBe('a\nc');
    expect(createUnifiedDiff({ path: 'x', before: 'same', after: 'same' })).toBe('');
  });
});
