import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options for {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** The `redis-server` binary; default `$REDIS_SERVER_BIN` or `redis-server` on the PATH. */
  binary?: string;
  /** Listen on this port (e.g. to restart a server where it was); default a free loopback port. */
  port?: number;
  /** How long to wait for the server to answer; default 10 000 ms. */
  startTimeoutMs?: number;
  /** More `redis-server` arguments, e.g. `['--maxmemory', '10mb']`. */
  args?: readonly string[];
}

/** A throwaway Redis started by {@link startRedisServer}. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The server process id. */
  pid: number;
  /** Its working directory (removed by `stop()`). */
  dir: string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its data directory. Idempotent. */
  stop(): Promise<void>;
}

const INSTALL_HINT = 'install it with `apt-get install -y redis-server` (Debian/Ubuntu), or set REDIS_SERVER_BIN';
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts a private `redis-server` on 127.0.0.1 for tests: no persistence (`--save ""
 * --appendonly no`), its own temporary `--dir`, a free port (retried if another process takes
 * the port first). Resolves once this server answers (`INFO server` names its pid). Servers still running when this
 * process exits are killed.
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServer> {
  const binary = options.binary ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const attempts = options.port === undefined ? 5 : 1;
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOn(binary, port, startTimeoutMs, options.args ?? []);
    } catch (error) {
      lastError = error as Error;
      if (!(error instanceof PortTakenError)) throw error;
    }
  }
  throw lastError!;
}

class PortTakenError extends Error {}

async function startOn(binary: string, port: number, startTimeoutMs: number, extraArgs: readonly string[]): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    ...extraArgs,
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<{ code: number | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
    child.once('exit', (code) => resolve({ code }));
  });
  const cleanup = () => rm(dir, { recursive: true, force: true });

  // Ready means: a server on the port answers, and it is this child (not whoever else took the port).
  const ready = waitForServer(port, child.pid ?? -1, startTimeoutMs);
  let outcome: 'ready' | { code: number | null; error?: NodeJS.ErrnoException };
  try {
    outcome = await Promise.race([ready.then(() => 'ready' as const), exited]);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    await cleanup();
    throw new Error(`${(error as Error).message}; its output:\n${output.trim()}`);
  }
  if (outcome !== 'ready') {
    ready.cancel();
    await cleanup();
    if (outcome.error?.code === 'ENOENT') {
      throw new Error(`cannot start Redis for tests: ${JSON.stringify(binary)} was not found; ${INSTALL_HINT}`);
    }
    if (/address already in use/i.test(output)) throw new PortTakenError(`port ${port} is taken`);
    throw new Error(
      `redis-server exited (code ${outcome.code ?? outcome.error?.message}) before answering on port ${port}:\n${output.trim()}`,
    );
  }
  track(child);

  let stopping: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    dir,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(killer);
        }
        running.delete(child);
        await cleanup();
      })();
      return stopping;
    },
  };
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const server of running) server.kill('SIGKILL');
  });
}

/** A port that was free on 127.0.0.1 a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls with a raw `INFO server` until the server with process id `pid` answers; `cancel()` stops polling. */
function waitForServer(port: number, pid: number, timeoutMs: number): Promise<void> & { cancel(): void } {
  let cancelled = false;
  const started = Date.now();
  const promise = (async () => {
    while (!cancelled) {
      if ((await serverPid(port)) === pid) return;
      if (Date.now() - started > timeoutMs) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
      await sleep(20);
    }
  })();
  promise.catch(() => undefined);
  return Object.assign(promise, { cancel: () => void (cancelled = true) });
}

/** The `process_id` of the Redis answering on `port`, or undefined (nothing there, loading, not Redis). */
function serverPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (pid: number | undefined) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(1_000, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('close', () => done(undefined));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.startsWith('-')) return done(undefined);
      const match = /\r\nprocess_id:(\d+)\r\n/.exec(reply);
      if (match) done(Number(match[1]));
    });
  });
}
