#!/usr/bin/env node
// Checks every workspace package's dependency lists against what its source imports, and that
// @baton/* imports run one way. Run by `npm test` (and `npm run lint`); exits 1 with one line per
// problem. The rules:
//
//  1. Everything `src/` imports (values and types: a published .d.ts that names a package needs it
//     installed) is declared in `dependencies` or `peerDependencies`.
//  2. Every `dependencies` entry is imported by `src/`; test-only packages belong in
//     `devDependencies`, and a package `test/` imports must be declared somewhere (the package's
//     own lists, or the workspace root's devDependencies).
//  3. A package imports (in src and test) only packages earlier in the dependency order below;
//     the same level or later is a cycle waiting to happen.
//  4. A `@baton/*` dependency's range includes that workspace package's version, so the tarballs
//     installed together resolve to each other and never ask the registry.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The one-way order of the README: a package may import only packages of a lower level. */
export const LEVELS = {
  '@baton/manifest': 0,
  '@baton/tracing': 1,
  '@baton/packets': 2,
  '@baton/guardrail-server': 2,
  '@baton/guardrail-client': 2,
  '@baton/runner': 3,
  '@baton/skills': 4,
  '@baton/queue': 4,
  '@baton/cli': 5,
  '@baton/demo': 6,
};

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (/\.(c|m)?[jt]sx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Package name of a bare specifier, or undefined for relative paths and Node builtins. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || BUILTINS.has(specifier) || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Packages a source text imports: static, dynamic and type imports and re-exports, as the
 * TypeScript compiler's own pre-processor finds them (so strings and comments never count). */
export function importsOf(text) {
  const found = new Set();
  for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
    const name = packageOf(ref.fileName);
    if (name) found.add(name);
  }
  return found;
}

function importsIn(dir, self) {
  const byPackage = new Map();
  for (const file of files(dir)) {
    for (const name of importsOf(readFileSync(file, 'utf8'))) {
      if (name === self) continue;
      if (!byPackage.has(name)) byPackage.set(name, relative(ROOT, file));
    }
  }
  return byPackage;
}

function satisfiesCaret(range, version) {
  const m = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!m || !v) return range === version;
  const [a, b, c] = m.slice(1).map(Number);
  const [x, y, z] = v.slice(1).map(Number);
  if (a > 0) return x === a && (y > b || (y === b && z >= c));
  if (b > 0) return x === 0 && y === b && z >= c;
  return x === 0 && y === 0 && z === c;
}

/** Lowest Node version (major, minor) a semver range over Node versions admits, or undefined. */
export function nodeFloor(range) {
  let floor;
  for (const alternative of String(range).split('||')) {
    const m = /(\d+)(?:\.(\d+|x))?/.exec(alternative.trim());
    if (!m) return undefined;
    const candidate = [Number(m[1]), m[2] === undefined || m[2] === 'x' ? 0 : Number(m[2])];
    if (!floor || candidate[0] < floor[0] || (candidate[0] === floor[0] && candidate[1] < floor[1])) floor = candidate;
  }
  return floor;
}

/** Finds `name`'s installed package.json the way Node resolves it from `fromDir`. */
function installedManifest(name, fromDir, root) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) return { file, pkg: JSON.parse(readFileSync(file, 'utf8')) };
    if (dir === root || dir === dirname(dir)) return undefined;
  }
}

/** The strictest Node floor among `pkg`'s installed runtime dependencies, with who sets it. */
function strictestDependencyFloor(pkg, dir, root) {
  let strictest;
  const seen = new Set();
  const visit = (manifest, fromDir) => {
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const found = installedManifest(name, fromDir, root);
      if (!found || seen.has(found.file)) continue;
      seen.add(found.file);
      const floor = found.pkg.engines?.node ? nodeFloor(found.pkg.engines.node) : undefined;
      if (floor && (!strictest || floor[0] > strictest.floor[0] || (floor[0] === strictest.floor[0] && floor[1] > strictest.floor[1]))) {
        strictest = { floor, by: `${found.pkg.name}@${found.pkg.version} (node ${found.pkg.engines.node})` };
      }
      visit(found.pkg, dirname(found.file));
    }
  };
  visit(pkg, dir);
  return strictest;
}

export function checkWorkspace(root = ROOT) {
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const rootDev = new Set(Object.keys(rootPkg.devDependencies ?? {}));
  const dirs = ['packages', 'apps'].flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group))
          .map((d) => join(root, group, d))
          .filter((d) => existsSync(join(d, 'package.json')))
      : [],
  );
  const manifests = new Map(
    dirs.map((d) => {
      const pkg = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'));
      return [pkg.name, pkg];
    }),
  );
  const versions = new Map([...manifests].map(([name, pkg]) => [name, pkg.version]));
  const problems = [];
  for (const dir of dirs) {
    const pkgFile = relative(root, join(dir, 'package.json'));
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const deps = pkg.dependencies ?? {};
    const peers = pkg.peerDependencies ?? {};
    const devs = pkg.devDependencies ?? {};
    const level = LEVELS[pkg.name];
    if (level === undefined) problems.push(`${pkgFile}: ${pkg.name} has no place in the dependency order (scripts/check-deps.mjs LEVELS)`);
    const srcImports = importsIn(join(dir, 'src'), pkg.name);
    const testImports = importsIn(join(dir, 'test'), pkg.name);
    for (const [name, file] of srcImports) {
      if (!(name in deps) && !(name in peers)) {
        problems.push(
          `${file}: imports ${name}, which ${pkgFile} does not list in dependencies${name in devs ? ' (only in devDependencies)' : ''}`,
        );
      }
    }
    // A dependency nothing imports is still right when it installs an optional peer of a
    // @baton/* dependency (e.g. the CLI brings the OTLP exporter that @baton/tracing loads lazily).
    const peerProvided = new Set(
      Object.keys(deps)
        .filter((d) => d.startsWith('@baton/'))
        .flatMap((d) => Object.keys(manifests.get(d)?.peerDependencies ?? {})),
    );
    for (const name of Object.keys(deps)) {
      if (!srcImports.has(name) && !peerProvided.has(name))
        problems.push(`${pkgFile}: declares dependency ${name}, which nothing in src/ imports (move it to devDependencies or remove it)`);
    }
    for (const [name, file] of testImports) {
      if (!(name in deps) && !(name in peers) && !(name in devs) && !rootDev.has(name)) {
        problems.push(`${file}: imports ${name}, which is neither in ${pkgFile} nor in the root devDependencies`);
      }
    }
    // Source may import only earlier levels; a test may also use a package of its own level (an
    // integration test, e.g. the client against the real guardrail service), never a later one.
    const ordered = [...[...srcImports].map(([n, f]) => [n, f, false]), ...[...testImports].map(([n, f]) => [n, f, true])];
    for (const [name, file, isTest] of ordered) {
      if (!name.startsWith('@baton/') || level === undefined) continue;
      const other = LEVELS[name];
      if (other === undefined || other > level || (other === level && !isTest)) {
        problems.push(
          `${file}: ${pkg.name} imports ${name}, which comes ${other === level ? 'at the same level as' : 'after'} it in the dependency order (manifest → tracing → packets, guardrail-server, guardrail-client → runner → skills, queue → cli → demo)`,
        );
      }
    }
    const own = pkg.engines?.node ? nodeFloor(pkg.engines.node) : undefined;
    const needed = strictestDependencyFloor(pkg, dir, root);
    if (needed && (!own || own[0] < needed.floor[0] || (own[0] === needed.floor[0] && own[1] < needed.floor[1]))) {
      problems.push(
        `${pkgFile}: engines.node ${JSON.stringify(pkg.engines?.node ?? '(none)')} admits Node ${own ? own.join('.') : 'any'}, but its dependency ${needed.by} needs ${needed.floor.join('.')}`,
      );
    }
    for (const [name, range] of Object.entries({ ...deps, ...peers, ...devs })) {
      if (name.startsWith('@baton/') && versions.has(name) && !satisfiesCaret(range, versions.get(name))) {
        problems.push(`${pkgFile}: ${name}@${range} does not include the workspace's ${name}@${versions.get(name)}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = checkWorkspace();
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-deps: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('check-deps: every package imports what it declares, and only earlier packages');
}
