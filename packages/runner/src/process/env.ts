/** Variables a child inherits by default: enough to find programs and speak the locale. */
export const DEFAULT_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SYSTEMROOT'] as const;

/**
 * A scrubbed environment for a subprocess agent: only {@link DEFAULT_ENV_KEYS} from `parent`
 * plus `extra`. Secrets in the runner's environment (OPENAI_API_KEY, cloud credentials…) never
 * reach an agent process unless passed explicitly through `extra`.
 */
export function scrubbedEnv(extra: Record<string, string> = {}, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of DEFAULT_ENV_KEYS) {
    const value = parent[key];
    if (typeof value === 'string') env[key] = value;
  }
  return { ...env, ...extra };
}
