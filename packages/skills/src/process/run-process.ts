import { spawn } from 'node:child_process';

/** Options for {@link runProcess}. */
export interface RunProcessOptions {
  /** Executable (no shell). */
  command: string;
  args?: string[];
  cwd?: string;
  /** The complete environment (not merged with process.env). */
  env?: Record<string, string>;
  /** Written to stdin, then stdin is closed. */
  stdin?: string;
  /** Hard timeout: the whole process group gets SIGTERM, then SIGKILL after `killGraceMs`. */
  timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL (default 500 ms). */
  killGraceMs?: number;
  /** Past this many stdout bytes the group is killed (default 1 MiB). */
  maxStdoutBytes?: number;
  /** stderr bytes kept (default 64 KiB; the rest is dropped). */
  maxStderrBytes?: number;
  /** Aborting kills the process group. */
  signal?: AbortSignal;
}

/** How a process ended. */
export interface RunProcessResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  /** Why Baton ended it, if it did. */
  killedBy?: 'TIMEOUT' | 'ABORTED' | 'OUTPUT_TOO_LARGE';
  spawnError?: string;
  durationMs: number;
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // Negative pid: the whole process group (the child was spawned detached, so it leads one).
    process.kill(-pid, sig);
  } catch {
    // Already gone.
  }
}

/**
 * Runs a plain command (criteria `command` checks): raw stdin text in, raw stdout and the exit code
 * out, no JSON contract. JSON-in/JSON-out skills use @baton/runner/process's `spawnJsonProcess`
 * instead; that one writes JSON to stdin, parses stdout and does not return it, so it cannot serve
 * here.
 *
 * Runs the command in its own process group with a hard timeout. Timeout, abort and an
 * oversized stdout kill the whole group (grandchildren included): SIGTERM, then SIGKILL.
 * Never rejects; spawn failures are reported in `spawnError`.
 */
export function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  const started = performance.now();
  const maxOut = options.maxStdoutBytes ?? 1024 * 1024;
  const maxErr = options.maxStderrBytes ?? 64 * 1024;
  const grace = options.killGraceMs ?? 500;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let killedBy: RunProcessResult['killedBy'];
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    if (options.signal?.aborted) {
      resolve({ stdout: '', stderr: '', exitCode: null, signal: null, killedBy: 'ABORTED', durationMs: 0 });
      return;
    }
    const child = spawn(options.command, options.args ?? [], {
      cwd: options.cwd,
      env: options.env ?? {},
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
    });
    const terminate = (why: NonNullable<RunProcessResult['killedBy']>): void => {
      if (killedBy || settled) return;
      killedBy = why;
      killGroup(child.pid, 'SIGTERM');
      graceTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
    };
    const timer = setTimeout(() => terminate('TIMEOUT'), options.timeoutMs);
    const onAbort = (): void => terminate('ABORTED');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOut) {
        terminate('OUTPUT_TOO_LARGE');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes >= maxErr) return;
      const keep = chunk.subarray(0, maxErr - errBytes);
      errBytes += keep.length;
      err.push(keep);
    });
    child.stdin.on('error', () => undefined); // EPIPE when the child exits without reading.
    const finish = (exitCode: number | null, sig: string | null, spawnError?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // The leader is gone; no grandchild of its group may outlive it (no orphans, ever).
      killGroup(child.pid, 'SIGKILL');
      if (graceTimer) clearTimeout(graceTimer);
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode,
        signal: sig,
        ...(killedBy ? { killedBy } : {}),
        ...(spawnError ? { spawnError } : {}),
        durationMs: Math.round(performance.now() - started),
      });
    };
    child.on('error', (e) => finish(null, null, e.message));
    child.on('close', (code, sig) => finish(code, sig));
    child.stdin.end(options.stdin ?? '');
  });
}
