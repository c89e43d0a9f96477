#!/usr/bin/env node
// Checks that every error code a package can throw is documented in its README and that every
// documented code exists. Run by `npm test` (after the build). Per package:
//
//  1. The registry is the `*_ERROR_CODES` object exported by `src/errors.ts` (read from the built
//     `dist/errors.js`): code → kind. The package's base error class types `code` with its keys
//     and takes `kind` from it, so TypeScript already refuses a code that is not registered.
//  2. As a second net, every code literal handed to an error constructor in `src/` (`super('X'`,
//     `new SomethingError('X'`, `code: 'X'` inside an errors file) must be registered (by the
//     package, or outside its errors files by the @baton package whose error class it throws).
//  3. The README's `Errors` section has a table with `code` and `kind` columns; its codes and the
//     registry's must be the same set, and each code's documented kind the registry's.
//
// Exits 1 with one line per problem.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KINDS = new Set(['usage', 'config', 'upstream', 'internal']);
// Upper snake case; the runner's HTTP API answers with a few lower-case wire codes (`unauthorized`).
const CODE = /^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|[a-z][a-z0-9]*(?:_[a-z0-9]+)*)$/;

function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The rows of the first table in the README's `Errors` section whose header has a `code` column. */
export function documentedCodes(readme) {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => /^#{2,3} Errors\s*$/.test(l));
  if (start < 0) return { error: 'README has no "## Errors" section' };
  const level = lines[start].match(/^#+/)[0].length;
  const section = [];
  for (const line of lines.slice(start + 1)) {
    const heading = line.match(/^(#+) /);
    if (heading && heading[1].length <= level) break;
    section.push(line);
  }
  const cells = (line) =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
  const headerAt = section.findIndex((l) => l.trim().startsWith('|') && cells(l).some((c) => c.toLowerCase() === 'code'));
  if (headerAt < 0) return { error: 'the Errors section has no table with a "code" column' };
  const header = cells(section[headerAt]).map((c) => c.toLowerCase());
  const codeCol = header.indexOf('code');
  const kindCol = header.indexOf('kind');
  if (kindCol < 0) return { error: 'the errors table has no "kind" column' };
  const codes = new Map();
  const problems = [];
  for (const line of section.slice(headerAt + 2)) {
    if (!line.trim().startsWith('|')) break;
    const row = cells(line);
    const kind = (row[kindCol] ?? '').replaceAll('`', '');
    if (!KINDS.has(kind)) problems.push(`errors table row "${line.trim()}": kind must be one of ${[...KINDS].join(', ')}`);
    for (const m of (row[codeCol] ?? '').matchAll(/`([^`]+)`/g)) {
      if (!CODE.test(m[1])) problems.push(`errors table: ${JSON.stringify(m[1])} is not a snake-case code`);
      else codes.set(m[1], kind);
    }
  }
  return { codes, problems };
}

/** Code literals handed to error constructors in a package's sources. */
export function thrownLiterals(srcDir) {
  const found = new Map();
  for (const file of files(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const patterns = [/\bsuper\(\s*'([A-Z][A-Z0-9_]+)'/g, /\bnew [A-Z]\w*Error\(\s*'([A-Z][A-Z0-9_]+)'/g];
    if (/errors\.ts$/.test(file)) patterns.push(/\bcode\??:\s*'([A-Z][A-Z0-9_]+)'/g);
    for (const re of patterns) for (const m of text.matchAll(re)) if (!found.has(m[1])) found.set(m[1], file.slice(ROOT.length));
  }
  return found;
}

async function main() {
  const problems = [];
  // A package may throw a dependency's error class (queue's Redis store throws runner's StoreError).
  const everyCode = new Map();
  const checks = [];
  for (const dir of readdirSync(join(ROOT, 'packages')).sort()) {
    const pkgDir = join(ROOT, 'packages', dir);
    const errorsSrc = join(pkgDir, 'src', 'errors.ts');
    if (!existsSync(errorsSrc)) continue;
    const name = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).name;
    const built = join(pkgDir, 'dist', 'errors.js');
    if (!existsSync(built)) {
      problems.push(`${name}: dist/errors.js is missing; build the package first`);
      continue;
    }
    const mod = await import(pathToFileURL(built).href);
    const registries = Object.entries(mod).filter(
      ([k, v]) => /_ERROR_CODES$/.test(k) && typeof v === 'object' && v !== null && !Array.isArray(v),
    );
    if (registries.length !== 1) {
      problems.push(
        `${name}: src/errors.ts must export exactly one *_ERROR_CODES registry (found ${registries.map(([k]) => k).join(', ') || 'none'})`,
      );
      continue;
    }
    const [registryName, table] = registries[0];
    const registry = new Map(Object.entries(table));
    for (const [code, kind] of registry) {
      if (!CODE.test(code)) problems.push(`${name}: ${registryName}: ${JSON.stringify(code)} is not a snake-case code`);
      if (!KINDS.has(kind))
        problems.push(`${name}: ${registryName}.${code}: kind ${JSON.stringify(kind)} is not one of ${[...KINDS].join(', ')}`);
    }
    for (const code of registry.keys()) everyCode.set(code, name);
    checks.push({ name, registryName, registry, src: join(pkgDir, 'src') });
    const readme = existsSync(join(pkgDir, 'README.md')) ? readFileSync(join(pkgDir, 'README.md'), 'utf8') : '';
    const doc = documentedCodes(readme);
    if (doc.error) {
      problems.push(`${name}: README.md: ${doc.error}`);
      continue;
    }
    for (const p of doc.problems) problems.push(`${name}: README.md: ${p}`);
    for (const [code, kind] of registry) {
      if (!doc.codes.has(code)) problems.push(`${name}: ${code} (in ${registryName}) is not in the README errors table`);
      else if (doc.codes.get(code) !== kind)
        problems.push(`${name}: the README errors table says ${code} is ${doc.codes.get(code)}; ${registryName} says ${kind}`);
    }
    for (const code of doc.codes.keys())
      if (!registry.has(code)) problems.push(`${name}: the README errors table lists ${code}, which ${registryName} does not have`);
  }
  for (const { name, registryName, registry, src } of checks) {
    for (const [code, where] of thrownLiterals(src)) {
      if (registry.has(code)) continue;
      if (everyCode.has(code)) continue;
      problems.push(`${name}: ${where} throws ${code}, which ${registryName} does not list`);
    }
  }
  for (const p of problems) process.stderr.write(`check-error-codes: ${p}\n`);
  if (problems.length > 0) process.exitCode = 1;
  else process.stdout.write('check-error-codes: every thrown code is documented and every documented code exists\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
