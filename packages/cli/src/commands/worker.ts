import type { Command } from 'commander';
import { addQueueOptions } from './queue-options.js';
import { addRunnerSetupOptions } from './runner-options.js';
// Type only: the set-up module (and what it loads) is imported when the command runs.
import type { QueueWorkerOptions } from './worker-setup.js';

type WorkerCommandOptions = QueueWorkerOptions;

/** `baton worker`: executes queued runs and delegated subtasks until SIGINT/SIGTERM. */
export function register(program: Command): void {
  const command = program
    .command('worker')
    .description('execute runs and delegated subtasks queued on Redis (start any number, on any machine that reaches the Redis)')
    .option('--agents <dir>', 'directory of *.agent.yml manifests (and baton.yml)', 'agents')
    .option('--skills <dir>', 'directory of skills delegate_task may start (default: <agents>/../skills when it exists)')
    .option('--workspace <dir>', 'directory subagents work in; file references resolve inside it', '.')
    .option('--apply-edits', 'apply the edits of successful subtasks to the workspace (recorded in a write-ahead ledger on Redis)', false)
    .option('--concurrency <n>', 'runs this process executes at once', '4')
    .option('--task-concurrency <n>', 'delegated subtasks per depth this process executes at once', '4')
    .option('--max-depth <n>', 'deepest delegation served', '3')
    .option(
      '--lock-duration <ms>',
      "how long a job's hold lives without renewal: a killed worker's job is retried after about this",
      '30000',
    )
    .option('--stalled-interval <ms>', 'how often to look for jobs whose worker died', '30000');
  addQueueOptions(command, true);
  addRunnerSetupOptions(command).action(async (opts: WorkerCommandOptions) => {
    process.exitCode = await workerCommand(opts);
  });
}

async function workerCommand(opts: WorkerCommandOptions): Promise<number> {
  const { startQueueWorker } = await import('./worker-setup.js');
  try {
    const worker = await startQueueWorker(opts);
    await new Promise<void>((resolveStop) => {
      const stop = (signal: string) => {
        process.stderr.write(`baton worker: ${signal}, finishing the jobs in progress\n`);
        void worker.close().finally(() => resolveStop());
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  } catch (err) {
    process.stderr.write(`baton worker: ${(err as Error).message ?? String(err)}\n`);
    return (await import('../errors.js')).exitCodeFor(err);
  }
}
