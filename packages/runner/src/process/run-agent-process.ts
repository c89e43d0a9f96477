import { AgentProcessInputSchema, AgentProcessOutputSchema, type AgentProcessInput, type AgentProcessOutput } from '@baton/manifest';
import { spawnJsonProcess } from './spawn-json-process.js';
import type { SpawnFailureCode, SpawnJsonProcessOptions } from './types.js';

/** Options for {@link runAgentProcess}: a subprocess agent and the stdin object it gets. */
export interface RunAgentProcessOptions extends Omit<SpawnJsonProcessOptions, 'input'> {
  /** The seed's stdin object (validated before the process starts). */
  input: AgentProcessInput;
  /**
   * Called with the validated object exactly as it will be written to stdin, before the process
   * starts (e.g. to record a keyed digest of it). If it throws, `runAgentProcess` rejects with
   * that error and no process is started.
   */
  onInput?(written: AgentProcessInput): Promise<void> | void;
}

/** Why an agent process invocation failed. */
export type AgentProcessFailureCode = SpawnFailureCode | 'INVALID_INPUT' | 'BAD_OUTPUT';

/** The outcome of one agent process invocation. */
export type RunAgentProcessResult =
  | { ok: true; output: AgentProcessOutput; stderr: string; durationMs: number }
  | {
      ok: false;
      error: { code: AgentProcessFailureCode; message: string };
      stderr: string;
      durationMs: number;
      exitCode: number | null;
      signal: string | null;
    };

/**
 * Runs a subprocess agent once: validates the stdin object against the contract, runs the
 * process with {@link spawnJsonProcess}, and validates what it printed. Never rejects for a
 * misbehaving agent (only a throwing `onInput` rejects); a failure says which rule was broken,
 * without echoing values.
 */
export async function runAgentProcess(options: RunAgentProcessOptions): Promise<RunAgentProcessResult> {
  const input = AgentProcessInputSchema.safeParse(options.input);
  if (!input.success) {
    return {
      ok: false,
      error: { code: 'INVALID_INPUT', message: `agent process input does not match the contract: ${describeIssues(input.error.issues)}` },
      stderr: '',
      durationMs: 0,
      exitCode: null,
      signal: null,
    };
  }
  await options.onInput?.(input.data);
  const { onInput: _onInput, ...spawnOptions } = options;
  const result = await spawnJsonProcess({ ...spawnOptions, input: input.data });
  const failed = (code: AgentProcessFailureCode, message: string): RunAgentProcessResult => ({
    ok: false,
    error: { code, message },
    stderr: result.stderr,
    durationMs: result.durationMs,
    exitCode: result.exitCode,
    signal: result.signal,
  });
  if (result.failure) return failed(result.failure.code, result.failure.message);
  const output = AgentProcessOutputSchema.safeParse(result.output);
  if (!output.success) {
    return failed('BAD_OUTPUT', `agent process output does not match the contract: ${describeIssues(output.error.issues)}`);
  }
  return { ok: true, output: output.data, stderr: result.stderr, durationMs: result.durationMs };
}

/** Paths and messages of the first few schema issues; never the offending values. */
function describeIssues(issues: readonly { path: PropertyKey[]; message: string; code?: string }[]): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const path = issue.path.length === 0 ? '(root)' : issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `${path}: ${issue.message}`;
  });
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return shown.join('; ') + more;
}
