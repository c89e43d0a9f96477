/** Variables a subprocess inherits (the same list as @baton/runner's); API keys and tokens are dropped. */
export const SAFE_ENV_KEYS: readonly string[] = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SYSTEMROOT'];

/** A scrubbed environment: only {@link SAFE_ENV_KEYS} from `source`, plus `extra`. */
export function scrubbedEnv(extra: Record<string, string> = {}, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SAFE_ENV_KEYS) {
    const v = source[key];
    if (v !== undefined) env[key] = v;
  }
  return { ...env, ...extra };
}
