import { cp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DemoOutputs } from './paths.js';

/**
 * Removes what an earlier run of the demo left in the output directory (only the demo's own
 * artifacts: `--out` may point at a directory holding other files).
 */
export async function clearOutputs(outputs: DemoOutputs): Promise<void> {
  const files = [
    outputs.database,
    `${outputs.database}-wal`,
    `${outputs.database}-shm`,
    `${outputs.database}-journal`,
    outputs.spans,
    outputs.report,
  ];
  await Promise.all(files.map((f) => rm(f, { force: true })));
  await rm(outputs.captures, { recursive: true, force: true });
  await rm(outputs.workspace, { recursive: true, force: true });
}

/** Copies the fixture project into the demo workspace the coder skill edits. */
export async function createWorkspace(fixture: string, workspace: string): Promise<void> {
  await cp(fixture, workspace, { recursive: true, errorOnExist: true, force: false });
}

async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, base)));
    else if (entry.isFile()) out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}

/** Files whose content differs between the fixture and the workspace, and files removed or added. */
export async function changedFiles(
  fixture: string,
  workspace: string,
): Promise<{ modified: string[]; deleted: string[]; added: string[] }> {
  const [before, after] = await Promise.all([listFiles(fixture), listFiles(workspace)]);
  const modified: string[] = [];
  for (const file of before.filter((f) => after.includes(f))) {
    const [a, b] = await Promise.all([readFile(path.join(fixture, file)), readFile(path.join(workspace, file))]);
    if (!a.equals(b)) modified.push(file);
  }
  return { modified, deleted: before.filter((f) => !after.includes(f)), added: after.filter((f) => !before.includes(f)) };
}
