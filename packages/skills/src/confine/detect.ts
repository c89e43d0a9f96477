import { execFile } from 'node:child_process';
import { SkillsConfigError } from '../errors.js';
import { landlockProbeArgs } from './landlock.js';
import { baseArgs as bwrapBase, unshareArgs } from './wrap.js';
import type { ConfinementInfo, ConfinementMechanism, ConfinementPreference } from './types.js';
import { CONFINEMENT_MECHANISMS } from './types.js';

/** Generous: the probe runs on busy machines; it is paid once per process and mechanism. */
const PROBE_TIMEOUT_MS = 20_000;

function run(command: string, args: string[]): Promise<{ ok: true } | { ok: false; why: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (err, _stdout, stderr) => {
      if (!err) return resolve({ ok: true });
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? `${command} is not installed`
          : `${command} failed: ${(String(stderr).trim().split('\n').pop() ?? '') || err.message}`;
      resolve({ ok: false, why });
    });
  });
}

/**
 * Proves a mechanism works here by running `sh -c 'exit 0'` under exactly the restrictions a
 * skill gets (network namespace, PID namespace, read-only root, dropped capabilities).
 */
async function probe(mechanism: ConfinementMechanism): Promise<{ ok: true } | { ok: false; why: string }> {
  if (mechanism === 'none') return { ok: true };
  if (process.platform !== 'linux') return { ok: false, why: `${mechanism} needs Linux (this is ${process.platform})` };
  if (mechanism === 'bubblewrap') return run('bwrap', [...bwrapBase({ network: false }), '--', 'sh', '-c', 'exit 0']);
  const u = unshareArgs({ network: false });
  return run(u.command, [...u.args, 'sh', '-c', 'exit 0']);
}

function enforces(mechanism: ConfinementMechanism, landlock: boolean): ConfinementInfo['enforces'] {
  return {
    network: mechanism !== 'none',
    filesystem: mechanism === 'bubblewrap' || landlock,
    writeWithoutDelete: landlock,
    nodeFilesystem: true,
    processTree: mechanism !== 'none',
  };
}

const cache = new Map<ConfinementMechanism | 'landlock', Promise<{ ok: true } | { ok: false; why: string }>>();

function cached(key: ConfinementMechanism | 'landlock', run: () => Promise<{ ok: true } | { ok: false; why: string }>) {
  let p = cache.get(key);
  if (!p) {
    p = run();
    cache.set(key, p);
  }
  return p;
}

/** Landlock: a process restricts itself (no privilege needed); probed by doing exactly that. */
function probeLandlock(): Promise<{ ok: true } | { ok: false; why: string }> {
  if (process.platform !== 'linux') return Promise.resolve({ ok: false, why: 'Landlock needs Linux' });
  const p = landlockProbeArgs();
  return run(p.command, p.args);
}

/**
 * Finds the confinement mechanism to use: the one asked for (it must work, or this rejects with
 * `SkillsConfigError('CONFINEMENT_UNAVAILABLE')`: fail closed), or with `auto` the strongest that
 * works: bubblewrap, then `unshare` (util-linux), then none. Probes are cached per process.
 */
export async function detectConfinement(preference: ConfinementPreference = 'auto'): Promise<ConfinementInfo> {
  if (preference !== 'auto' && !CONFINEMENT_MECHANISMS.includes(preference)) {
    throw new SkillsConfigError(
      'INVALID_OPTIONS',
      `confinement must be one of auto, ${CONFINEMENT_MECHANISMS.join(', ')}; got ${JSON.stringify(preference)}`,
    );
  }
  const candidates = preference === 'auto' ? CONFINEMENT_MECHANISMS : [preference];
  const skipped: string[] = [];
  for (const mechanism of candidates) {
    const r = await cached(mechanism, () => probe(mechanism));
    if (r.ok) {
      const ll = await cached('landlock', probeLandlock);
      const notes = [...skipped, ll.ok ? 'Landlock write rules on' : `no Landlock: ${ll.why}`];
      const detail = `skills are confined with ${mechanism} (${notes.join('; ')})`;
      return { mechanism, requested: preference, landlock: ll.ok, enforces: enforces(mechanism, ll.ok), detail };
    }
    skipped.push(r.why);
  }
  throw new SkillsConfigError(
    'CONFINEMENT_UNAVAILABLE',
    `skill confinement ${preference} is not available on this machine: ${skipped.join('; ')}`,
  );
}
