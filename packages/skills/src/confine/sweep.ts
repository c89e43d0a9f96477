import { readdir, readFile } from 'node:fs/promises';

/**
 * Prefix of the environment variables that mark every process of one skill run
 * (`BATON_SANDBOX_ID_<marker>=1`). Descendants inherit them, and a delegation running inside a skill
 * passes its own markers on to its skills, so an outer sweep reaches nested skills too.
 */
export const SANDBOX_MARKER_PREFIX = 'BATON_SANDBOX_ID_';

/** The marker variables to set for a run with `marker`, plus those inherited from `parentEnv`. */
export function markerEnv(marker: string, parentEnv: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parentEnv))
    if (k.startsWith(SANDBOX_MARKER_PREFIX) && v === '1' && /^[A-Za-z0-9_]+$/.test(k)) out[k] = '1';
  out[`${SANDBOX_MARKER_PREFIX}${marker.replace(/[^A-Za-z0-9]/g, '')}`] = '1';
  return out;
}

async function markedPids(needle: Buffer): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return []; // No procfs (not Linux): the process-group kill is all there is.
  }
  const found: number[] = [];
  await Promise.all(
    entries.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      const pid = Number(name);
      if (pid === process.pid) return;
      try {
        const env = Buffer.concat([Buffer.from([0]), await readFile(`/proc/${name}/environ`)]);
        if (env.includes(needle)) found.push(pid);
      } catch {
        // Gone, or not ours to read.
      }
    }),
  );
  return found;
}

/**
 * Kills every process still carrying `marker` in its environment — descendants that left the
 * process group (`setsid`, double-fork) — and waits until none is left (bounded by `rounds`).
 * Resolves to the pids it had to kill. A process that clears its own environment escapes this
 * sweep: that is why a PID namespace is preferred (see the README).
 */
export async function sweepMarked(marker: string, rounds = 50): Promise<number[]> {
  const needle = Buffer.from(`\0${SANDBOX_MARKER_PREFIX}${marker.replace(/[^A-Za-z0-9]/g, '')}=1\0`);
  const killed = new Set<number>();
  for (let i = 0; i < rounds; i++) {
    const pids = await markedPids(needle);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // Already gone.
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return [...killed];
}
