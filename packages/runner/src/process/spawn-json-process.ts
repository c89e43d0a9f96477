import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { scrubbedEnv } from './env.js';
import { ProcessOptionsError } from './errors.js';
import { lastLine, parseSingleJsonObject } from './output.js';
import type { SpawnFailureCode, SpawnJsonProcessOptions, SpawnJsonProcessResult } from './types.js';

/** Defaults for subprocess invocations, in one place. */
export const PROCESS_DEFAULTS = {
  killGraceMs: 2_000,
  maxStdoutBytes: 1024 * 1024,
  maxStderrBytes: 64 * 1024,
} as const;

/**
 * Runs one subprocess under the seed's contract: one JSON object in on stdin, one JSON object
 * out on stdout, stderr kept as logs. The child leads its own process group; on timeout, abort
 * or an output flood the whole group gets SIGTERM, then SIGKILL after `killGraceMs`, and once
 * the child exits anything left in its group is killed too. Never rejects for a misbehaving
 * process — the result says what went wrong; rejects only for invalid options.
 */
export async function spawnJsonProcess(options: SpawnJsonProcessOptions): Promise<SpawnJsonProcessResult> {
  const config = checkOptions(options);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  if (options.signal?.aborted) {
    return {
      failure: { code: 'ABORTED', message: 'aborted before the process was started' },
      exitCode: null,
      signal: null,
      stderr: '',
      durationMs: 0,
    };
  }

  return new Promise((resolve) => {
    let failure: { code: SpawnFailureCode; message: string } | undefined;
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    const stderrChunks: Buffer[] = [];
    let stderrBytes = 0;
    let stderrDropped = 0;
    let killTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    let settled = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;

    const child = spawn(options.command, options.args ?? [], {
      cwd: options.cwd,
      env: options.env ?? scrubbedEnv(),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });

    const signalGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const fail = (code: SpawnFailureCode, message: string) => {
      if (failure) return;
      failure = { code, message };
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), config.killGraceMs);
    };

    const timeout = setTimeout(
      () => fail('TIMEOUT', `the process did not finish within ${config.timeoutMs} ms; its process group was killed`),
      config.timeoutMs,
    );
    const onAbort = () => fail('ABORTED', 'the invocation was aborted; its process group was killed');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      clearTimeout(killTimer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener('abort', onAbort);
      let stderr = Buffer.concat(stderrChunks).toString('utf8');
      if (stderrDropped > 0) stderr += `\n[baton: ${stderrDropped} more bytes of stderr dropped]`;
      const base = { exitCode, signal: exitSignal, stderr, durationMs: elapsed() };
      if (failure) return resolve({ ...base, failure });
      if (exitSignal) {
        return resolve({ ...base, failure: { code: 'SIGNALLED', message: `the process was killed by ${exitSignal}${tail(stderr)}` } });
      }
      if (exitCode !== 0) {
        return resolve({ ...base, failure: { code: 'NON_ZERO_EXIT', message: `the process exited with code ${exitCode}${tail(stderr)}` } });
      }
      const parsed = parseSingleJsonObject(Buffer.concat(stdoutChunks).toString('utf8'));
      if (!parsed.ok) return resolve({ ...base, failure: { code: parsed.code, message: parsed.message } });
      resolve({ ...base, output: parsed.value });
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      // Only spawn failures arrive here before the process exists; later errors come with 'exit'.
      if (child.pid === undefined) {
        failure ??= {
          code: 'SPAWN_FAILED',
          message: `cannot start ${JSON.stringify(options.command)}: ${error.code ?? error.message}`,
        };
        finish();
      }
    });

    child.stdin.on('error', () => {
      // EPIPE / ECONNRESET: the child exited or closed stdin without reading; its exit says why.
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (failure) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > config.maxStdoutBytes) {
        stdoutChunks.length = 0;
        fail('OUTPUT_TOO_LARGE', `stdout exceeded ${config.maxStdoutBytes} bytes; the process group was killed`);
        return;
      }
      stdoutChunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const room = config.maxStderrBytes - stderrBytes;
      if (room <= 0) {
        stderrDropped += chunk.length;
        return;
      }
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      stderrChunks.push(kept);
      stderrBytes += kept.length;
      stderrDropped += chunk.length - kept.length;
    });

    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      // Leftovers in the child's group (background grandchildren) die with the invocation.
      signalGroup('SIGKILL');
      // 'close' waits for every holder of the pipes; do not wait forever for one that escaped.
      closeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, config.killGraceMs);
    });
    child.on('close', finish);

    try {
      child.stdin.end(config.inputText);
    } catch {
      // Writing to a child that failed to start; the 'error' event reports it.
    }
  });
}

function tail(stderr: string): string {
  const line = lastLine(stderr);
  return line ? `; last stderr line: ${line}` : '';
}

function checkOptions(options: SpawnJsonProcessOptions): {
  timeoutMs: number;
  killGraceMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  inputText: string;
} {
  if (!options || typeof options !== 'object') throw new ProcessOptionsError('spawnJsonProcess: options must be an object');
  if (typeof options.command !== 'string' || options.command === '') {
    throw new ProcessOptionsError('spawnJsonProcess: command must be a non-empty string');
  }
  if (options.args !== undefined && (!Array.isArray(options.args) || options.args.some((a) => typeof a !== 'string'))) {
    throw new ProcessOptionsError('spawnJsonProcess: args must be an array of strings');
  }
  const positive = (name: string, value: unknown, fallback?: number): number => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new ProcessOptionsError(`spawnJsonProcess: ${name} must be a positive number, got ${String(value)}`);
    }
    return v;
  };
  let inputText: string;
  try {
    inputText = JSON.stringify(options.input);
  } catch (error) {
    throw new ProcessOptionsError(`spawnJsonProcess: input is not JSON-serializable: ${(error as Error).message}`, { cause: error });
  }
  if (inputText === undefined) throw new ProcessOptionsError('spawnJsonProcess: input must be a JSON value');
  return {
    timeoutMs: positive('timeoutMs', options.timeoutMs),
    killGraceMs: positive('killGraceMs', options.killGraceMs, PROCESS_DEFAULTS.killGraceMs),
    maxStdoutBytes: positive('maxStdoutBytes', options.maxStdoutBytes, PROCESS_DEFAULTS.maxStdoutBytes),
    maxStderrBytes: positive('maxStderrBytes', options.maxStderrBytes, PROCESS_DEFAULTS.maxStderrBytes),
    inputText,
  };
}
