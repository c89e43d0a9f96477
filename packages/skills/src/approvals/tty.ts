import { createInterface } from 'node:readline/promises';
import type { ApprovalHook } from '../delegation/types.js';

/** Options for {@link createTtyApprovalHook}. */
export interface TtyApprovalHookOptions {
  /** Where answers come from (default process.stdin). */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the question goes (default process.stderr, so stdout stays machine-readable). */
  output?: NodeJS.WritableStream;
  /** Ask even when `input` is not a terminal (tests, piped answers); otherwise a non-TTY is a no. */
  allowNonTty?: boolean;
  /** Seconds to wait for an answer before it counts as a no (default 120). */
  timeoutSeconds?: number;
}

/**
 * An approval hook that asks on the terminal: "Allow … ? [y/N]". Only `y` / `yes` approves;
 * anything else, a closed input, a non-terminal input or no answer in time is a no.
 */
export function createTtyApprovalHook(options: TtyApprovalHookOptions = {}): ApprovalHook {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const ask = async (): Promise<boolean> => {
      if (!options.allowNonTty && !input.isTTY) return false;
      const rl = createInterface({ input, output, terminal: false });
      const timeout = AbortSignal.timeout((options.timeoutSeconds ?? 120) * 1000);
      const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
      try {
        const summary = request.summary.replace(/[\r\n]+/g, ' ').slice(0, 200);
        const answer = await Promise.race([
          rl.question(
            `Allow subagent "${request.skill}" to use ${request.capabilities.join(', ')} for task ${request.task_id} (${summary})? [y/N] `,
            { signal: timeout },
          ),
          closed,
        ]);
        return /^(y|yes)$/i.test(answer.trim());
      } catch {
        return false;
      } finally {
        rl.close();
      }
    };
    // One question at a time, even when delegations run concurrently.
    const next = queue.then(ask, ask);
    queue = next;
    return next;
  };
}
