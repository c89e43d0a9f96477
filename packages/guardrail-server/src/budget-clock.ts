/**
 * The clock the time budget runs on. Where Node can tell (`process.threadCpuUsage`, Node 23.9 and later),
 * it is the CPU time this thread has spent, in milliseconds: a request is refused as too complex
 * for the work it causes, not for the time other processes held the CPU. On a loaded machine a
 * wall-clock budget had refused ordinary inputs (PAYLOAD_TOO_COMPLEX) that took 40 ms of CPU.
 * Elsewhere it is wall-clock time (`performance.now`). Wall-clock latency stays bounded by the
 * HTTP service's worker deadline (`timeMs + workerGraceMs`, wall-clock), which terminates a busy
 * worker whatever this clock says.
 */
type ThreadCpuUsage = () => { user: number; system: number };

const threadCpuUsage = (process as unknown as { threadCpuUsage?: ThreadCpuUsage }).threadCpuUsage;

/** Whether the budget clock is per-thread CPU time (else wall-clock). */
export const BUDGET_CLOCK_IS_CPU_TIME = typeof threadCpuUsage === 'function';

/** Milliseconds on the budget clock (see above); only differences between readings mean anything. */
export const budgetClock: () => number = BUDGET_CLOCK_IS_CPU_TIME
  ? () => {
      const u = threadCpuUsage!.call(process);
      return (u.user + u.system) / 1000;
    }
  : () => performance.now();
