import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
export const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

/** The environment without any model configuration, so the offline model is used. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!('OPENAI_API_KEY' in extra)) delete env.OPENAI_API_KEY;
  if (!('OPENAI_BASE_URL' in extra)) delete env.OPENAI_BASE_URL;
  delete env.BATON_GUARDRAIL_URL;
  return env;
}

/** Runs the built CLI to completion (killed after `timeoutMs`). */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: options.env ?? offlineEnv(),
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
