import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { QueueCommandOptions } from './queue-options.js';
import { runnerSetupFields, type RunnerSetupCommandOptions } from './runner-options.js';
import { resolveSkillsDir } from './delegation-setup.js';
import { UsageError, positiveIntOption as int, setupRunner } from './runner-setup.js';

/** What `baton worker` was asked for, as commander parses it. */
export interface QueueWorkerOptions extends RunnerSetupCommandOptions, QueueCommandOptions {
  agents: string;
  skills?: string;
  workspace: string;
  applyEdits: boolean;
  concurrency: string;
  taskConcurrency: string;
  maxDepth: string;
  lockDuration: string;
  stalledInterval: string;
  /** Where job events and notices go (default stderr/stdout of the process). */
  out?: { stdout: (line: string) => void; stderr: (line: string) => void };
}

const isDir = (dir: string) =>
  stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * Wires one worker process: the Redis thread store every worker shares, a Runner on it, and
 * delegation whose `delegate_task` sends subtasks to the queues (run there by whichever worker
 * takes them), with the write-ahead edit ledger on the same Redis when edits are applied.
 */
export async function startQueueWorker(opts: QueueWorkerOptions): Promise<{ name: string; close(): Promise<void> }> {
  const out = opts.out ?? { stdout: (l: string) => process.stdout.write(`${l}\n`), stderr: (l: string) => process.stderr.write(`${l}\n`) };
  const connection = opts.queue as string;
  const prefix = opts.queuePrefix;
  const concurrency = int('--concurrency', opts.concurrency);
  const taskConcurrency = int('--task-concurrency', opts.taskConcurrency);
  const maxDepth = int('--max-depth', opts.maxDepth);
  const lockDurationMs = int('--lock-duration', opts.lockDuration);
  const stalledIntervalMs = int('--stalled-interval', opts.stalledInterval);
  const lockLeaseMs = int('--lock-lease', opts.lockLease);
  const workspace = resolve(opts.workspace);
  if (!(await isDir(workspace))) throw new UsageError(`--workspace ${opts.workspace}: not a directory`);
  const skillsDir = await resolveSkillsDir(opts.skills, opts.agents);

  const queue = await import('@baton/queue');
  queue.redisOptions(connection, '--queue');
  const store = queue.createRedisThreadStore({ connection, prefix });
  const dispatcher = queue.createQueueDispatcher({ connection, prefix, maxDepth });
  const ledger = opts.applyEdits ? queue.createRedisEditLedger({ connection, prefix }) : undefined;

  const logger = {
    info: (message: string, fields?: Record<string, unknown>) => out.stderr(JSON.stringify({ level: 'info', message, ...fields })),
    warn: (message: string, fields?: Record<string, unknown>) => out.stderr(JSON.stringify({ level: 'warn', message, ...fields })),
  };
  let setup: Awaited<ReturnType<typeof setupRunner>>;
  try {
    setup = await setupRunner({
      agentsDir: opts.agents,
      storeFile: '(redis)',
      store,
      env: process.env,
      ...runnerSetupFields(opts, process.env),
      // delegate_task sends subtasks to the queues (run there by whichever worker takes them).
      delegation: {
        ...(skillsDir ? { skillsDir } : {}),
        workspace,
        maxDepth,
        applyEdits: opts.applyEdits,
        ...(ledger ? { editLedger: ledger } : {}),
        dispatch: (task, o) => dispatcher.dispatch(task, o),
        logger,
      },
      limits: { lockLeaseMs },
    });
  } catch (err) {
    // The stack closed the store it was given; the dispatcher and ledger are this function's.
    await Promise.allSettled([dispatcher.close(), ledger?.close()]);
    throw err;
  }
  const delegation = setup.delegation as NonNullable<typeof setup.delegation>;
  if (setup.packets?.ephemeralKeys) {
    out.stderr(
      'baton worker: packet keys are ephemeral for this process; every worker must share BATON_PACKET_REFERENCE_KEY and BATON_PACKET_AUDIT_KEY (32+ bytes each) for packet digests to reconcile across machines',
    );
  }

  const worker = queue.startWorker({
    connection,
    prefix,
    runner: setup.runner,
    tasks: delegation,
    concurrency,
    taskConcurrency,
    maxDepth,
    lockDurationMs,
    stalledIntervalMs,
    logger,
    onJobEvent: (event) => out.stderr(JSON.stringify({ level: 'info', message: `job ${event.event}`, worker: worker.name, ...event })),
  });
  await worker.ready();
  out.stdout(
    `baton worker: ready as ${worker.name} on ${queue.redact(connection)} (prefix ${prefix}; runs x${concurrency}, tasks depth 1-${maxDepth} x${taskConcurrency}; model: ${setup.label})`,
  );
  return {
    name: worker.name,
    async close() {
      await worker.close();
      // The stack shuts delegation down first, then the store; the queues' clients go after.
      try {
        await setup.close();
      } finally {
        await Promise.allSettled([dispatcher.close(), ledger?.close()]);
      }
    },
  };
}
