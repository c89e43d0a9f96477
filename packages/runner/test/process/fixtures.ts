// Real child-process fixtures: small node scripts written to a temp dir.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SCRIPTS = {
  echo: `
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (c) => (text += c));
    process.stdin.on('end', () => {
      process.stderr.write('echo: got input\\n');
      process.stdout.write(JSON.stringify({ echo: JSON.parse(text) }) + '\\n\\n');
    });
  `,
  // Starts a grandchild that would outlive it, reports the grandchild's pid, then hangs
  // ignoring SIGTERM so only the SIGKILL after the grace period ends it.
  hang: `
    const { spawn } = await import('node:child_process');
    const grandchild = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    process.on('SIGTERM', () => {});
    process.stderr.write('grandchild=' + grandchild.pid + '\\n');
    setInterval(() => {}, 1000);
  `,
  // Exits 0 with valid output but leaves a background grandchild holding stdout open.
  leaveBehind: `
    const { spawn } = await import('node:child_process');
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'] });
    process.stdout.write(JSON.stringify({ grandchild: grandchild.pid }));
    process.exit(0);
  `,
  crash: `
    process.stderr.write('starting\\nfatal: the ledger is on fire\\n');
    process.exit(3);
  `,
  garbage: `process.stdout.write('hello world, this is not json ' + 'x'.repeat(10000));`,
  twoObjects: `process.stdout.write('{"a":1}\\n{"b":2}\\n');`,
  array: `process.stdout.write('[1,2,3]');`,
  silent: `process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`,
  stdoutFlood: `
    const chunk = 'y'.repeat(64 * 1024);
    let written = 0;
    function pump() {
      while (written < 50 * 1024 * 1024) {
        written += chunk.length;
        if (!process.stdout.write(chunk)) return process.stdout.once('drain', pump);
      }
    }
    pump();
  `,
  stderrFlood: `
    const chunk = 'e'.repeat(64 * 1024);
    for (let i = 0; i < 80; i++) process.stderr.write(chunk);
    process.stderr.write('', () => process.stdout.write(JSON.stringify({ ok: true })));
  `,
  signalled: `process.kill(process.pid, 'SIGKILL');`,
  env: `process.stdout.write(JSON.stringify({ env: process.env }));`,
  ignoreStdin: `process.stdout.write('{"ignored":true}'); process.exit(0);`,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

export async function writeScripts(): Promise<{ dir: string; path(name: ScriptName): string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-process-'));
  for (const [name, source] of Object.entries(SCRIPTS)) await writeFile(join(dir, `${name}.mjs`), source);
  return { dir, path: (name) => join(dir, `${name}.mjs`), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Whether a pid is still a live (non-zombie) process. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A zombie still answers signal 0; /proc says it is dead.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Polls (generously, not as an assertion on speed) until `pid` is gone. */
export async function waitUntilGone(pid: number, maxMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !isAlive(pid);
}
