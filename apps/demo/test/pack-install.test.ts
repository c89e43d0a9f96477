import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// "Installing packages one by one" (issue #7): every published @baton/* package packs with
// `npm pack`, installs from its tarball into a project outside the workspace, and works there.
// Slow (better-sqlite3 may compile): its own file, a long timeout.
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..', '..');
const packagesDir = path.join(repoRoot, 'packages');
// Compiling better-sqlite3 from source (no prebuilt binary offline) on a saturated 2-core machine
// took over ten minutes under Node 24; a hang still ends, just later.
const INSTALL_LIMIT_MS = 1_500_000;
const TWO_MINUTES = 120_000;

interface PackageJson {
  name: string;
  private?: boolean;
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
}

/** Every file `exports` and `bin` point at (wildcard subpaths are left out). */
function entryFiles(pkg: PackageJson): string[] {
  const targets: string[] = [];
  for (const value of Object.values(pkg.exports ?? {})) targets.push(...(typeof value === 'string' ? [value] : Object.values(value)));
  targets.push(...Object.values(pkg.bin ?? {}));
  return targets.filter((t) => !t.includes('*')).map((t) => t.replace(/^\.\//, ''));
}

const published = readdirSync(packagesDir)
  .map((d) => ({
    dir: path.join(packagesDir, d),
    pkg: JSON.parse(readFileSync(path.join(packagesDir, d, 'package.json'), 'utf8')) as PackageJson,
  }))
  .filter((p) => p.pkg.name.startsWith('@baton/') && p.pkg.private !== true);

let root: string;
let project: string;
/** Files in each tarball, by package name. */
const packedFiles = new Map<string, string[]>();

function run(cmd: string, args: string[], cwd: string): string {
  // npm's own environment variables from an outer `npm test` would point it back at the workspace.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|nodedir)$/i.test(k)));
  return execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: INSTALL_LIMIT_MS });
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'baton-pack-'));
  const tarballs = path.join(root, 'tarballs');
  project = path.join(root, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  const files: string[] = [];
  for (const { dir } of published) {
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tarballs], dir)) as Array<{
      name: string;
      filename: string;
      files: Array<{ path: string }>;
    }>;
    if (!packed) throw new Error(`npm pack printed nothing for ${dir}`);
    packedFiles.set(
      packed.name,
      packed.files.map((f) => f.path),
    );
    files.push(path.join(tarballs, packed.filename));
  }
  const rootPkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { allowScripts?: unknown };
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'baton-pack-check',
        version: '1.0.0',
        private: true,
        type: 'module',
        ...(rootPkg.allowScripts ? { allowScripts: rootPkg.allowScripts } : {}),
      },
      null,
      2,
    ),
  );
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', ...files], project);
  copyFileSync(path.join(here, 'fixtures', 'use-packages.mjs'), path.join(project, 'use-packages.mjs'));
  copyFileSync(path.join(repoRoot, 'examples', 'agents', 'triage.agent.yml'), path.join(project, 'triage.agent.yml'));
  copyFileSync(path.join(repoRoot, 'examples', 'contracts', 'refunds.contract.yml'), path.join(project, 'refunds.contract.yml'));
}, INSTALL_LIMIT_MS);

afterAll(async () => {
  // node_modules with a compiled better-sqlite3: removing it can take a while on a busy disk.
  if (root) await rm(root, { recursive: true, force: true });
}, TWO_MINUTES);

describe('the @baton/* packages, packed and installed outside the workspace', () => {
  it('packs every file that exports and bin point at (build first: an unbuilt package packs without dist/)', () => {
    for (const { pkg } of published) {
      const inside = packedFiles.get(pkg.name) ?? [];
      const missing = entryFiles(pkg).filter((f) => !inside.includes(f));
      expect(missing, `${pkg.name} tarball lacks ${missing.join(', ')}`).toEqual([]);
    }
  });

  it('packs every published package', () => {
    expect(published.map((p) => p.pkg.name).sort()).toEqual(
      [
        '@baton/cli',
        '@baton/guardrail-client',
        '@baton/guardrail-server',
        '@baton/manifest',
        '@baton/packets',
        '@baton/queue',
        '@baton/runner',
        '@baton/skills',
        '@baton/tracing',
      ].sort(),
    );
    for (const { pkg } of published) {
      const installed = JSON.parse(
        readFileSync(path.join(project, 'node_modules', ...pkg.name.split('/'), 'package.json'), 'utf8'),
      ) as PackageJson;
      expect(installed.name).toBe(pkg.name);
    }
  });

  it(
    'runs a minimal use of each public API',
    () => {
      const result = JSON.parse(run(process.execPath, ['use-packages.mjs', 'triage.agent.yml', 'refunds.contract.yml'], project)) as Record<
        string,
        unknown
      >;
      expect(result).toEqual({
        manifest: 'io.baton.examples.triage',
        tracing: true,
        engine: 'MODIFY',
        inProcess: 'MODIFY',
        http: 'BLOCK',
        packets: { contract: expect.any(String), digest: true },
        memoryStore: true,
        sqliteStore: true,
        offlineModel: 'offline model',
        skills: { format: 'unified_diff', criteria: 'word_count' },
        queue: { code: 'QUEUE_CONFIG', testing: 'function' },
        cli: 'baton',
      });
    },
    TWO_MINUTES,
  );

  it(
    'installs the baton command: --version and validate',
    () => {
      expect(run('npx', ['--no-install', 'baton', '--version'], project).trim()).toMatch(/^\d+\.\d+\.\d+/);
      expect(run('npx', ['--no-install', 'baton', 'validate', 'triage.agent.yml'], project)).toBeDefined();
      writeFileSync(path.join(project, 'bad.agent.yml'), 'schema_version: "1.0"\nid: Not-Reverse-DNS\n');
      let failed: { status?: number; stdout?: string } = {};
      try {
        run('npx', ['--no-install', 'baton', 'validate', 'bad.agent.yml'], project);
      } catch (err) {
        failed = err as { status?: number; stdout?: string };
      }
      expect(failed.status).toBe(1);
      expect(failed.stdout).toMatch(/^bad\.agent\.yml:\d+:\d+: /m);
    },
    TWO_MINUTES,
  );
});
