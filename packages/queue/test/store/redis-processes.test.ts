// The Redis store shared by separate OS processes: the shared multi-process contract, and a holder
// killed with SIGKILL loses the lock once its lease runs out (not before), after which its run is recovered.
// The children load the built store from dist/ (turbo builds before it tests).
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ThreadBusyError } from '@baton/runner';
import { describeThreadStoreProcessContract, runStoreChild } from '@baton/runner/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisThreadStore } from '../../src/index.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from '../helpers/redis.js';

const distIndex = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');
const storeUrl = pathToFileURL(distIndex).href;
const url = testRedisUrl();

// Creates a run, takes the lock with a short lease (renewed in the background) and keeps writing.
const HOLDER = `
import { createRedisThreadStore } from ${JSON.stringify(storeUrl)};
const [url, prefix, threadId, leaseMs] = process.argv.slice(2);
const store = createRedisThreadStore({ connection: url, prefix });
const run = await store.createRun(threadId, { agentId: 'io.baton.victim', agentVersion: '1.0.0', status: 'in_progress' });
await store.acquireThreadLock(threadId, { owner: run.id, leaseMs: Number(leaseMs) });
process.stdout.write(JSON.stringify({ runId: run.id }) + '\\n');
for (let i = 0; ; i++) {
  await store.mergeState(threadId, { ['victim' + (i % 20)]: i });
  await store.appendItems(threadId, run.id, [{ n: i }]);
}
`;

// The shared multi-process contract (merges, lock serialisation, a holder killed mid-batch).
describeThreadStoreProcessContract(
  'redis',
  async () => {
    if (!existsSync(distIndex)) throw new Error(`build @baton/queue first: ${distIndex} is missing`);
    const prefix = uniquePrefix('shared-processes');
    return {
      store: createRedisThreadStore({ connection: url, prefix }),
      child: { moduleUrl: storeUrl, exportName: 'createRedisThreadStore', options: { connection: url, prefix } },
      cleanup: async () => void (await deleteKeys(url, prefix)),
    };
  },
  { describe, it, expect, beforeEach, afterEach },
);

describe('Redis thread store across processes', () => {
  let dir: string;
  let prefix: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    if (!existsSync(distIndex)) throw new Error(`build @baton/queue first: ${distIndex} is missing`);
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-redis-proc-'));
    prefix = uniquePrefix('processes');
    await writeFile(join(dir, 'holder.mjs'), HOLDER);
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    await deleteKeys(url, prefix);
  });

  it('a holder killed with SIGKILL loses the lock after its lease; its run is then recovered', { timeout: 120_000 }, async () => {
    // Long enough that a holder stalled by a busy machine still renews in time (it renews every
    // leaseMs/3); nothing below bounds how long anything took.
    const leaseMs = 4_000;
    const store = createRedisThreadStore({ connection: url, prefix });
    const thread = await store.createThread();
    const holder = runStoreChild(dir, 'holder.mjs', [url, prefix, thread.id, String(leaseMs)]);
    children.push(holder.child);
    const { runId } = JSON.parse(await holder.firstLine) as { runId: string };

    // While it lives it renews: more than a lease passes and the lock stays its own.
    for (let i = 0; i < 3; i++) {
      await sleep(leaseMs / 2);
      await expect(store.acquireThreadLock(thread.id, { owner: 'intruder', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
    }
    expect(await store.recoverAbandonedRuns!()).toBe(0);
    expect((await store.listItems(thread.id)).length).toBeGreaterThan(0);

    holder.child.kill('SIGKILL');
    await holder.exit;
    const killedAt = Date.now();
    // Its last renewal was at most leaseMs/3 ago: the lease still holds for a while.
    const early = await store.acquireThreadLock(thread.id, { owner: 'too-early', waitMs: 0 }).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(ThreadBusyError);
    expect((early as Error).message).toContain(runId);

    // Once the lease runs out, recovery fails the dead holder's run...
    let recovered = 0;
    while (recovered === 0 && Date.now() - killedAt < leaseMs * 20) {
      recovered = await store.recoverAbandonedRuns!();
      if (recovered === 0) await sleep(50);
    }
    expect(recovered).toBe(1);
    expect(await store.getRun(runId)).toMatchObject({ status: 'failed', error: { code: 'RUNNER_CRASHED' } });
    // ...and another owner takes the thread at once.
    const successor = await store.acquireThreadLock(thread.id, { owner: 'successor', waitMs: 0 });
    await store.mergeState(thread.id, { after_crash: true });
    await successor.release();
    const items = await store.listItems(thread.id);
    expect(items.map((i) => i.seq)).toEqual(items.map((_, index) => index + 1));
    expect((await store.getThread(thread.id))!.state.after_crash).toBe(true);
    await store.close();
  });
});
