import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkManifestSet, loadAgentManifestFile, loadSkillManifestFile, parseAgentManifest, unwrapManifest } from '../src/index.js';
import { problemsOf, replaceOnce, VALID_AGENT, VALID_SKILL } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-manifest-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(name: string, content: string | Uint8Array): Promise<string> {
  const file = join(dir, name);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, content);
  return file;
}

describe('loadAgentManifestFile', () => {
  it('loads a valid file', async () => {
    const file = await put('ok/agent.yml', VALID_AGENT);
    const manifest = unwrapManifest(await loadAgentManifestFile(file));
    expect(manifest.name).toBe('Triage');
  });

  it('reports a missing file and a directory as problems, not exceptions', async () => {
    const missing = join(dir, 'nope.agent.yml');
    expect(problemsOf(await loadAgentManifestFile(missing))).toEqual([
      { file: missing, line: 1, col: 1, pointer: '', message: 'file not found' },
    ]);
    expect(problemsOf(await loadAgentManifestFile(dir))[0]!.message).toBe('is a directory, not a manifest file');
  });

  it('refuses an oversized file before reading it', async () => {
    const file = await put('big.agent.yml', `${VALID_AGENT}# ${'x'.repeat(1024 * 1024)}\n`);
    expect(problemsOf(await loadAgentManifestFile(file))[0]!.message).toMatch(/^file is \d+ bytes; the limit for a manifest is 1048576$/);
  });

  it('refuses non-UTF-8 bytes at their position', async () => {
    const bytes = Buffer.concat([Buffer.from('schema_version: "1.0"\nname: Caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const file = await put('latin1.agent.yml', bytes);
    expect(problemsOf(await loadAgentManifestFile(file))).toEqual([
      { file, line: 2, col: 10, pointer: '', message: 'file is not valid UTF-8: byte 0xe9 at byte offset 31' },
    ]);
  });

  it('keeps a real U+FFFD and refuses UTF-16', async () => {
    const ok = await put('fffd.agent.yml', replaceOnce(VALID_AGENT, 'name: Triage', 'name: Triage \uFFFD'));
    expect((await loadAgentManifestFile(ok)).ok).toBe(true);
    const utf16 = await put('utf16.agent.yml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(VALID_AGENT, 'utf16le')]));
    expect(problemsOf(await loadAgentManifestFile(utf16))[0]!.message).toContain('UTF-16');
  });

  it('refuses an empty file', async () => {
    const file = await put('empty.agent.yml', '');
    expect(problemsOf(await loadAgentManifestFile(file))[0]!.message).toBe('file is empty: expected a YAML mapping');
  });
});

describe('loadSkillManifestFile', () => {
  it('loads a valid skill whether or not its entry point exists yet', async () => {
    const file = await put('skill-a/manifest.json', VALID_SKILL);
    expect((await loadSkillManifestFile(file)).ok).toBe(true);
    expect(problemsOf(await loadSkillManifestFile(file, { requireEntryPoint: true }))[0]!.message).toBe(
      "entry_point: 'analyze.py' does not exist",
    );
    await put('skill-a/analyze.py', 'print(1)\n');
    expect((await loadSkillManifestFile(file, { requireEntryPoint: true })).ok).toBe(true);
  });

  it('refuses an entry point that leaves the skill directory through a symbolic link', async () => {
    const outside = await put('outside/secret.py', 'print(2)\n');
    const file = await put('skill-b/manifest.json', VALID_SKILL);
    await symlink(outside, join(dir, 'skill-b', 'analyze.py'));
    const [problem] = problemsOf(await loadSkillManifestFile(file));
    expect(problem).toMatchObject({ file, line: 4, col: 18, pointer: '/entry_point' });
    expect(problem!.message).toContain('resolves outside the skill');
  });
});

describe('checkManifestSet', () => {
  it('reports every occurrence of a duplicate id+version with the other file', async () => {
    const a = await put('set/a.agent.yml', VALID_AGENT);
    const b = await put('set/b.agent.yml', `# a copy\n${VALID_AGENT}`);
    const c = await put('set/c.agent.yml', replaceOnce(VALID_AGENT, 'version: 1.2.3', 'version: 1.2.4'));
    const entries = await Promise.all(
      [a, b, c].map(async (file) => ({ file, manifest: unwrapManifest(await loadAgentManifestFile(file)) })),
    );
    const problems = checkManifestSet(entries);
    expect(problems).toEqual([
      {
        file: a,
        line: 2,
        col: 5,
        pointer: '/id',
        message: `id: duplicate id and version io.baton.tests.triage@1.2.3; also declared in ${b}:3:5`,
      },
      {
        file: b,
        line: 3,
        col: 5,
        pointer: '/id',
        message: `id: duplicate id and version io.baton.tests.triage@1.2.3; also declared in ${a}:2:5`,
      },
    ]);
  });

  it('falls back to line 1 for manifests built in code', () => {
    const manifest = unwrapManifest(parseAgentManifest(VALID_AGENT, { file: 'x' }));
    const copy = structuredClone(manifest);
    const problems = checkManifestSet([
      { file: 'one', manifest: copy },
      { file: 'two', manifest: structuredClone(manifest) },
    ]);
    expect(problems.map((p) => [p.file, p.line, p.col])).toEqual([
      ['one', 1, 1],
      ['two', 1, 1],
    ]);
    expect(checkManifestSet([{ file: 'one', manifest }])).toEqual([]);
  });
});
