import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, EXAMPLES, offlineEnv, runCli } from './run-helpers.js';

// An agent whose baton.yml `system_tools` include delegate_task (the scale-out example's
// coordinator), run in one process by `baton run` and `baton serve` with --skills.
const dir = mkdtempSync(join(tmpdir(), 'baton-cli-delegate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COORDINATOR = 'io.baton.scaleout.coordinator';
const SKILLS = join(EXAMPLES, 'scale-out', 'skills');

/** The scale-out agents and scenario without a sibling skills/ directory (nothing to discover). */
function agentsWithoutSkills(name: string): string {
  const root = join(dir, name);
  cpSync(join(EXAMPLES, 'scale-out', 'agents'), join(root, 'agents'), { recursive: true });
  cpSync(join(EXAMPLES, 'scale-out', 'scenarios'), join(root, 'scenarios'), { recursive: true });
  mkdirSync(join(root, 'workspace'));
  return root;
}

describe('baton run with a delegating agent', () => {
  it('without --skills: exit 2, and the error names the flag', async () => {
    const root = agentsWithoutSkills('no-skills');
    const r = await runCli([
      'run',
      '--agents',
      join(root, 'agents'),
      '--agent',
      COORDINATOR,
      '--input',
      'record T-7',
      '--store',
      join(root, 'b.db'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`agent ${COORDINATOR} delegates (delegate_task in baton.yml system_tools): pass --skills <dir>`);
    expect(r.stdout).toBe('');
  });

  it('with --skills: the skill runs as a subprocess, its edit is applied, and the run hands off', async () => {
    const root = agentsWithoutSkills('with-skills');
    const workspace = join(root, 'workspace');
    const r = await runCli([
      'run',
      '--agents',
      join(root, 'agents'),
      '--skills',
      SKILLS,
      '--workspace',
      workspace,
      '--apply-edits',
      '--agent',
      COORDINATOR,
      '--input',
      'record T-7',
      '--store',
      join(root, 'b.db'),
    ]);
    expect(r.stderr).not.toMatch(/baton run: (?!using the offline model)/);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as {
      status: string;
      runs: Array<{ agent_id: string; status: string }>;
      state: Record<string, unknown>;
    };
    expect(result.status).toBe('completed');
    expect(result.runs.map((run) => `${run.agent_id}:${run.status}`)).toEqual([
      `${COORDINATOR}:cancelled`,
      'io.baton.scaleout.closer:completed',
    ]);
    expect(result.state).toEqual({ ticket: 'T-7', recorded: 'SUCCESS' });
    expect(readFileSync(join(workspace, 'ledger', 'T-7.txt'), 'utf8')).toContain('recorded T-7');
  });

  it('refuses a --skills that is not a directory', async () => {
    const root = agentsWithoutSkills('bad-skills');
    const r = await runCli([
      'run',
      '--agents',
      join(root, 'agents'),
      '--skills',
      join(root, 'nope'),
      '--agent',
      COORDINATOR,
      '--input',
      'x',
      '--store',
      join(root, 'b.db'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--skills ${join(root, 'nope')}: not a directory`);
  });
});

describe('baton serve with a delegating agent', () => {
  it('without --skills: exit 2 naming the flag; with it, POST /v1/runs delegates and hands off', async () => {
    const root = agentsWithoutSkills('serve');
    const refused = await runCli(['serve', '--port', '0', '--agents', join(root, 'agents'), '--store', join(root, 'a.db')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --skills <dir>');

    const workspace = join(root, 'workspace');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--agents',
        join(root, 'agents'),
        '--skills',
        SKILLS,
        '--workspace',
        workspace,
        '--apply-edits',
        '--store',
        join(root, 's.db'),
      ],
      {
        env: offlineEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          const m = /listening on (http:\/\/\S+)/.exec(stdout);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
      });
      const res = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: COORDINATOR, input: 'record T-9' }),
      });
      expect(res.status).toBe(200);
      const result = (await res.json()) as { status: string; agent_id: string; state: Record<string, unknown> };
      expect(result).toMatchObject({
        status: 'completed',
        agent_id: 'io.baton.scaleout.closer',
        state: { ticket: 'T-9', recorded: 'SUCCESS' },
      });
      expect(readFileSync(join(workspace, 'ledger', 'T-9.txt'), 'utf8')).toContain('recorded T-9');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 180_000);
});
