/** Variables a subprocess may inherit; everything else (API keys, tokens, cloud credentials) is dropped. */
export const SAFE_ENV_KEYS: readonly string[] = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'SYSTEMROOT'];

/**
 * A scrubbed environment for subprocesses: only {@link SAFE_ENV_KEYS} from `source`, plus `extra`.
 * Secrets such as OPENAI_API_KEY never reach a skill.
 */
export function scrubbedEnv(extra: Record<string, string> = {}, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SAFE_ENV_KEYS) {
    const v = source[key];
    if (v !== undefined) env[key] = v;
  }
  return { ...env, ...extra };
}
