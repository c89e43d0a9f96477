#!/usr/bin/env node
// Runs the benchmarks: `node bench/run.mjs` runs all, `node bench/run.mjs validate …` only those
// named. Each benchmark is bench/<name>/index.mjs, which either exports
// `default async function run()` or does its work when imported (top-level await); either way it
// prints a table and writes bench/results/<name>.json. Build first (`npm run bench` does).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './lib.mjs';

const benchDir = join(REPO_ROOT, 'bench');

async function available() {
  const names = [];
  for (const entry of await readdir(benchDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'results') continue;
    try {
      if ((await stat(join(benchDir, entry.name, 'index.mjs'))).isFile()) names.push(entry.name);
    } catch {
      // Not a benchmark directory.
    }
  }
  return names.sort();
}

const all = await available();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown benchmark ${unknown.join(', ')}; available: ${all.join(', ')}\n`);
  process.exit(2);
}

let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  process.stdout.write(`\n== ${name} ==\n`);
  try {
    const module = await import(pathToFileURL(join(benchDir, name, 'index.mjs')).href);
    // A module without a default function ran when it was imported.
    if (typeof module.default === 'function') await module.default();
  } catch (error) {
    failed++;
    process.stderr.write(`bench ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
