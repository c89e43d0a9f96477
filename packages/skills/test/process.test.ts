import { describe, expect, it } from 'vitest';
import { createDelegation, runProcess, scrubbedEnv, spawnJson } from '../src/index.js';
import { nodeSkill, skillsDir } from './helpers/skills.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

describe('subprocess plumbing', () => {
  it('spawnJson reports each way a process can misbehave', async () => {
    const node = (code: string) => ({
      command: process.execPath,
      args: ['-e', code],
      input: { a: 1 },
      timeoutMs: 20_000,
      env: scrubbedEnv(),
    });
    expect((await spawnJson(node('process.stdin.pipe(process.stdout)'))).output).toEqual({ a: 1 });
    expect((await spawnJson(node('process.exit(4)'))).failure?.code).toBe('NON_ZERO_EXIT');
    expect((await spawnJson(node(''))).failure?.code).toBe('NO_OUTPUT');
    expect((await spawnJson(node("process.stdout.write('[1]')"))).failure?.code).toBe('BAD_JSON');
    expect((await spawnJson(node("process.stdout.write('{oops')"))).failure?.code).toBe('BAD_JSON');
    expect(
      (await spawnJson({ ...node("process.stdout.write('x'.repeat(100000)); setInterval(() => {}, 1000)"), maxStdoutBytes: 1000 })).failure
        ?.code,
    ).toBe('OUTPUT_TOO_LARGE');
    expect((await spawnJson({ command: '/nonexistent/baton-binary', input: {}, timeoutMs: 1000 })).failure?.code).toBe('SPAWN_FAILED');
  });

  it('runProcess keeps stderr as capped logs and never passes secrets through scrubbedEnv', async () => {
    const r = await runProcess({
      command: process.execPath,
      args: ['-e', "process.stderr.write('e'.repeat(5000)); console.log(JSON.stringify(Object.keys(process.env)))"],
      timeoutMs: 20_000,
      maxStderrBytes: 100,
      env: scrubbedEnv({}, { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-x', AWS_SECRET_ACCESS_KEY: 'y' }),
    });
    expect(r.stderr).toHaveLength(100);
    expect(JSON.parse(r.stdout)).toEqual(['PATH']);
  });

  it('shutdown() cancels running delegations', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'hang', source: nodeSkill('setInterval(() => {}, 1 << 30); await new Promise(() => {});') }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, timeoutMs: 60_000 });
    // A bare never-settling await would make Node exit 13 ("unsettled top-level await"): keep a
    // timer alive so the skill really hangs until shutdown() kills its process group.
    const pending = d.delegate({ subagent_type: 'hang', instruction_set: 'x', input_data: {} });
    await new Promise((r) => setTimeout(r, 500));
    await d.shutdown();
    expect((await pending).error_report?.code).toBe('ERR_CANCELLED');
  });
});
