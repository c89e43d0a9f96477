import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GuardrailValidator, SkillPackage, ResponsePackage } from '@baton/manifest';
import { createGuardrailChecker, GuardrailCallError } from '@baton/guardrail-client';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { describe, expect, it } from 'vitest';
import { createDelegation, createSkillRegistry, VagueCriteriaError, PayloadTooLargeError, SkillsInputError } from '../src/index.js';
import type { ApprovalRequest } from '../src/index.js';
import { nodeSkill, skillsDir, SKILLS_DIST } from './helpers/skills.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

/**
 * A directory outside the workspace that the test skills may write (skill processes are confined:
 * the workspace is read-only to them), passed to them as OUT.
 */
async function observed(): Promise<{ out: string; opts: { skillWritablePaths: string[]; skillEnv: Record<string, string> } }> {
  const out = await tempDir('baton-skills-out-');
  return { out, opts: { skillWritablePaths: [out], skillEnv: { OUT: out } } };
}

const ECHO = nodeSkill(
  `return { status: 'SUCCESS', output_payload: { received: pkg, env_keys: Object.keys(process.env), cwd: process.cwd() } };`,
);

describe('delegation to subprocess skills', () => {
  it('sends an explicit SkillPackage (no parent history), a scrubbed env and cwd in the workspace', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    process.env.OPENAI_API_KEY_TEST_SENTINEL = 'sk-should-not-leak';
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, idGenerator: () => 'task-1', env: {} });
    const res = await d.delegate(
      {
        subagent_type: 'echo',
        instruction_set: 'Echo back.',
        input_data: { relevant_history: ['user asked for X'] },
        success_criteria: ['Output has field received'],
      },
      { agentId: 'io.baton.test.parent', depth: 0 },
    );
    delete process.env.OPENAI_API_KEY_TEST_SENTINEL;
    expect(res.status).toBe('SUCCESS');
    const received = res.output_payload.received as Record<string, unknown>;
    expect(received).toMatchObject({
      task_id: 'task-1',
      subagent_type: 'echo',
      instruction_set: 'Echo back.',
      payload: { relevant_history: ['user asked for X'] },
      depth: 1,
      max_depth: 3,
      lineage: ['io.baton.test.parent'],
      attempt: 1,
      constraints: { max_iterations: 5, timeout_ms: 60000, capabilities: ['fs_read'] },
    });
    // Exactly the package's keys: nothing implicit crosses.
    expect(Object.keys(received).sort()).toEqual([
      'attempt',
      'constraints',
      'depth',
      'instruction_set',
      'lineage',
      'max_depth',
      'payload',
      'requires_approval',
      'subagent_type',
      'success_criteria',
      'task_id',
    ]);
    const envKeys = res.output_payload.env_keys as string[];
    expect(envKeys).not.toContain('OPENAI_API_KEY_TEST_SENTINEL');
    expect(envKeys.filter((k) => /KEY|TOKEN|SECRET/.test(k))).toEqual([]);
    expect(envKeys).toContain('BATON_DELEGATION_DEPTH');
    expect(res.output_payload.cwd).toBe(await import('node:fs/promises').then((f) => f.realpath(ws)));
  });

  it('the parent model receives the ResponsePackage as the delegate_task output', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      { name: 'echo', source: nodeSkill(`return { status: 'SUCCESS', output_payload: { price: 175.22, currency: 'USD' } };`) },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    const out = await d.delegateTaskTool.execute({ subagent_type: 'echo', instruction_set: 'Price', input_data: {} }, { depth: 0 });
    expect(JSON.parse(out)).toEqual({ status: 'SUCCESS', output_payload: { price: 175.22, currency: 'USD' } });
    expect(d.delegateTaskTool.name).toBe('delegate_task');
    expect((d.delegateTaskTool.parameters as { required: string[] }).required).toEqual(['subagent_type', 'instruction_set', 'input_data']);
    expect(d.yieldControlTool).toMatchObject({ name: 'yield_control', terminal: true });
  });

  it('silent failure: a skill that exits without yield_control is FAILURE / ERR_TOOL_FAILURE after one self-correction', async () => {
    const ws = await tempDir();
    const { out, opts } = await observed();
    const dir = await skillsDir([
      { name: 'silent', source: `(await import('node:fs')).appendFileSync(process.env.OUT + '/attempts.log', 'x'); process.exit(0);` },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, ...opts });
    const res = await d.delegate({ subagent_type: 'silent', instruction_set: 'Do nothing', input_data: {} });
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.code).toBe('ERR_TOOL_FAILURE');
    expect(res.error_report?.message).toMatch(/without a valid yield_control.*after 2 attempts/);
    expect(await readFile(path.join(out, 'attempts.log'), 'utf8')).toBe('xx');
  });

  it('self-corrects once: the second attempt gets the error report, and max_iterations 1 allows no retry', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      {
        name: 'flaky',
        source: nodeSkill(
          `if (pkg.attempt === 1) process.exit(3); return { status: 'SUCCESS', output_payload: { fixed_after: pkg.previous_error.code, iterations_left: pkg.constraints.max_iterations } };`,
        ),
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    const ok = await d.delegate({ subagent_type: 'flaky', instruction_set: 'Try', input_data: {} });
    expect(ok).toEqual({ status: 'SUCCESS', output_payload: { fixed_after: 'ERR_TOOL_FAILURE', iterations_left: 4 } });
    const once = await d.delegate({ subagent_type: 'flaky', instruction_set: 'Try', input_data: {}, max_iterations: 1 });
    expect(once.status).toBe('FAILURE');
    expect(once.error_report?.message).toMatch(/after 1 attempt\b/);
  });

  it('a stdout that is not a ResponsePackage is FAILURE', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'bad', source: nodeSkill(`return { status: 'DONE', output_payload: 'nope' };`) }]);
    const res = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws }).delegate({
      subagent_type: 'bad',
      instruction_set: 'x',
      input_data: {},
    });
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.message).toMatch(/not a yield_control ResponsePackage/);
  });

  it('a skill that explicitly yields FAILURE or BLOCKED_AWAITING_CLARIFICATION is passed through', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      {
        name: 'blocked',
        source: nodeSkill(
          `return { status: 'BLOCKED_AWAITING_CLARIFICATION', output_payload: { question: 'which file?' }, error_report: { code: 'ERR_INSUFFICIENT_CONTEXT', message: 'file missing' } };`,
        ),
      },
    ]);
    const res = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws }).delegate({
      subagent_type: 'blocked',
      instruction_set: 'x',
      input_data: {},
    });
    expect(res.status).toBe('BLOCKED_AWAITING_CLARIFICATION');
    expect(res.error_report?.code).toBe('ERR_INSUFFICIENT_CONTEXT');
  });

  it('timeout: kills the process group (children and grandchildren) and returns ERR_TIMEOUT', async () => {
    const ws = await tempDir();
    const { out, opts } = await observed();
    const dir = await skillsDir([
      {
        name: 'hang',
        capabilities: ['fs_read', 'subprocess_exec'],
        source: `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const child = spawn(process.execPath, ['-e', "require('child_process').spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], {stdio:'ignore'}); setInterval(()=>{},1000)"], { stdio: 'ignore' });
setTimeout(() => { writeFileSync(process.env.OUT + '/started', String(child.pid)); }, 200);
setInterval(() => {}, 1000);
`,
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, timeoutMs: 5000, ...opts });
    const res = await d.delegate({ subagent_type: 'hang', instruction_set: 'hang', input_data: {} });
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.code).toBe('ERR_TIMEOUT');
    // pids seen inside a PID namespace are not host pids: check from here by working directory.
    expect(await readFile(path.join(out, 'started'), 'utf8')).toMatch(/^\d+$/);
    expect(await noProcessMentions(ws)).toBe(true);
  });

  it('cancelling the parent cancels its children: no orphan processes', async () => {
    const ws = await tempDir();
    const { out, opts } = await observed();
    const dir = await skillsDir([
      {
        name: 'tree',
        capabilities: ['fs_read', 'subprocess_exec'],
        source: `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
const kids = [0, 1].map(() => spawn(process.execPath, ['-e', "require('child_process').spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], {stdio:'ignore'}); setInterval(()=>{},1000)"], { stdio: 'ignore' }));
writeFileSync(process.env.OUT + '/pids-' + randomUUID() + '.json', JSON.stringify([process.pid, ...kids.map((k) => k.pid)]));
setInterval(() => {}, 1000);
`,
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, timeoutMs: 60_000, ...opts });
    const parent = new AbortController();
    const runs = [0, 1, 2].map(() =>
      d.delegate({ subagent_type: 'tree', instruction_set: 'spawn', input_data: {} }, { signal: parent.signal }),
    );
    await waitFor(async () =>
      (await import('node:fs/promises')).readdir(out).then((f) => f.filter((x) => x.startsWith('pids-')).length === 3),
    );
    await new Promise((r) => setTimeout(r, 300)); // let the grandchildren start
    parent.abort();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.error_report?.code)).toEqual(['ERR_CANCELLED', 'ERR_CANCELLED', 'ERR_CANCELLED']);
    expect(await noProcessMentions(ws)).toBe(true);
  });

  it('runs several delegations concurrently under maxConcurrency', async () => {
    const ws = await tempDir();
    const { out, opts } = await observed();
    const dir = await skillsDir([
      {
        name: 'slot',
        source: nodeSkill(`const fs = await import('node:fs');
fs.appendFileSync(process.env.OUT + '/events.log', 'start\\n');
// The first two wait for each other, so they overlap however slowly processes start.
while ((fs.readFileSync(process.env.OUT + '/events.log', 'utf8').match(/start/g) ?? []).length < 2) await new Promise((r) => setTimeout(r, 20));
await new Promise((r) => setTimeout(r, 400));
fs.appendFileSync(process.env.OUT + '/events.log', 'end\\n');
return { status: 'SUCCESS', output_payload: {} };`),
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, maxConcurrency: 2, ...opts });
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map(() => d.delegate({ subagent_type: 'slot', instruction_set: 'x', input_data: {} })),
    );
    expect(results.every((r) => r.status === 'SUCCESS')).toBe(true);
    let running = 0;
    let peak = 0;
    for (const e of (await readFile(path.join(out, 'events.log'), 'utf8')).trim().split('\n')) {
      running += e === 'start' ? 1 : -1;
      peak = Math.max(peak, running);
    }
    expect(peak).toBe(2);
  });
});

describe("@baton/runner's spawnJsonProcess as the spawner", () => {
  it('is accepted through the spawn seam (same contract)', async () => {
    const { spawnJsonProcess } = await import('@baton/runner');
    const ws = await tempDir();
    const dir = await skillsDir([
      { name: 'echo', source: ECHO },
      { name: 'hang', source: 'setInterval(() => {}, 1000);' },
    ]);
    // A generous timeout for the skill that finishes; a short one only for the one that never does.
    const d = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      spawn: spawnJsonProcess,
      timeoutMs: 60_000,
    });
    expect((await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: {} })).status).toBe('SUCCESS');
    const short = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      spawn: spawnJsonProcess,
      timeoutMs: 1000,
    });
    expect((await short.delegate({ subagent_type: 'hang', instruction_set: 'x', input_data: {} })).error_report?.code).toBe('ERR_TIMEOUT');
  });
});

describe('limits: depth and loops across processes', () => {
  const NESTER = nodeSkill(`const { createDelegation } = await import(${JSON.stringify(SKILLS_DIST)});
const [next, ...rest] = pkg.payload.chain;
if (!next) return { status: 'SUCCESS', output_payload: { depth: pkg.depth, lineage: pkg.lineage } };
const d = createDelegation({ guardrails: { validate: async (r) => ({ action_id: r.action_id, decision: 'ALLOW', reason_code: 'TEST_ALLOW', reason_message: 'test guardrail' }) }, skillsDir: process.env.SKILLS_DIR, workspace: process.cwd(), skillEnv: { SKILLS_DIR: process.env.SKILLS_DIR } });
const child = await d.delegate({ subagent_type: next, instruction_set: 'go deeper', input_data: { chain: rest } });
return { status: child.status === 'SUCCESS' ? 'SUCCESS' : 'FAILURE', output_payload: { depth: pkg.depth, child }, error_report: child.error_report ?? null };`);

  it('carries depth and lineage into nested subprocess delegations and refuses past max depth', async () => {
    const ws = await tempDir();
    const dir = await skillsDir(
      ['n1', 'n2', 'n3', 'n4'].map((name) => ({ name, source: NESTER, capabilities: ['fs_read', 'subprocess_exec'] })),
    );
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, skillEnv: { SKILLS_DIR: dir } });
    const ok = await d.delegate(
      { subagent_type: 'n1', instruction_set: 'start', input_data: { chain: ['n2', 'n3'] } },
      { agentId: 'io.baton.root' },
    );
    expect(ok.status).toBe('SUCCESS');
    const leaf = (ok.output_payload.child as { output_payload: { child: { output_payload: unknown } } }).output_payload.child
      .output_payload;
    expect(leaf).toEqual({ depth: 3, lineage: ['io.baton.root', 'n1', 'n2'] });

    const tooDeep = await d.delegate({ subagent_type: 'n1', instruction_set: 'start', input_data: { chain: ['n2', 'n3', 'n4'] } });
    expect(tooDeep.status).toBe('FAILURE');
    expect(JSON.stringify(tooDeep)).toMatch(/delegation depth 4 would exceed the maximum of 3/);
  });

  it('detects a parent → child → parent loop', async () => {
    const ws = await tempDir();
    const dir = await skillsDir(['n1', 'n2'].map((name) => ({ name, source: NESTER, capabilities: ['fs_read', 'subprocess_exec'] })));
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, skillEnv: { SKILLS_DIR: dir } });
    const res = await d.delegate({ subagent_type: 'n1', instruction_set: 'start', input_data: { chain: ['n2', 'n1'] } });
    expect(res.status).toBe('FAILURE');
    expect(JSON.stringify(res)).toMatch(/delegation loop refused: n1 → n2 → n1/);
  });

  it('inherits the limit from the environment channel and refuses at the top', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const d = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      env: { BATON_DELEGATION_DEPTH: '3', BATON_DELEGATION_MAX_DEPTH: '3', BATON_DELEGATION_LINEAGE: '["a","b","c"]' },
    });
    const res = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: {} });
    expect(res.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
    const tampered = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      env: { BATON_DELEGATION_DEPTH: 'zero' },
    });
    expect((await tampered.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: {} })).error_report?.code).toBe(
      'ERR_CONSTRAINT_VIOLATION',
    );
  });
});

describe('criteria, triggers and payloads', () => {
  const WRITER = nodeSkill(`return { status: 'SUCCESS', output_payload: { text: pkg.payload.text } };`);

  it('refuses vague criteria at delegation time, naming the criterion, before the skill runs', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      {
        name: 'writer',
        source: nodeSkill(`(await import('node:fs')).writeFileSync('ran', '1'); return { status: 'SUCCESS', output_payload: {} };`),
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    await expect(
      d.delegate({ subagent_type: 'writer', instruction_set: 'x', input_data: {}, success_criteria: ['Do a good job'] }),
    ).rejects.toThrow(VagueCriteriaError);
    const tool = JSON.parse(
      await d.delegateTaskTool.execute(
        { subagent_type: 'writer', instruction_set: 'x', input_data: {}, success_criteria: ['Do a good job'] },
        {},
      ),
    );
    expect(tool.status).toBe('FAILURE');
    expect(tool.error_report.code).toBe('ERR_VAGUE_CRITERIA');
    expect(tool.error_report.message).toContain('"Do a good job"');
    await expect(readFile(path.join(ws, 'ran'))).rejects.toThrow();
  });

  it('verifies criteria: unmet → one retry, then PARTIAL_COMPLETION when some pass, FAILURE when none do', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'writer', source: WRITER }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    const met = await d.delegate({
      subagent_type: 'writer',
      instruction_set: 'x',
      input_data: { text: 'a b c d e f' },
      success_criteria: ['Word count > 5'],
    });
    expect(met.status).toBe('SUCCESS');
    const partial = await d.delegate({
      subagent_type: 'writer',
      instruction_set: 'x',
      input_data: { text: 'a b' },
      success_criteria: ['Word count > 5', { type: 'regex', pattern: '^a' }],
    });
    expect(partial.status).toBe('PARTIAL_COMPLETION');
    expect(partial.error_report?.code).toBe('ERR_CRITERIA_NOT_MET');
    const none = await d.delegate({
      subagent_type: 'writer',
      instruction_set: 'x',
      input_data: { text: 'a b' },
      success_criteria: ['Word count > 5'],
    });
    expect(none.status).toBe('FAILURE');
    expect(none.error_report?.message).toMatch(/has 2 words; needs >= 6/);
  });

  it("checks a skill's output against its manifest output_schema", async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'writer', source: WRITER, outputSchema: { text: 'string', sloc: 'number' } }]);
    const res = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws }).delegate({
      subagent_type: 'writer',
      instruction_set: 'x',
      input_data: { text: 'hi' },
    });
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.message).toMatch(/sloc/);
  });

  it('honours termination_trigger: output must meet it', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'writer', source: WRITER }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    expect(
      (
        await d.delegate({
          subagent_type: 'writer',
          instruction_set: 'x',
          input_data: { text: 'ALL DONE' },
          termination_trigger: 'ALL DONE',
        })
      ).status,
    ).toBe('SUCCESS');
    const notMet = await d.delegate({
      subagent_type: 'writer',
      instruction_set: 'x',
      input_data: { text: 'working' },
      termination_trigger: 'ALL DONE',
    });
    expect(notMet.status).toBe('FAILURE');
    expect(notMet.error_report?.message).toMatch(/termination_trigger "ALL DONE" does not appear/);
  });

  it('refuses binary data and bloat with PAYLOAD_TOO_LARGE pointing to file references', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    const cases = [
      { blob: Buffer.alloc(20_000, 7).toString('base64') },
      { bin: 'PNG\u0000\u0001\u0002' },
      { logs: Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n') },
      { a: 'x'.repeat(30_000), b: 'y'.repeat(30_000), c: 'z'.repeat(30_000) },
    ];
    for (const input_data of cases) {
      const err = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PayloadTooLargeError);
      expect((err as PayloadTooLargeError).message).toMatch(/file reference|URI/);
    }
  });

  it('resolves {"$ref": "file:…"} inside the workspace and refuses escapes', async () => {
    const ws = await tempDir();
    await writeFile(path.join(ws, 'big.log'), 'lots of logs\n');
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    const res = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { log: { $ref: 'file:big.log' } } });
    const log = (res.output_payload.received as { payload: { log: Record<string, unknown> } }).payload.log;
    expect(log).toMatchObject({ $ref: 'file:big.log', path: 'big.log', size_bytes: 13 });
    expect(await readFile(log.absolute_path as string, 'utf8')).toBe('lots of logs\n');
    const escape = await d
      .delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { log: { $ref: 'file:../../etc/passwd' } } })
      .catch((e: unknown) => e);
    expect(escape).toBeInstanceOf(SkillsInputError);
    expect((escape as SkillsInputError).code).toBe('FILE_REF_ESCAPE');
  });

  it('checks edits returned by a skill and applies them when asked', async () => {
    const ws = await tempDir();
    await writeFile(path.join(ws, 'a.js'), 'const x = 1;\n');
    const dir = await skillsDir([
      {
        name: 'editor',
        source: nodeSkill(
          `return { status: 'SUCCESS', output_payload: { edits: 'FILE: a.js\\nREPLACE_START\\nconst x = 1;\\nREPLACE_WITH\\nconst x = 2;\\nREPLACE_END\\n' } };`,
        ),
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, applyEdits: true });
    const res = await d.delegate({
      subagent_type: 'editor',
      instruction_set: 'bump x',
      input_data: {},
      success_criteria: [{ type: 'files_changed', paths: ['a.js'] }],
    });
    expect(res.status).toBe('SUCCESS');
    expect(await readFile(path.join(ws, 'a.js'), 'utf8')).toBe('const x = 2;\n');
    // Now the block no longer matches: the dry run fails, the retry fails, nothing is written.
    const again = await d.delegate({ subagent_type: 'editor', instruction_set: 'bump x', input_data: {} });
    expect(again.status).toBe('FAILURE');
    expect(again.error_report?.message).toMatch(/cannot be applied.*0 times/);
  });
});

describe('edits and command criteria', () => {
  it('applies edits before command criteria run and undoes them when a criterion fails', async () => {
    const ws = await tempDir();
    await writeFile(path.join(ws, 'v.txt'), 'version 1\n');
    const dir = await skillsDir([
      {
        name: 'bumper',
        source: nodeSkill(
          `return { status: 'SUCCESS', output_payload: { edits: 'FILE: v.txt\\nREPLACE_START\\nversion 1\\nREPLACE_WITH\\nversion ' + pkg.payload.to + '\\nREPLACE_END\\n' } };`,
        ),
      },
    ]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, applyEdits: true });
    const check = (want: string) => ({
      type: 'command',
      command: ['node', '-e', `process.exit(require('fs').readFileSync('v.txt','utf8') === 'version ${want}\\n' ? 0 : 1)`],
    });
    const bad = await d.delegate({
      subagent_type: 'bumper',
      instruction_set: 'bump',
      input_data: { to: 3 },
      success_criteria: [check('2')],
    });
    expect(bad.status).toBe('FAILURE');
    expect(await readFile(path.join(ws, 'v.txt'), 'utf8')).toBe('version 1\n');
    const good = await d.delegate({
      subagent_type: 'bumper',
      instruction_set: 'bump',
      input_data: { to: 2 },
      success_criteria: [check('2')],
    });
    expect(good.status).toBe('SUCCESS');
    expect(await readFile(path.join(ws, 'v.txt'), 'utf8')).toBe('version 2\n');
  });
});

describe('approvals', () => {
  it('file_delete needs requires_approval and a yes; the default policy denies', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      {
        name: 'cleaner',
        source: nodeSkill(`return { status: 'SUCCESS', output_payload: { cleaned: true } };`),
        capabilities: ['fs_read', 'file_delete'],
      },
    ]);
    const unflagged = await createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      approvals: async () => true,
    }).delegate({ subagent_type: 'cleaner', instruction_set: 'clean', input_data: {} });
    expect(unflagged.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
    expect(unflagged.error_report?.message).toMatch(/requires_approval: true/);

    const byDefault = await createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws }).delegate({
      subagent_type: 'cleaner',
      instruction_set: 'clean',
      input_data: {},
      requires_approval: true,
    });
    expect(byDefault.status).toBe('FAILURE');
    expect(byDefault.error_report?.message).toMatch(/approval denied/);

    const asked: ApprovalRequest[] = [];
    const yes = await createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      idGenerator: () => 't-9',
      approvals: async (r) => {
        asked.push(r);
        return true;
      },
    }).delegate({ subagent_type: 'cleaner', instruction_set: 'clean the tmp dir', input_data: {}, requires_approval: true });
    expect(yes.status).toBe('SUCCESS');
    expect(asked).toEqual([{ skill: 'cleaner', capabilities: ['file_delete'], task_id: 't-9', summary: 'clean the tmp dir' }]);

    const throwing = await createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      approvals: async () => {
        throw new Error('tty gone');
      },
    }).delegate({ subagent_type: 'cleaner', instruction_set: 'x', input_data: {}, requires_approval: true });
    expect(throwing.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
  });

  it('resumableApprovals: delegate_task asks the runner to pause, and a call a human approved needs no hook', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      {
        name: 'cleaner',
        source: nodeSkill(`return { status: 'SUCCESS', output_payload: { cleaned: true } };`),
        capabilities: ['fs_read', 'file_delete'],
      },
    ]);
    let asked = 0;
    const hook = async () => (asked++, false);
    const args = { subagent_type: 'cleaner', instruction_set: 'clean', input_data: {}, requires_approval: true };
    const resumable = createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      approvals: hook,
      resumableApprovals: true,
    });
    expect(resumable.delegateTaskTool.needsApproval?.(args)).toBe(true);
    expect(resumable.delegateTaskTool.needsApproval?.({ ...args, requires_approval: false })).toBe(false);
    const approved = JSON.parse(
      await resumable.delegateTaskTool.execute(args, { approval: { id: 'appr_1', approved: true } }),
    ) as ResponsePackage;
    expect(approved.status).toBe('SUCCESS');
    expect(asked).toBe(0);
    // Not approved through the run: the hook decides (here: no).
    const unapproved = JSON.parse(await resumable.delegateTaskTool.execute(args, {})) as ResponsePackage;
    expect(unapproved.error_report?.message).toMatch(/approval denied/);
    expect(asked).toBe(1);
    // Without the option, the tool neither pauses the run nor trusts ctx.approval.
    const synchronous = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, approvals: hook });
    expect(synchronous.delegateTaskTool.needsApproval).toBeUndefined();
    const ignored = JSON.parse(
      await synchronous.delegateTaskTool.execute(args, { approval: { id: 'appr_1', approved: true } }),
    ) as ResponsePackage;
    expect(ignored.error_report?.message).toMatch(/approval denied/);
    expect(asked).toBe(2);
  });

  it('read-only work needs no approval', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      { name: 'reader', source: nodeSkill(`return { status: 'SUCCESS', output_payload: {} };`), capabilities: ['fs_read', 'ast_parsing'] },
    ]);
    let asked = 0;
    const res = await createDelegation({
      guardrails: allowAllGuardrail,
      skillsDir: dir,
      workspace: ws,
      approvals: async () => {
        asked++;
        return false;
      },
    }).delegate({ subagent_type: 'reader', instruction_set: 'x', input_data: {} });
    expect(res.status).toBe('SUCCESS');
    expect(asked).toBe(0);
  });
});

describe('guardrails at the delegation boundary', () => {
  it('checks AGENT_INPUT on the subagent input and AGENT_RESPONSE on its yield; MODIFY redacts, BLOCK refuses', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([
      {
        name: 'echo',
        source: nodeSkill(`return { status: 'SUCCESS', output_payload: { got: pkg.payload.note, secret: 'sk-live-123' } };`),
      },
    ]);
    const g = scriptedGuardrail((r) => {
      if (r.action_type === 'AGENT_INPUT' && typeof r.payload === 'string' && r.payload.includes('555-12-3456')) {
        return { decision: 'MODIFY', reason_code: 'PII', modified_payload: r.payload.replace('555-12-3456', '[SSN]') };
      }
      if (r.action_type === 'AGENT_RESPONSE' && typeof r.payload === 'string' && r.payload.includes('sk-live')) {
        return { decision: 'BLOCK', reason_code: 'SECRET', reason_message: 'secret in response' };
      }
      return {};
    });
    const d = createDelegation({ skillsDir: dir, workspace: ws, guardrails: g.validator });
    const res = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { note: 'ssn 555-12-3456' } });
    expect(g.requests.map((r) => r.action_type)).toEqual(['AGENT_INPUT', 'AGENT_RESPONSE']);
    expect(g.requests[0]!.source_agent_id).toBe('io.baton.skill.echo');
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.message).toMatch(/response was blocked.*SECRET/);
    expect(JSON.stringify(res)).not.toContain('sk-live');
  });

  it('fails closed when the guardrail throws', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const broken = scriptedGuardrail(() => 'throw').validator;
    const res = await createDelegation({ skillsDir: dir, workspace: ws, guardrails: broken }).delegate({
      subagent_type: 'echo',
      instruction_set: 'x',
      input_data: {},
    });
    expect(res.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
    expect(res.error_report?.message).toMatch(/fail closed/);
  });

  it('is refused without a guardrail, like the runner', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    for (const guardrails of [undefined, {} as GuardrailValidator]) {
      let err: unknown;
      try {
        createDelegation({ skillsDir: dir, workspace: ws, guardrails: guardrails as GuardrailValidator });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ name: 'SkillsConfigError', code: 'GUARDRAILS_REQUIRED' });
    }
  });

  it("checks through an injected checker (the runner's): its fail policy and reason codes apply", async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const down: GuardrailValidator = {
      validate: async () => Promise.reject(new GuardrailCallError('GUARDRAIL_UNAVAILABLE', 'service down')),
    };
    const open = createGuardrailChecker({ validator: down, failOpen: ['AGENT_INPUT', 'AGENT_RESPONSE'] });
    expect(
      (
        await createDelegation({ skillsDir: dir, workspace: ws, guardrails: open }).delegate({
          subagent_type: 'echo',
          instruction_set: 'x',
          input_data: {},
        })
      ).status,
    ).toBe('SUCCESS');
    const closed = createGuardrailChecker({ validator: down });
    const res = await createDelegation({ skillsDir: dir, workspace: ws, guardrails: closed }).delegate({
      subagent_type: 'echo',
      instruction_set: 'x',
      input_data: {},
    });
    expect(res.error_report?.message).toMatch(/fail closed.*GUARDRAIL_UNAVAILABLE/);
  });

  it('routes the SkillPackage through a packet gate, which may refuse', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const seen: string[] = [];
    const gate = {
      async prepare(req: { skillPackage: SkillPackage; recipient: string }) {
        seen.push(req.recipient);
        if (req.skillPackage.payload.forbidden) throw new Error('field forbidden is not allowed for this purpose');
        return { skillPackage: { ...req.skillPackage, payload: { ...req.skillPackage.payload, gated: true } } };
      },
    };
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws, packetGate: gate });
    const ok = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { a: 1 } });
    expect((ok.output_payload.received as { payload: unknown }).payload).toEqual({ a: 1, gated: true });
    const refused = await d.delegate({ subagent_type: 'echo', instruction_set: 'x', input_data: { forbidden: 1 } });
    expect(refused.error_report?.message).toMatch(/packet gate refused/);
    expect(seen).toEqual(['echo', 'echo']);
  });
});

describe('bad requests and configuration', () => {
  it('names unknown subagents and invalid arguments', async () => {
    const ws = await tempDir();
    const dir = await skillsDir([{ name: 'echo', source: ECHO }]);
    const d = createDelegation({ guardrails: allowAllGuardrail, skillsDir: dir, workspace: ws });
    await expect(d.delegate({ subagent_type: 'nope', instruction_set: 'x', input_data: {} })).rejects.toThrow(
      /unknown subagent_type "nope"; known: echo/,
    );
    await expect(d.delegate({ subagent_type: 'echo', input_data: {} })).rejects.toThrow(/instruction_set/);
    expect(() => createDelegation({ guardrails: allowAllGuardrail, workspace: ws, maxDepth: 0 })).toThrow(
      /maxDepth must be a positive integer/,
    );
    const bad = await skillsDir([{ name: 'ts', source: 'export {}', file: 'skill.ts' }]);
    const tool = JSON.parse(
      await createDelegation({ guardrails: allowAllGuardrail, skillsDir: bad, workspace: ws }).delegateTaskTool.execute(
        { subagent_type: 'ts', instruction_set: 'x', input_data: {} },
        {},
      ),
    );
    expect(tool.error_report.code).toBe('ERR_CONFIGURATION');
    expect(tool.error_report.message).toMatch(/Node 20 cannot run TypeScript/);
    await expect(createSkillRegistry(path.join(ws, 'missing')).list()).rejects.toThrow(/cannot be read/);
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** No live process has the workspace as its cwd (the tests' skills all run there). */
async function noProcessMentions(ws: string): Promise<boolean> {
  const { readdir, readlink, realpath } = await import('node:fs/promises');
  const real = await realpath(ws);
  const check = async (): Promise<boolean> => {
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if ((await readlink(`/proc/${pid}/cwd`)) === real) return false;
      } catch {
        // Gone or not ours.
      }
    }
    return true;
  };
  await waitFor(check);
  return check();
}
