import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDelegation, scaffoldSkill, SkillsInputError } from '../src/index.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

const require = createRequire(import.meta.url);

describe('scaffoldSkill', () => {
  for (const lang of ['ts', 'js', 'python'] as const) {
    it(`scaffolds a ${lang} skill whose generated test passes and which delegation can run`, async () => {
      const dir = await tempDir();
      const res = await scaffoldSkill({ name: `demo-${lang}`, dir, lang });
      expect(res.files).toContain('manifest.json');
      expect(res.files).toContain('README.md');
      const manifest = JSON.parse(await readFile(path.join(res.skillDir, 'manifest.json'), 'utf8'));
      expect(Object.keys(manifest).sort()).toEqual([
        'capabilities',
        'entry_point',
        'input_schema',
        'output_schema',
        'skill_name',
        'version',
      ]);
      const [cmd, ...args] = res.testCommand as [string, ...string[]];
      const run = spawnSync(cmd, args, { cwd: res.skillDir, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);

      const ws = await tempDir();
      const out = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws }).delegate({
        subagent_type: `demo-${lang}`,
        instruction_set: 'Upper-case it',
        input_data: { text: 'abc' },
      });
      expect(out).toMatchObject({ status: 'SUCCESS', output_payload: { result: 'ABC' } });
    });
  }

  it('the TypeScript source typechecks and compiles to a skill that behaves like the shipped one', async () => {
    const dir = await tempDir();
    const res = await scaffoldSkill({ name: 'typed', dir });
    const tsc = require.resolve('typescript/bin/tsc');
    const outDir = path.join(dir, 'out');
    await mkdir(outDir);
    const typeRoots = path.dirname(path.dirname(require.resolve('@types/node/package.json')));
    execFileSync(process.execPath, [tsc, '-p', path.join(res.skillDir, 'tsconfig.json'), '--outDir', outDir, '--typeRoots', typeRoots], {
      stdio: 'pipe',
    });
    const input = JSON.stringify({
      task_id: 't',
      payload: { text: 'x y' },
      constraints: { max_iterations: 1, timeout_ms: 1000, capabilities: [] },
    });
    const compiled = spawnSync(process.execPath, [path.join(outDir, 'skill.js')], { input, encoding: 'utf8' });
    const shipped = spawnSync(process.execPath, [path.join(res.skillDir, 'dist/skill.js')], { input, encoding: 'utf8' });
    expect(JSON.parse(compiled.stdout)).toEqual(JSON.parse(shipped.stdout));
    expect(JSON.parse(shipped.stdout)).toMatchObject({ status: 'SUCCESS', output_payload: { result: 'X Y' } });
  });

  it('refuses invalid names, unknown languages and existing directories', async () => {
    const dir = await tempDir();
    for (const name of ['Bad', '../x', 'a b', '', '1abc']) {
      await expect(scaffoldSkill({ name, dir })).rejects.toMatchObject({ code: 'INVALID_SKILL_NAME' });
    }
    await expect(scaffoldSkill({ name: 'ok', dir, lang: 'rust' as never })).rejects.toMatchObject({ code: 'INVALID_LANGUAGE' });
    await scaffoldSkill({ name: 'ok', dir, lang: 'js' });
    const err = await scaffoldSkill({ name: 'ok', dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SkillsInputError);
    expect((err as SkillsInputError).message).toMatch(/already exists/);
  });
});
