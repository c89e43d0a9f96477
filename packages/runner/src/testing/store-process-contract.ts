// The ThreadStore contract across OS processes: stores that several processes share (SQLite on one
// machine, Redis on many) must lose no merge, serialise lock holders and survive a holder killed
// with SIGKILL mid-batch. Published beside describeThreadStoreContract; the caller injects the
// test framework's functions, and says how a child process opens the same store.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreadBusyError, type ThreadStore } from '../store/index.js';
import type { ContractTestApi } from './store-contract.js';

/** How a child process opens the store under test: `(await import(moduleUrl))[exportName](options)`. */
export interface ChildStoreSpec {
  /** A `file:` URL (or package name resolvable from the child's directory) of an ES module. */
  moduleUrl: string;
  /** The factory the module exports, e.g. `createSqliteThreadStore`. */
  exportName: string;
  /** Its one options object (JSON). */
  options: Record<string, unknown>;
}

/** One test's store: the parent's instance, how children open the same store, and cleanup. */
export interface SharedStoreUnderTest {
  store: ThreadStore;
  child: ChildStoreSpec;
  cleanup(): Promise<void>;
}

export type SharedStoreFactory = () => Promise<SharedStoreUnderTest>;

const CHILD_PRELUDE = `
const [spec, ...args] = process.argv.slice(2);
const { moduleUrl, exportName, options } = JSON.parse(spec);
const store = (await import(moduleUrl))[exportName](options);
`;

// Merges `count` keys named `<prefix><i>`, then prints done.
const MERGER = `${CHILD_PRELUDE}
const [threadId, prefix, count] = args;
for (let i = 0; i < Number(count); i++) await store.mergeState(threadId, { [prefix + i]: i });
await store.close();
process.stdout.write('done\\n');
`;

// Takes the lock `count` times; inside it a read-modify-write of a counter; prints its sections.
const LOCKER = `${CHILD_PRELUDE}
const [threadId, name, count] = args;
let sections = 0;
for (let i = 0; i < Number(count); i++) {
  const lock = await store.acquireThreadLock(threadId, { owner: name + '-' + i, waitMs: 120000 });
  const counter = (await store.getThread(threadId)).state.counter;
  await new Promise((r) => setTimeout(r, 2));
  await store.mergeState(threadId, { counter: counter + 1, ['last_' + name]: i });
  await lock.release();
  sections++;
}
await store.close();
process.stdout.write(JSON.stringify(sections) + '\\n');
`;

// Holds the thread lock (short lease, renewed) and writes a runner's way: each batch creates a
// run with its first items and finishes the previous run, until it is killed.
const HOLDER = `${CHILD_PRELUDE}
const [threadId, leaseMs] = args;
await store.acquireThreadLock(threadId, { owner: 'holder', leaseMs: Number(leaseMs) });
let previous;
for (let i = 0; ; i++) {
  const id = 'run_holder_' + i;
  await store.writeBatch([
    ...(previous ? [{ op: 'updateRun', runId: previous, input: { status: 'completed' } }] : []),
    { op: 'createRun', threadId, input: { id, agentId: 'io.baton.victim', agentVersion: '1.0.0', status: 'in_progress', ...(previous ? { parentRunId: previous } : {}) } },
    { op: 'appendItems', threadId, runId: id, items: [{ n: i, part: 1 }, { n: i, part: 2, filler: 'x'.repeat(2048) }] },
    { op: 'mergeState', threadId, patch: { ['victim' + (i % 20)]: i, last: i } },
  ]);
  previous = id;
  if (i === 5) process.stdout.write('writing\\n');
}
`;

/**
 * Runs `node <dir>/<script> <args>` for a multi-process store test: `firstLine` resolves with its
 * first stdout line (rejects, with its stderr, if it exits before one), `exit` with its code.
 */
export function runStoreChild(
  dir: string,
  script: string,
  args: string[],
): { child: ChildProcess; firstLine: Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [join(dir, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const firstLine = new Promise<string>((resolveLine, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf('\n');
      if (newline >= 0) resolveLine(stdout.slice(0, newline));
    });
    child.on('exit', (code) => reject(new Error(`child exited ${code} before writing a line; stderr: ${stderr.slice(-2000)}`)));
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  firstLine.catch(() => undefined);
  return { child, firstLine, exit };
}

/**
 * Registers the multi-process contract for a store that several processes can share. `factory`
 * gives each test a fresh store and says how a child opens the same one. Needs `writeBatch` and
 * `recoverAbandonedRuns`. No test bounds how long anything takes; waits are generous.
 */
export function describeThreadStoreProcessContract(name: string, factory: SharedStoreFactory, api: ContractTestApi): void {
  const { describe, it, expect, beforeEach, afterEach } = api;

  describe(`ThreadStore contract across processes: ${name}`, () => {
    let dir: string;
    let made: SharedStoreUnderTest;
    const children: ChildProcess[] = [];
    const start = (script: string, args: string[]) => {
      const started = runStoreChild(dir, script, [JSON.stringify(made.child), ...args]);
      children.push(started.child);
      return started;
    };

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'baton-store-contract-proc-'));
      await writeFile(join(dir, 'merger.mjs'), MERGER);
      await writeFile(join(dir, 'locker.mjs'), LOCKER);
      await writeFile(join(dir, 'holder.mjs'), HOLDER);
      made = await factory();
    });
    afterEach(async () => {
      for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await made.store.close();
      await made.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    it('two processes and this one merging into one thread lose no key', async () => {
      const { store } = made;
      const thread = await store.createThread({ state: { seed: true } });
      const a = start('merger.mjs', [thread.id, 'a', '150']);
      const b = start('merger.mjs', [thread.id, 'b', '150']);
      for (let i = 0; i < 50; i++) await store.mergeState(thread.id, { [`p${i}`]: i });
      expect(await a.firstLine).toBe('done');
      expect(await b.firstLine).toBe('done');
      expect(await a.exit).toBe(0);
      expect(await b.exit).toBe(0);
      const state = (await store.getThread(thread.id))!.state;
      expect(Object.keys(state)).toHaveLength(1 + 150 + 150 + 50);
      for (let i = 0; i < 150; i++) {
        expect(state[`a${i}`]).toBe(i);
        expect(state[`b${i}`]).toBe(i);
      }
    }, 180_000);

    it('serialises lock holders in two processes: no read-modify-write is lost', async () => {
      const { store } = made;
      const thread = await store.createThread({ state: { counter: 0 } });
      const a = start('locker.mjs', [thread.id, 'a', '30']);
      const b = start('locker.mjs', [thread.id, 'b', '30']);
      expect(await a.firstLine).toBe('30');
      expect(await b.firstLine).toBe('30');
      expect(await a.exit).toBe(0);
      expect(await b.exit).toBe(0);
      expect((await store.getThread(thread.id))!.state).toMatchObject({ counter: 60, last_a: 29, last_b: 29 });
    }, 180_000);

    it('a holder killed with SIGKILL mid-batch leaves every batch whole; its run is recovered and the thread usable', async () => {
      const { store } = made;
      // Long enough that a holder stalled by a busy machine still renews in time (every leaseMs/3).
      const leaseMs = 4_000;
      const thread = await store.createThread();
      const holder = start('holder.mjs', [thread.id, String(leaseMs)]);
      expect(await holder.firstLine).toBe('writing');
      await expect(store.acquireThreadLock(thread.id, { owner: 'intruder', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
      holder.child.kill('SIGKILL');
      await holder.exit;

      // The lock frees itself (its lease runs out, or the store sees its holder is gone).
      const successor = await store.acquireThreadLock(thread.id, { owner: 'successor', waitMs: leaseMs * 30 });
      await successor.release();
      // Every batch is all or nothing: each run has both its items, the runs chain, one is active.
      const runs = await store.listRuns(thread.id);
      const items = await store.listItems(thread.id);
      expect(runs.length).toBeGreaterThanOrEqual(6);
      expect(items.map((i) => i.seq)).toEqual(items.map((_, index) => index + 1));
      expect(items).toHaveLength(runs.length * 2);
      runs.forEach((run, index) => {
        expect(items.filter((i) => i.runId === run.id).map((i) => i.item['part'])).toEqual([1, 2]);
        expect(run.parentRunId).toBe(index === 0 ? null : runs[index - 1]!.id);
        expect(run.status).toBe(index === runs.length - 1 ? 'in_progress' : 'completed');
      });
      expect((await store.getThread(thread.id))!.state['last']).toBe(runs.length - 1);

      expect(await store.recoverAbandonedRuns!()).toBe(1);
      expect(await store.getRun(runs[runs.length - 1]!.id)).toMatchObject({ status: 'failed', error: { code: 'RUNNER_CRASHED' } });
      const lock = await store.acquireThreadLock(thread.id, { owner: 'after', waitMs: 0 });
      await store.mergeState(thread.id, { after_crash: true });
      await lock.release();
      expect((await store.getThread(thread.id))!.state['after_crash']).toBe(true);
    }, 180_000);
  });
}
