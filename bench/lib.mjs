// Helpers shared by every benchmark: timing with warm-up and percentiles, a table printer and
// result files. A benchmark is bench/<name>/index.mjs exporting `default async function run()`;
// bench/run.mjs finds and runs them. Benchmarks measure; they never assert (tests do that).
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where results are written (`bench/results/<name>.json`, not committed). */
export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

/**
 * Times `fn` (sync or async): `warmup` unrecorded calls, then `iterations` recorded ones.
 * Returns milliseconds: median, p99, mean, min, max, and the sample count.
 */
export async function measure(fn, { warmup = 20, iterations = 200 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = new Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples[i] = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return summarize(samples);
}

/** Summary statistics (in the samples' unit) of a list of samples. */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return { n: sorted.length, median: at(0.5), p99: at(0.99), mean, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** Times a child process from spawn to exit, `iterations` times after `warmup` runs. Milliseconds. */
export async function measureSpawn(command, args, { warmup = 2, iterations = 15, cwd = REPO_ROOT, env } = {}) {
  return measure(
    () => {
      const result = spawnSync(command, args, { cwd, env: env ?? process.env, stdio: 'ignore', timeout: 60_000 });
      if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
    },
    { warmup, iterations },
  );
}

/** Rounds for display: 3 significant digits, at most 3 decimals. */
export function round(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  const digits = Math.max(0, Math.min(3, 2 - Math.floor(Math.log10(Math.abs(value) || 1))));
  return Number(value.toFixed(digits));
}

/** Prints rows (objects with the same keys) as an aligned text table. */
export function printTable(rows, { title } = {}) {
  if (title) process.stdout.write(`\n${title}\n`);
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((c) => String(round(row[c]) ?? '')));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (values) => values.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  process.stdout.write(`${line(columns)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of cells) process.stdout.write(`${line(r)}\n`);
}

/** Writes `bench/results/<name>.json` with the data and the machine it was measured on. */
export async function writeResult(name, data) {
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  const machine = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    loadavg: loadavg().map(round),
  };
  await writeFile(file, `${JSON.stringify({ name, measured_at: new Date().toISOString(), machine, ...data }, null, 2)}\n`);
  return file;
}
