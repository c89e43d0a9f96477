import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** Imports a built entry point in a fresh node and reports whether Fastify got loaded. */
function loadsFastify(entry: string): boolean {
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(pathToFileURL(join(dist, entry)).href)});
    const cache = createRequire(import.meta.url).cache;
    process.stdout.write(String(Object.keys(cache).some((k) => k.includes('/node_modules/fastify/'))));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim() === 'true';
}

describe('entry points', { timeout: 120_000 }, () => {
  it('the engine entry does not load Fastify; the /http entry does', () => {
    expect(loadsFastify('index.js')).toBe(false);
    expect(loadsFastify('http/index.js')).toBe(true);
  });
});
