// `@baton/runner/process` must stay light: nested processes (e.g. @baton/skills delegations) import
// it, and loading the Agents SDK there costs seconds per level. A child Node process registers a
// resolve hook that refuses the heavy packages, then imports the built subpath by package name.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HEAVY = String.raw`^(@openai\/|openai(\/|$)|fastify(\/|$)|better-sqlite3(\/|$))`;
const HOOKS = `export async function resolve(specifier, context, next) {
  if (/${HEAVY}/.test(specifier)) throw new Error('HEAVY_IMPORT ' + specifier);
  return next(specifier, context);
}`;
const SCRIPT = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(process.env.HOOKS));
const m = await import(process.env.SPECIFIER);
console.log(JSON.stringify(Object.keys(m).sort()));`;

async function importWithHeavyBlocked(specifier: string): Promise<{ ok: true; exports: string[] } | { ok: false; stderr: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd: packageDir, // resolves `@baton/runner/...` by self-reference, through package.json "exports"
      env: { PATH: process.env.PATH ?? '', HOOKS, SPECIFIER: specifier },
      timeout: 30_000,
    });
    return { ok: true, exports: JSON.parse(stdout) as string[] };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr ?? error) };
  }
}

describe('@baton/runner/process subpath', () => {
  it('exports the spawner without loading the Agents SDK, OpenAI, Fastify or SQLite', async () => {
    if (!existsSync(resolve(packageDir, 'dist/process/index.js')))
      throw new Error('build @baton/runner first: dist/process/index.js is missing');
    const result = await importWithHeavyBlocked('@baton/runner/process');
    expect(result).toEqual({
      ok: true,
      exports: ['DEFAULT_ENV_KEYS', 'PROCESS_DEFAULTS', 'ProcessOptionsError', 'runAgentProcess', 'scrubbedEnv', 'spawnJsonProcess'],
    });
  });

  it('the check bites: the main entry does load them', async () => {
    const result = await importWithHeavyBlocked('@baton/runner');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.stderr).toMatch(/HEAVY_IMPORT /);
  });
});
