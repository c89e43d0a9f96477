import { runProcess } from './run-process.js';

/**
 * Options for one subprocess following the seed's stdin/stdout contract. Structurally the same
 * as `SpawnJsonProcessOptions` of @baton/runner, so the runner's implementation can be injected.
 */
export interface SpawnJsonOptions {
  command: string;
  args?: string[];
  /** The one JSON object written to stdin. */
  input: unknown;
  cwd?: string;
  /** The complete environment (callers scrub it). */
  env?: Record<string, string>;
  timeoutMs: number;
  killGraceMs?: number;
  maxStdoutBytes?: number;
  maxStderrBytes?: number;
  signal?: AbortSignal;
}

/** How it ended; exactly one of `output` / `failure` is set (same shape as @baton/runner's). */
export interface SpawnJsonResult {
  output?: unknown;
  failure?: {
    code: 'TIMEOUT' | 'NON_ZERO_EXIT' | 'SIGNALLED' | 'BAD_JSON' | 'NO_OUTPUT' | 'OUTPUT_TOO_LARGE' | 'SPAWN_FAILED' | 'ABORTED';
    message: string;
  };
  exitCode: number | null;
  signal: string | null;
  stderr: string;
  durationMs: number;
}

/** A function that runs one JSON-in/JSON-out subprocess (the seam `createDelegation` takes). */
export type SpawnJson = (options: SpawnJsonOptions) => Promise<SpawnJsonResult>;

/** Default {@link SpawnJson}: one JSON object in, one JSON object out, process-group kill. */
export const spawnJson: SpawnJson = async (options) => {
  const r = await runProcess({ ...options, stdin: JSON.stringify(options.input) });
  const base = { exitCode: r.exitCode, signal: r.signal, stderr: r.stderr, durationMs: r.durationMs };
  if (r.spawnError) return { ...base, failure: { code: 'SPAWN_FAILED', message: `could not start ${options.command}: ${r.spawnError}` } };
  if (r.killedBy === 'TIMEOUT') return { ...base, failure: { code: 'TIMEOUT', message: `no result within ${options.timeoutMs} ms; the process group was killed` } };
  if (r.killedBy === 'ABORTED') return { ...base, failure: { code: 'ABORTED', message: 'cancelled; the process group was killed' } };
  if (r.killedBy === 'OUTPUT_TOO_LARGE') return { ...base, failure: { code: 'OUTPUT_TOO_LARGE', message: 'stdout exceeded its limit; the process group was killed' } };
  if (r.signal) return { ...base, failure: { code: 'SIGNALLED', message: `killed by ${r.signal}` } };
  if (r.exitCode !== 0) return { ...base, failure: { code: 'NON_ZERO_EXIT', message: `exited with code ${r.exitCode}` } };
  const text = r.stdout.trim();
  if (text === '') return { ...base, failure: { code: 'NO_OUTPUT', message: 'exited 0 without writing a JSON object to stdout' } };
  try {
    const output: unknown = JSON.parse(text);
    if (typeof output !== 'object' || output === null || Array.isArray(output)) {
      return { ...base, failure: { code: 'BAD_JSON', message: 'stdout is JSON but not an object' } };
    }
    return { ...base, output };
  } catch {
    return { ...base, failure: { code: 'BAD_JSON', message: 'stdout is not one JSON object' } };
  }
};
