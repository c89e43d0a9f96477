import type { SpawnJsonProcessOptions, SpawnJsonProcessResult } from '@baton/runner';
import { runProcess } from './run-process.js';

/**
 * The default subprocess runner for skills: one JSON object in on stdin, one JSON object out on
 * stdout, process-group kill on timeout/abort/flood. Same contract and result shape as
 * @baton/runner's `spawnJsonProcess` (which can be injected instead), but without importing the
 * runner at run time: a nested skill that imports @baton/skills would otherwise load the whole
 * Agents SDK, which costs seconds per delegation level (see bench/delegation).
 */
export async function spawnJson(options: SpawnJsonProcessOptions): Promise<SpawnJsonProcessResult> {
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
}
