import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { access, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFINEMENT_MECHANISMS, createDelegation, detectConfinement, SkillsConfigError } from '../src/index.js';
import type { ConfinementInfo, ConfinementMechanism, CreateDelegationOptions } from '../src/index.js';
import { nodeSkill, skillsDir } from './helpers/skills.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

/** Configured per-attempt timeout of the process-tree tests: long enough for a busy machine to start the tree. */
const TREE_TIMEOUT_MS = 5000;
/** How often a surviving grandchild looks for the "go" file; the bounded extra wait is 40 of these. */
const LATE_POLL_MS = 50;

// A local server stands in for "the internet": a skill without network_outbound must not reach it.
let hits = 0;
const server = createServer((_req, res) => {
  hits++;
  res.end('reached');
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const FETCH = nodeSkill(`try {
  const r = await fetch(pkg.payload.url);
  return { status: 'SUCCESS', output_payload: { reached: (await r.text()) === 'reached' } };
} catch (err) {
  return { status: 'SUCCESS', output_payload: { reached: false, error: String(err.cause?.code ?? err.message) } };
}`);

const NODE_WRITES = nodeSkill(`const fs = await import('node:fs');
const path = await import('node:path');
const attempt = (what, fn) => { try { fn(); return 'ok'; } catch (err) { return err.code ?? String(err); } };
return { status: 'SUCCESS', output_payload: {
  scratch: attempt('scratch', () => fs.writeFileSync(path.join(process.env.BATON_SCRATCH, 'note'), 'x')),
  tmpdir: process.env.TMPDIR === process.env.BATON_SCRATCH,
  scratch_dir: process.env.BATON_SCRATCH,
  workspace_write: attempt('ws', () => fs.writeFileSync('new.txt', 'x')),
  workspace_change: attempt('ws', () => fs.appendFileSync('keep.txt', 'changed')),
  workspace_delete: attempt('del', () => fs.unlinkSync('keep.txt')),
  outside_write: attempt('out', () => fs.writeFileSync(pkg.payload.outside + '/planted', 'x')),
  confinement: process.env.BATON_CONFINEMENT,
} };`);

// The same from a shell skill: no Node permission model to lean on.
const SH_WRITES = `#!/bin/bash
read -r _pkg
try() { if eval "$1" 2>/dev/null; then echo -n ok; else echo -n denied; fi; }
ws=$(try 'echo x > new.txt'); del=$(try 'rm keep.txt'); out=$(try 'echo x > "$OUTSIDE/planted-sh"'); scr=$(try 'echo x > "$BATON_SCRATCH/n"')
printf '{"status":"SUCCESS","output_payload":{"workspace_write":"%s","workspace_delete":"%s","outside_write":"%s","scratch":"%s"}}' "$ws" "$del" "$out" "$scr"
`;

// Starts a setsid'd grandchild, a double-forked one and one with an empty environment, each waiting
// for a "go" file the test creates only after the timeout result was returned, then hangs.
const TREE = `#!/bin/bash
read -r _pkg
late() { while [ ! -e "$OUT/go" ]; do sleep ${LATE_POLL_MS / 1000}; done; echo late > "$OUT/late-$1"; }
export -f late
setsid bash -c 'late setsid' </dev/null >/dev/null 2>&1 &
( bash -c 'late doublefork' </dev/null >/dev/null 2>&1 & ) &
setsid env -i OUT="$OUT" PATH="$PATH" bash -c "$(declare -f late); late noenv" </dev/null >/dev/null 2>&1 &
sleep 0.3
echo started > "$OUT/started"
sleep 1000
`;

async function setup(mechanism: ConfinementMechanism | 'auto', extra: Partial<CreateDelegationOptions> = {}) {
  const ws = await tempDir('baton-confine-ws-');
  const outside = await tempDir('baton-confine-outside-');
  await writeFile(path.join(ws, 'keep.txt'), 'keep\n');
  const dir = await skillsDir([
    { name: 'fetcher', source: FETCH, capabilities: [] },
    { name: 'fetcher-net', source: FETCH, capabilities: ['network_outbound'] },
    { name: 'writer', source: NODE_WRITES, capabilities: [] },
    { name: 'writer-fs', source: NODE_WRITES, capabilities: ['fs_write'] },
    { name: 'writer-rw', source: NODE_WRITES, capabilities: ['fs_write', 'file_delete'] },
    { name: 'shwriter', source: SH_WRITES, file: 'skill.sh', capabilities: [] },
    { name: 'tree', source: TREE, file: 'skill.sh', capabilities: ['subprocess_exec'] },
  ]);
  const d = createDelegation({
    guardrails: allowAllGuardrail,
    skillsDir: dir,
    workspace: ws,
    confinement: mechanism,
    approvals: async () => true,
    skillEnv: { OUTSIDE: outside, OUT: outside },
    skillWritablePaths: [],
    ...extra,
  });
  const run = (skill: string, input: Record<string, unknown> = {}, approve = false) =>
    d.delegate({
      subagent_type: skill,
      instruction_set: 'probe',
      input_data: { url, outside, ...input },
      ...(approve ? { requires_approval: true } : {}),
    });
  return { ws, outside, d, run };
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** No live process has `dir` as its working directory (seen from here, across PID namespaces). */
async function nothingRunsIn(dir: string): Promise<boolean> {
  const { readlink, realpath } = await import('node:fs/promises');
  const real = await realpath(dir);
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if ((await readlink(`/proc/${pid}/cwd`)) === real) return false;
    } catch {
      // Gone or not ours.
    }
  }
  return true;
}

describe('confinement: the mechanism in use is reported', () => {
  it('auto picks the strongest mechanism that works here, in order, and says why the others were skipped', async () => {
    const { d } = await setup('auto');
    const info = await d.confinement();
    const works: ConfinementMechanism[] = [];
    for (const m of CONFINEMENT_MECHANISMS)
      if (
        await detectConfinement(m).then(
          () => true,
          () => false,
        )
      )
        works.push(m);
    expect(info.mechanism).toBe(works[0]);
    expect(info.requested).toBe('auto');
    expect(info.detail).toContain(info.mechanism);
  });

  it('logs the mechanism once at start, before any skill runs', async () => {
    const lines: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger = {
      info: (m: string, f?: Record<string, unknown>) => lines.push([m, f]),
      warn: (m: string, f?: Record<string, unknown>) => lines.push([m, f]),
    };
    const { d } = await setup('auto', { logger });
    const info = await d.confinement();
    expect(lines.filter(([m]) => m === 'skill confinement')).toEqual([
      ['skill confinement', expect.objectContaining({ mechanism: info.mechanism, enforces: info.enforces })],
    ]);
  });

  it('a named mechanism that does not work fails closed; an unknown one is a configuration error', async () => {
    await expect(detectConfinement('sandbox-exec' as ConfinementMechanism)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    for (const m of CONFINEMENT_MECHANISMS) {
      const r = await detectConfinement(m).then(
        (info) => info,
        (err: unknown) => err,
      );
      if (r instanceof SkillsConfigError) {
        // Not available on this machine: every skill run is refused, nothing runs unconfined.
        expect(r.code).toBe('CONFINEMENT_UNAVAILABLE');
        const { run } = await setup(m);
        await expect(run('writer')).rejects.toMatchObject({ code: 'CONFINEMENT_UNAVAILABLE' });
      } else {
        expect((r as ConfinementInfo).mechanism).toBe(m);
      }
    }
  });
});

describe.each(CONFINEMENT_MECHANISMS)('confinement with %s', (mechanism) => {
  let available: ConfinementInfo | undefined;
  beforeAll(async () => {
    available = await detectConfinement(mechanism).catch(() => undefined);
  });

  it('without network_outbound a skill reaches no network; with it (approved) it does', async () => {
    if (!available)
      return expect(await detectConfinement(mechanism).catch((e: SkillsConfigError) => e.code)).toBe('CONFINEMENT_UNAVAILABLE');
    const { run } = await setup(mechanism);
    const before = hits;
    const denied = await run('fetcher');
    expect(denied.status).toBe('SUCCESS');
    if (available.enforces.network) {
      expect(denied.output_payload.reached).toBe(false);
      expect(hits).toBe(before);
    } else {
      // Documented fallback (none): the network is not confined.
      expect(denied.output_payload.reached).toBe(true);
    }
    const allowed = await run('fetcher-net', {}, true);
    expect(allowed.output_payload).toMatchObject({ reached: true });
  });

  it('a Node skill writes only its scratch dir: no workspace writes, no deletes, nothing outside', async () => {
    if (!available)
      return expect(await detectConfinement(mechanism).catch((e: SkillsConfigError) => e.code)).toBe('CONFINEMENT_UNAVAILABLE');
    const { ws, outside, run } = await setup(mechanism);
    const res = await run('writer');
    expect(res.status).toBe('SUCCESS');
    expect(res.output_payload).toMatchObject({ scratch: 'ok', tmpdir: true, confinement: mechanism });
    for (const k of ['workspace_write', 'workspace_change', 'workspace_delete', 'outside_write'])
      expect(res.output_payload[k], k).not.toBe('ok');
    expect(await readFile(path.join(ws, 'keep.txt'), 'utf8')).toBe('keep\n');
    expect(await exists(path.join(ws, 'new.txt'))).toBe(false);
    expect(await readdir(outside)).toEqual([]);
    // This attempt's scratch dir does not outlive it (only its own: other suites share the tmpdir).
    const scratchDir = res.output_payload.scratch_dir;
    expect(typeof scratchDir === 'string' && path.basename(scratchDir).startsWith('baton-skill-')).toBe(true);
    expect(await exists(scratchDir as string)).toBe(false);
  });

  it('fs_write without file_delete: create and change but never delete (Landlock), else a read-only workspace', async () => {
    if (!available)
      return expect(await detectConfinement(mechanism).catch((e: SkillsConfigError) => e.code)).toBe('CONFINEMENT_UNAVAILABLE');
    const { ws, outside, run } = await setup(mechanism);
    const res = await run('writer-fs');
    expect(res.status).toBe('SUCCESS');
    expect(res.output_payload.workspace_delete).not.toBe('ok');
    expect(res.output_payload.outside_write).not.toBe('ok');
    expect(await exists(path.join(ws, 'keep.txt'))).toBe(true);
    if (available.enforces.writeWithoutDelete) {
      expect(res.output_payload).toMatchObject({ workspace_write: 'ok', workspace_change: 'ok' });
      expect(await readFile(path.join(ws, 'keep.txt'), 'utf8')).toBe('keep\nchanged');
    } else {
      // Documented: without Landlock the OS cannot tell writing from deleting; the workspace stays read-only.
      expect(res.output_payload.workspace_write).not.toBe('ok');
      expect(await readFile(path.join(ws, 'keep.txt'), 'utf8')).toBe('keep\n');
    }
    expect(await readdir(outside)).toEqual([]);
  });

  it('fs_write + file_delete (approved) makes the workspace writable, and nothing else', async () => {
    if (!available)
      return expect(await detectConfinement(mechanism).catch((e: SkillsConfigError) => e.code)).toBe('CONFINEMENT_UNAVAILABLE');
    const { ws, outside, run } = await setup(mechanism);
    const res = await run('writer-rw', {}, true);
    expect(res.output_payload).toMatchObject({ scratch: 'ok', workspace_write: 'ok', workspace_change: 'ok', workspace_delete: 'ok' });
    expect(res.output_payload.outside_write).not.toBe('ok');
    expect(await exists(path.join(ws, 'keep.txt'))).toBe(false);
    expect(await readdir(outside)).toEqual([]);
  });

  it('a shell skill: confined by the OS with bubblewrap; the documented fallbacks do not cover it', async () => {
    if (!available)
      return expect(await detectConfinement(mechanism).catch((e: SkillsConfigError) => e.code)).toBe('CONFINEMENT_UNAVAILABLE');
    const { ws, outside, run } = await setup(mechanism);
    const res = await run('shwriter');
    expect(res.status).toBe('SUCCESS');
    expect(res.output_payload.scratch).toBe('ok');
    if (available.enforces.filesystem) {
      expect(res.output_payload).toMatchObject({ workspace_write: 'denied', workspace_delete: 'denied', outside_write: 'denied' });
      expect(await readFile(path.join(ws, 'keep.txt'), 'utf8')).toBe('keep\n');
      expect(await readdir(outside)).toEqual([]);
    } else {
      // Documented: without bubblewrap a non-Node skill's file system access is not confined.
      expect(res.output_payload).toMatchObject({ workspace_write: 'ok', workspace_delete: 'ok', outside_write: 'ok' });
    }
  });

  it('every process a skill starts dies with it: setsid, double-fork and an emptied environment', async () => {
    if (!available)
      return expect(await detectConfinement(mechanism).catch((e: SkillsConfigError) => e.code)).toBe('CONFINEMENT_UNAVAILABLE');
    const out = await tempDir('baton-confine-tree-');
    const { ws, run } = await setup(mechanism, { timeoutMs: TREE_TIMEOUT_MS, skillWritablePaths: [out], skillEnv: { OUT: out } });
    const res = await run('tree');
    expect(res.error_report?.code).toBe('ERR_TIMEOUT');
    expect(await exists(path.join(out, 'started')), 'the skill started its process tree before the timeout').toBe(true);
    // Release any survivor, then give it far longer than it needs to write (a bounded wait from the configuration).
    await writeFile(path.join(out, 'go'), '');
    await new Promise((r) => setTimeout(r, 40 * LATE_POLL_MS));
    const late = (await readdir(out)).filter((n) => n.startsWith('late-'));
    if (available.enforces.processTree) {
      expect(late).toEqual([]);
      expect(await nothingRunsIn(ws)).toBe(true);
    } else {
      // Documented fallback (none): the marker sweep kills what kept its environment; a process
      // that empties its environment escapes it.
      expect(late).toEqual(['late-noenv']);
    }
  });
});

describe('confinement options', () => {
  it('skillWritablePaths must exist: a missing one is a configuration error naming it, and nothing runs', async () => {
    const { run } = await setup('auto', { skillWritablePaths: ['/nonexistent/baton-out'] });
    await expect(run('writer')).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/skillWritablePaths.*\/nonexistent\/baton-out/),
    });
  });

  it('skillWritablePaths may not be the root or hold the workspace (that would grant what the manifest does not)', async () => {
    for (const wide of ['/', '..']) {
      const ws = await tempDir('baton-confine-ws-');
      const dir = await skillsDir([{ name: 'writer', source: NODE_WRITES, capabilities: [] }]);
      const d = createDelegation({
        guardrails: allowAllGuardrail,
        skillsDir: dir,
        workspace: ws,
        skillWritablePaths: [wide === '..' ? path.dirname(ws) : wide],
      });
      await expect(d.delegate({ subagent_type: 'writer', instruction_set: 'x', input_data: {} })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringMatching(/root or contains the workspace/),
      });
      expect(await readdir(ws)).toEqual([]);
    }
  });

  it('an unknown confinement preference is refused when the mechanism is asked for', async () => {
    const { d } = await setup('sandbox-exec' as ConfinementMechanism);
    await expect(d.confinement()).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});
