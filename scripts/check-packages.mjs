#!/usr/bin/env node
// Packs every published @baton/* package and checks that each installs on its own: for each one,
// an empty project outside the workspace installs that package's tarball together with the
// tarballs of the @baton/* packages it depends on (nothing @baton/* comes from the registry; the
// rest comes from npm's cache, --prefer-offline), measures the installed size, and runs the first
// ```js example of the package's README there. Also checks every tarball ships LICENSE and that
// every source map's sources are in the tarball. Run by `npm test` after the build; prints a table
// and exits 1 on any problem.
//
// Install scripts are skipped (--ignore-scripts): better-sqlite3 would compile from source, which
// needs Node's headers from the network. No README example opens a SQLite database; the workspace
// tests cover SQLite with the compiled addon.
import { execFile as execFileCb } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MB = 1024 * 1024;

/** Installed-size ceilings (bytes), from issue 12; other packages are measured and reported. */
export const SIZE_LIMITS = {
  '@baton/manifest': 15 * MB,
  '@baton/guardrail-server': 30 * MB,
};

// npm's variables from an outer `npm test` would point the inner npm back at the workspace.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|registry)$/i.test(k)));
const run = (cmd, args, cwd) => execFile(cmd, args, { cwd, env, maxBuffer: 64 * MB, timeout: 300_000 });

function installedBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    total += entry.isDirectory() ? installedBytes(path) : lstatSync(path).size;
  }
  return total;
}

/** The first ```js block of a README: the package's first runnable example. */
export function firstJsExample(readme) {
  const match = /^```js\n([\s\S]*?)^```/m.exec(readme);
  return match?.[1];
}

async function main() {
  const packages = readdirSync(join(ROOT, 'packages'))
    .map((d) => join(ROOT, 'packages', d))
    .filter((d) => existsSync(join(d, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ pkg }) => !pkg.private);
  const byName = new Map(packages.map((p) => [p.pkg.name, p]));
  const problems = [];
  for (const { dir, pkg } of packages) {
    if (!existsSync(join(dir, 'dist'))) {
      console.error(`check-packages: ${pkg.name} is not built; run npm run build first`);
      process.exit(1);
    }
  }

  const work = mkdtempSync(join(tmpdir(), 'baton-packages-'));
  try {
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    const tarballOf = new Map();
    // One `npm pack` per package (workspace-aware packing of several at once is no faster).
    for (const { dir, pkg } of packages) {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tarballs], dir);
      const [packed] = JSON.parse(stdout);
      tarballOf.set(pkg.name, join(tarballs, packed.filename));
      const files = new Set(packed.files.map((f) => f.path));
      if (!files.has('LICENSE')) problems.push(`${pkg.name}: the tarball has no LICENSE`);
      for (const file of files) {
        if (!file.endsWith('.map')) continue;
        const map = JSON.parse(readFileSync(join(dir, file), 'utf8'));
        for (const source of map.sources ?? []) {
          const target = normalize(join(dirname(file), map.sourceRoot ?? '', source));
          if (!files.has(target)) problems.push(`${pkg.name}: ${file} points at ${target}, which the tarball does not ship`);
        }
      }
    }

    const closure = (name, seen = new Set()) => {
      if (seen.has(name)) return seen;
      seen.add(name);
      for (const dep of Object.keys(byName.get(name)?.pkg.dependencies ?? {})) if (byName.has(dep)) closure(dep, seen);
      return seen;
    };

    const rows = [];
    // Two installs at a time: the machine has two cores and npm is mostly waiting on the disk.
    const queue = [...packages];
    async function worker() {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { dir, pkg } = next;
        const project = join(work, pkg.name.replace('/', '+'));
        mkdirSync(project);
        const set = [...closure(pkg.name)];
        const dependencies = Object.fromEntries(set.map((n) => [n, `file:${tarballOf.get(n)}`]));
        writeFileSync(
          join(project, 'package.json'),
          JSON.stringify({ name: 'baton-install-check', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2),
        );
        try {
          await run(
            'npm',
            ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'],
            project,
          );
        } catch (error) {
          problems.push(
            `${pkg.name}: npm install of ${set.join(', ')} failed: ${String(error.stderr ?? error)
              .trim()
              .split('\n')
              .slice(-3)
              .join(' / ')}`,
          );
          continue;
        }
        const bytes = installedBytes(join(project, 'node_modules'));
        const limit = SIZE_LIMITS[pkg.name];
        if (limit !== undefined && bytes > limit)
          problems.push(`${pkg.name}: installs ${(bytes / MB).toFixed(1)} MB, more than its ${limit / MB} MB limit`);
        const example = firstJsExample(readFileSync(join(dir, 'README.md'), 'utf8'));
        let ran = 'no example';
        if (example === undefined) {
          problems.push(`${pkg.name}: README.md has no \`\`\`js example to run`);
        } else {
          writeFileSync(join(project, 'example.mjs'), example);
          try {
            await execFile(process.execPath, ['example.mjs'], { cwd: project, env, timeout: 60_000 });
            ran = 'ok';
          } catch (error) {
            ran = 'FAILED';
            problems.push(
              `${pkg.name}: its README example failed: ${String(error.stderr || error.message)
                .trim()
                .split('\n')
                .slice(0, 4)
                .join(' / ')}`,
            );
          }
        }
        rows.push({ name: pkg.name, bytes, limit, set: set.length, ran });
      }
    }
    await Promise.all([worker(), worker()]);
    rows.sort((a, b) => a.name.localeCompare(b.name));
    console.log('package                    installed   limit   @baton/* tarballs   README example');
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(26)} ${(r.bytes / MB).toFixed(1).padStart(7)} MB ${(r.limit ? `${r.limit / MB} MB` : '-').padStart(7)}   ${String(r.set).padStart(17)}   ${r.ran}`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-packages: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('check-packages: every package installs from its tarballs alone and runs its README example');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
