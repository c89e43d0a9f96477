import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessOptionsError, scrubbedEnv, spawnJsonProcess } from '../../src/process/index.js';
import { isAlive, waitUntilGone, writeScripts, type ScriptName } from './fixtures.js';

let scripts: Awaited<ReturnType<typeof writeScripts>>;
beforeAll(async () => {
  scripts = await writeScripts();
});
afterAll(() => scripts.cleanup());

const run = (name: ScriptName, extra: Partial<Parameters<typeof spawnJsonProcess>[0]> = {}) =>
  spawnJsonProcess({ command: process.execPath, args: [scripts.path(name)], input: { hello: 'world' }, timeoutMs: 15_000, ...extra });

describe('spawnJsonProcess', () => {
  it('writes the input to stdin and parses the one JSON object on stdout', async () => {
    const result = await run('echo', { input: { thread_id: 't', nested: [1, { a: 'ü' }] } });
    expect(result.failure).toBeUndefined();
    expect(result.output).toEqual({ echo: { thread_id: 't', nested: [1, { a: 'ü' }] } });
    expect(result.exitCode).toBe(0);
    expect(result.signal).toBeNull();
    expect(result.stderr).toBe('echo: got input\n');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('kills a hung process and its grandchild on timeout, even when SIGTERM is ignored', async () => {
    const result = await run('hang', { timeoutMs: 4_000, killGraceMs: 300 });
    expect(result.failure?.code).toBe('TIMEOUT');
    expect(result.failure?.message).toContain('4000 ms');
    expect(result.signal).toBe('SIGKILL');
    const grandchild = Number(/grandchild=(\d+)/.exec(result.stderr)?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitUntilGone(grandchild)).toBe(true);
  });

  it('kills what a successful process left running in its group', async () => {
    const result = await run('leaveBehind');
    expect(result.failure).toBeUndefined();
    const { grandchild } = result.output as { grandchild: number };
    expect(await waitUntilGone(grandchild)).toBe(true);
  });

  it('reports a non-zero exit with the code and the last stderr line', async () => {
    const result = await run('crash');
    expect(result.failure).toEqual({
      code: 'NON_ZERO_EXIT',
      message: 'the process exited with code 3; last stderr line: fatal: the ledger is on fire',
    });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('starting');
  });

  it('reports garbage on stdout without dumping it', async () => {
    const result = await run('garbage');
    expect(result.failure?.code).toBe('BAD_JSON');
    expect(result.failure?.message).toMatch(
      /^stdout is not one JSON object: invalid JSON( at character \d+)?; 10030 characters starting with "hello world/,
    );
    expect(result.failure!.message.length).toBeLessThan(300);
  });

  it('refuses two JSON objects and a JSON array', async () => {
    const two = await run('twoObjects');
    expect(two.failure?.code).toBe('BAD_JSON');
    expect(two.failure?.message).toContain('more than one JSON value');
    const array = await run('array');
    expect(array.failure).toEqual({ code: 'BAD_JSON', message: 'stdout must be one JSON object, got an array' });
  });

  it('reports a process that exits 0 in silence', async () => {
    expect((await run('silent')).failure?.code).toBe('NO_OUTPUT');
  });

  it('caps a 50 MB stdout flood and kills the process', { timeout: 60_000 }, async () => {
    const result = await run('stdoutFlood', { maxStdoutBytes: 1024 * 1024, killGraceMs: 500 });
    expect(result.failure).toEqual({
      code: 'OUTPUT_TOO_LARGE',
      message: 'stdout exceeded 1048576 bytes; the process group was killed',
    });
    expect(result.output).toBeUndefined();
  });

  it('keeps only maxStderrBytes of a stderr flood and still succeeds', async () => {
    const result = await run('stderrFlood', { maxStderrBytes: 4096 });
    expect(result.output).toEqual({ ok: true });
    expect(result.stderr.startsWith('e'.repeat(4096))).toBe(true);
    expect(result.stderr).toMatch(/\n\[baton: \d+ more bytes of stderr dropped\]$/);
    expect(result.stderr.length).toBeLessThan(4096 + 100);
  });

  it('reports death by signal', async () => {
    const result = await run('signalled');
    expect(result.failure?.code).toBe('SIGNALLED');
    expect(result.failure?.message).toContain('SIGKILL');
  });

  it('kills the process group on abort', async () => {
    const controller = new AbortController();
    const pending = run('hang', { signal: controller.signal, killGraceMs: 200 });
    setTimeout(() => controller.abort(), 200);
    const result = await pending;
    expect(result.failure?.code).toBe('ABORTED');
    const grandchild = Number(/grandchild=(\d+)/.exec(result.stderr)?.[1]);
    if (grandchild > 0) expect(await waitUntilGone(grandchild)).toBe(true);
    const early = await run('echo', { signal: AbortSignal.abort() });
    expect(early.failure?.code).toBe('ABORTED');
  });

  it('reports a command that does not exist', async () => {
    const result = await spawnJsonProcess({ command: '/nonexistent/baton-agent', input: {}, timeoutMs: 5_000 });
    expect(result.failure?.code).toBe('SPAWN_FAILED');
    expect(result.failure?.message).toContain('ENOENT');
  });

  it('copes with a child that never reads a large stdin', async () => {
    const result = await run('ignoreStdin', { input: { big: 'z'.repeat(4 * 1024 * 1024) } });
    expect(result.output).toEqual({ ignored: true });
  });

  it('gives the child a scrubbed environment unless one is passed', async () => {
    process.env.BATON_TEST_SECRET = 'sk-should-not-leak';
    try {
      const scrubbed = (await run('env')).output as { env: Record<string, string> };
      expect(scrubbed.env.BATON_TEST_SECRET).toBeUndefined();
      expect(scrubbed.env.PATH).toBe(process.env.PATH);
      expect(
        Object.keys(scrubbed.env).every((k) => ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SYSTEMROOT'].includes(k)),
      ).toBe(true);
      const explicit = (await run('env', { env: scrubbedEnv({ AGENT_MODE: 'test' }) })).output as { env: Record<string, string> };
      expect(explicit.env.AGENT_MODE).toBe('test');
    } finally {
      delete process.env.BATON_TEST_SECRET;
    }
    expect(scrubbedEnv({}, { PATH: '/bin', OPENAI_API_KEY: 'sk-x', HOME: '/h' })).toEqual({ PATH: '/bin', HOME: '/h' });
  });

  it('rejects invalid options with a typed error', async () => {
    await expect(spawnJsonProcess({ command: '', input: {}, timeoutMs: 1 })).rejects.toBeInstanceOf(ProcessOptionsError);
    await expect(spawnJsonProcess({ command: 'node', input: {}, timeoutMs: 0 })).rejects.toThrow(/timeoutMs must be a positive number/);
    await expect(spawnJsonProcess({ command: 'node', input: 10n, timeoutMs: 10 })).rejects.toThrow(/not JSON-serializable/);
    expect(isAlive(process.pid)).toBe(true);
  });
});
