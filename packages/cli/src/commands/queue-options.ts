import { Option } from 'commander';
import type { Command } from 'commander';

/** The options `baton serve` and `baton worker` share for the Redis queue. */
export interface QueueCommandOptions {
  queue?: string;
  queuePrefix: string;
  lockLease: string;
}

/** Adds `--queue`, `--queue-prefix` and `--lock-lease` to `command`. */
export function addQueueOptions(command: Command, required: boolean): Command {
  const queue = new Option(
    '--queue <redis-url>',
    required
      ? 'Redis the queues and thread store live in (redis://host:port[/db])'
      : 'enqueue runs on this Redis for `baton worker` processes instead of running them here',
  ).env('BATON_QUEUE_URL');
  if (required) queue.makeOptionMandatory();
  return command
    .addOption(queue)
    .option('--queue-prefix <prefix>', 'key prefix of the queues and the thread store (workers and producers must agree)', 'baton')
    .option(
      '--lock-lease <ms>',
      "lease of a thread's lock on the Redis store: a thread held by a killed worker is free again after this (workers and producers must agree: a producer retries an approvals job only after it)",
      '15000',
    );
}

/** Parses a positive integer flag, with a usage message naming the flag. */
export function positiveIntFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`${flag} must be a positive integer; got ${JSON.stringify(value)}`);
  return Number(value);
}
