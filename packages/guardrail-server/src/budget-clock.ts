import { isMainThread } from 'node:worker_threads';

/**
 * The clock the time budget runs on, in milliseconds, so that a request is refused as too complex
 * for the work it causes, not for the time other processes held the CPU (on a loaded machine a
 * wall-clock budget had refused ordinary inputs, PAYLOAD_TOO_COMPLEX, that took 40 ms of CPU):
 *
 * - `thread-cpu`: where Node can tell (`process.threadCpuUsage`, Node 23.9 and later), the CPU
 *   time this thread has spent.
 * - `process-cpu`: older Node, main thread (where in-process engines run): it advances by the
 *   smaller of the process's CPU time and wall-clock time between readings, so it is never
 *   stricter than wall-clock time (the process's other threads can add CPU time in parallel) and
 *   not charged for time other processes held the CPU.
 * - `wall`: older Node in a worker thread (the HTTP service's pool), `performance.now`.
 *
 * Wall-clock latency stays bounded either way: by the engine's wall-clock ceiling when the clock
 * is not `wall`, and by the HTTP service's worker deadline (`timeMs + workerGraceMs`).
 */
type CpuUsage = () => { user: number; system: number };

const threadCpuUsage = (process as unknown as { threadCpuUsage?: CpuUsage }).threadCpuUsage;

/** Which clock the budget runs on here (see above). */
export const BUDGET_CLOCK_KIND: 'thread-cpu' | 'process-cpu' | 'wall' =
  typeof threadCpuUsage === 'function' ? 'thread-cpu' : isMainThread ? 'process-cpu' : 'wall';

/** Whether the budget clock leaves out the time other processes held the CPU (else wall-clock). */
export const BUDGET_CLOCK_IS_CPU_TIME = BUDGET_CLOCK_KIND !== 'wall';

const cpuMs = (usage: CpuUsage) => () => {
  const u = usage.call(process);
  return (u.user + u.system) / 1000;
};

/** The smaller of `cpu`'s and the wall clock's advance since the last reading, summed. */
function minOfCpuAndWall(cpu: () => number): () => number {
  let value = 0;
  let lastCpu = cpu();
  let lastWall = performance.now();
  return () => {
    const c = cpu();
    const w = performance.now();
    value += Math.max(0, Math.min(c - lastCpu, w - lastWall));
    lastCpu = c;
    lastWall = w;
    return value;
  };
}

/** Milliseconds on the budget clock (see above); only differences between readings mean anything. */
export const budgetClock: () => number =
  BUDGET_CLOCK_KIND === 'thread-cpu'
    ? cpuMs(threadCpuUsage!)
    : BUDGET_CLOCK_KIND === 'process-cpu'
      ? minOfCpuAndWall(cpuMs(process.cpuUsage))
      : () => performance.now();
