import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runGuardrailServe } from '../src/commands/guardrail.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Runs the built CLI; env never carries a token unless the test sets one. */
function baton(args: string[], env: Record<string, string> = {}) {
  const { BATON_GUARDRAIL_TOKEN: _drop, ...rest } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...rest, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstLine = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    void exited.then(() => reject(new Error(`exited before printing a line; stderr: ${stderr}`)));
  });
  // Cases that expect an early exit never await the line; don't let that surface as unhandled.
  firstLine.catch(() => undefined);
  return { child, exited, firstLine, stderr: () => stderr };
}

function request(actionType: string, payload: unknown) {
  return {
    action_id: randomUUID(),
    action_type: actionType,
    source_agent_id: 'io.baton.tests.cli',
    thread_id: 'thread_cli',
    trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
    payload,
  };
}

// Each case spawns node; on a loaded 2-core machine that can take seconds, hence the timeouts.
describe('baton guardrail serve (built CLI in a subprocess)', { timeout: 90_000 }, () => {
  it('prints its URL, answers /v1/validate and /healthz, and exits 0 on SIGTERM', async () => {
    const run = baton(['guardrail', 'serve', '--port', '0']);
    const url = await run.firstLine;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });

    const clean = request('AGENT_INPUT', 'What is the status of ticket 54321?');
    const res = await fetch(`${url}/v1/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      body: JSON.stringify(clean),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ action_id: clean.action_id, decision: 'ALLOW' });

    const pii = request('TOOL_CALL', {
      id: 'call_1',
      type: 'function',
      function: { name: 'send_email', arguments: JSON.stringify({ to: 'ops@example.com', body: 'Your SSN is 123-45-6789' }) },
    });
    const modified = (await (
      await fetch(`${url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pii) })
    ).json()) as Record<string, any>;
    expect(modified['decision']).toBe('MODIFY');
    expect(JSON.stringify(modified)).not.toContain('123-45-6789');

    const bad = await fetch(`${url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(bad.status).toBe(415);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    // The request log went to stderr as JSON lines with the trace ids, and no payload text.
    expect(run.stderr()).toContain('"trace_id":"0af7651916cd43dd8448eb211c80319c"');
    expect(run.stderr()).not.toContain('123-45-6789');
    expect(run.stderr()).not.toContain('ticket 54321');
  });

  it('requires the token from BATON_GUARDRAIL_TOKEN', async () => {
    const run = baton(['guardrail', 'serve', '--port', '0', '--log-level', 'silent'], { BATON_GUARDRAIL_TOKEN: 'env-token-0123456789' });
    const url = await run.firstLine;
    const body = JSON.stringify(request('AGENT_INPUT', 'hello'));
    expect((await fetch(`${url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(401);
    const ok = await fetch(`${url}/v1/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer env-token-0123456789' },
      body,
    });
    expect(ok.status).toBe(200);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('exits 2 with one clear line for usage errors', async () => {
    for (const args of [
      ['--port', 'eighty'],
      ['--host', '0.0.0.0'],
    ]) {
      const run = baton(['guardrail', 'serve', ...args]);
      expect(await run.exited, args.join(' ')).toBe(2);
      expect(run.stderr()).toMatch(/^baton guardrail serve: /);
      expect(run.stderr()).not.toMatch(/\n\s+at /);
    }
  });

  it('exits 1 with a clear message for a missing or invalid policy file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-cli-guardrail-'));
    try {
      const badPolicy = join(dir, 'policy.yml');
      await writeFile(badPolicy, 'decisions: [this is: not: valid\n');
      for (const file of [join(dir, 'missing.yml'), badPolicy]) {
        const run = baton(['guardrail', 'serve', '--port', '0', '--policy', file]);
        expect(await run.exited).toBe(1);
        expect(run.stderr()).toContain(`cannot load policy ${file}`);
        expect(run.stderr()).not.toMatch(/\n\s+at /);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('runGuardrailServe', { timeout: 60_000 }, () => {
  it('returns 2 for usage errors before loading anything', async () => {
    const lines: string[] = [];
    const stderr = (t: string) => void lines.push(t);
    expect(await runGuardrailServe({ port: '-1', stderr })).toBe(2);
    expect(await runGuardrailServe({ port: '70000', stderr })).toBe(2);
    expect(await runGuardrailServe({ port: '8787', logLevel: 'loud', stderr })).toBe(2);
    expect(await runGuardrailServe({ port: '8787', token: 'has space', stderr })).toBe(2);
    expect(await runGuardrailServe({ host: '10.0.0.1', port: '0', env: {}, stderr })).toBe(2);
    expect(lines.join('')).toMatch(/--port must be an integer from 0 to 65535/);
    expect(lines.join('')).toMatch(/must be non-empty and contain no whitespace/);
    expect(lines.join('')).toMatch(/--log-level must be one of debug, info, warn, error, silent; got "loud"/);
    expect(lines.join('')).toMatch(/not a loopback address/);
  });

  it('serves until the stop signal resolves, then returns 0', async () => {
    let stop!: () => void;
    const stopSignal = new Promise<void>((r) => (stop = r));
    const out: string[] = [];
    const err: string[] = [];
    const done = runGuardrailServe({
      port: '0',
      logLevel: 'silent',
      env: {},
      stopSignal,
      stdout: (t) => void out.push(t),
      stderr: (t) => void err.push(t),
    });
    // The service prints its URL once every pool worker answered its warm-up, which takes a while
    // on a busy machine; a start-up that fails ends `done` instead, and the test says so.
    let ended: number | undefined;
    void done.then((code) => (ended = code));
    while (out.length === 0 && ended === undefined) await new Promise((r) => setTimeout(r, 10));
    // Seen once in CI under load (exit 1 before the URL); its stderr now says why.
    expect(ended, `runGuardrailServe returned before printing its URL: ${err.join('')}`).toBeUndefined();
    const url = out[0]!.trim();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    stop();
    expect(await done).toBe(0);
  }, 180_000);
});
