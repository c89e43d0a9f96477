import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineEnv } from './run-helpers.js';

// The README's `npx baton …` lines must run this repository's CLI right after `npm ci`, before
// any build, and after any later build (a turbo cache restore drops file modes in dist/). So the
// bin npm links is a committed file with a committed execute bit, not a build output. `.ci/run`
// repeats the fresh-clone path for real (`npm ci`, then `npx --no-install baton validate examples/`
// before anything is built); these tests check the pieces it relies on.
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BIN_ENTRY = join(PACKAGE_DIR, 'bin', 'baton.js');

const clones: string[] = [];
afterAll(() => {
  for (const dir of clones) rmSync(dir, { recursive: true, force: true });
});

describe('the baton bin', () => {
  it('is declared as the committed bin/baton.js, and the tarball ships it', () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
    expect(pkg.bin).toEqual({ baton: './bin/baton.js' });
    expect(pkg.files).toContain('bin');
  });

  it('is committed with its execute bit, so a fresh clone has it before any build', () => {
    const staged = execFileSync('git', ['ls-files', '-s', '--', 'packages/cli/bin/baton.js'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(staged.split(/\s+/)[0]).toBe('100755');
    // A clone of the committed tree (what a new user gets) has the file, executable.
    const dir = mkdtempSync(join(tmpdir(), 'baton-clone-'));
    clones.push(dir);
    execFileSync('git', ['clone', '--quiet', '--no-checkout', REPO_ROOT, dir], { stdio: 'ignore' });
    execFileSync('git', ['-C', dir, 'checkout', '--quiet', 'HEAD', '--', 'packages/cli/bin/baton.js', 'packages/cli/package.json'], {
      stdio: 'ignore',
    });
    const mode = statSync(join(dir, 'packages/cli/bin/baton.js')).mode;
    expect(mode & 0o111).not.toBe(0);
  });

  it('is what npm linked as node_modules/.bin/baton at the workspace root', () => {
    const linked = join(REPO_ROOT, 'node_modules', '.bin', 'baton');
    expect(realpathSync(linked)).toBe(realpathSync(BIN_ENTRY));
  });

  it('runs the README line `npx baton validate examples/` from the workspace root without the registry', () => {
    // --no-install: npx fails instead of fetching the registry's unrelated `baton` package, so
    // this passes only when the local link is found.
    const result = spawnSync('npx', ['--no-install', 'baton', 'validate', 'examples/'], {
      cwd: REPO_ROOT,
      env: offlineEnv({ npm_config_offline: 'true' }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.stderr).not.toMatch(/npm error|could not determine executable/i);
    expect(result.status).toBe(0);
  }, 150_000);
});
