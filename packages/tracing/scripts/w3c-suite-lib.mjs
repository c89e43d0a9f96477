/* global process, console */
// The official W3C trace-context suite runner shared by `npm run test:w3c` in @baton/tracing and
// @baton/runner: finds the suite and a python with aiohttp, runs it per level, counts the results.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');

/** The suite's `test/` folder and a python with aiohttp; exits 2 (saying why) when either is missing. */
export function locateSuite() {
  const candidates = [
    process.env.BATON_W3C_TRACE_CONTEXT_TESTS,
    '/work/shared/w3c-trace-context/test',
    join(repo, '..', 'shared', 'w3c-trace-context', 'test'),
  ].filter(Boolean);
  const suiteDir = candidates.find((dir) => existsSync(join(dir, 'test.py')) && existsSync(join(dir, 'tracecontext')));
  if (!suiteDir) {
    console.error(`w3c-suite: the official suite's test/ folder was not found (looked in: ${candidates.join(', ')}).`);
    console.error("Put github.com/w3c/trace-context's test/ folder there, or set BATON_W3C_TRACE_CONTEXT_TESTS.");
    process.exit(2);
  }
  const pythons = [process.env.BATON_W3C_PYTHON, 'python3', '/usr/bin/python3', 'python'].filter(Boolean);
  const python = pythons.find((bin) => spawnSync(bin, ['-c', 'import aiohttp'], { stdio: 'ignore' }).status === 0);
  if (!python) {
    console.error(`w3c-suite: no python with aiohttp (tried ${pythons.join(', ')}); install python3-aiohttp or set BATON_W3C_PYTHON.`);
    process.exit(2);
  }
  return { suiteDir, python };
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Runs test.py once; counts its verbose unittest lines (`... ok`, `... FAIL`, `... ERROR`, `... skipped`). */
async function runSuite({ suiteDir, python }, serviceUrl, specLevel, strictLevel) {
  const port = await freePort();
  const child = spawn(python, ['test.py', serviceUrl], {
    cwd: suiteDir,
    env: {
      ...process.env,
      SPEC_LEVEL: String(specLevel),
      STRICT_LEVEL: String(strictLevel),
      HARNESS_HOST: '127.0.0.1',
      HARNESS_PORT: String(port),
      HARNESS_TIMEOUT: process.env.HARNESS_TIMEOUT ?? '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise((resolveExit) => child.on('close', resolveExit));
  const count = (re) => (output.match(re) ?? []).length;
  const passed = count(/ \.\.\. ok$/gm);
  const failed = count(/ \.\.\. (FAIL|ERROR)$/gm);
  const skipped = count(/ \.\.\. skipped /gm);
  const ran = Number(/^Ran (\d+) tests?/m.exec(output)?.[1] ?? NaN);
  return { passed, failed, skipped, total: ran - skipped, code, output };
}

/**
 * Runs the suite at Level 1 and at Level 2 strict against `serviceUrl`, prints the scores, and
 * resolves true when both reach their targets (BATON_W3C_MIN_LEVEL1 / _LEVEL2, default 34 / 38).
 */
export async function runLevels(serviceUrl, label = 'service') {
  const where = locateSuite();
  const targets = { 1: Number(process.env.BATON_W3C_MIN_LEVEL1 ?? 34), 2: Number(process.env.BATON_W3C_MIN_LEVEL2 ?? 38) };
  let ok = true;
  for (const [level, spec, strict, target] of [
    ['Level 1', 1, 1, targets[1]],
    ['Level 2 strict', 2, 2, targets[2]],
  ]) {
    const r = await runSuite(where, serviceUrl, spec, strict);
    const good = Number.isFinite(r.total) && r.passed + r.failed === r.total && r.passed >= target;
    console.log(
      `${label}, ${level}: ${r.passed}/${r.total} passed${r.skipped ? ` (${r.skipped} skipped at this level)` : ''} — target ${target}: ${good ? 'met' : 'NOT met'}`,
    );
    if (!good) {
      ok = false;
      console.log(
        r.output
          .split('\n')
          .filter((l) => / \.\.\. (FAIL|ERROR)$|^(AssertionError|FAIL:|ERROR:)/.test(l))
          .join('\n') || r.output.slice(-4000),
      );
    }
  }
  console.log(`suite: ${where.suiteDir}; service: ${serviceUrl}; python: ${where.python}`);
  return ok;
}
