import type { ManifestProblem } from '../problems.js';
import type { AgentManifest } from '../schema/agent-manifest.js';
import { locateInManifest } from './manifest-loader.js';

/** One loaded manifest of a set, with the file it came from. */
export interface ManifestSetEntry {
  /** The file the manifest was loaded from. */
  file: string;
  /** The manifest, as returned by a loader (positions are then known) or built in code. */
  manifest: AgentManifest;
}

/**
 * Checks that `id` + `version` is unique across a set of agent manifests (seed: globally unique
 * for a deployment). Every occurrence of a duplicate is reported, naming the other files.
 */
export function checkManifestSet(entries: ReadonlyArray<ManifestSetEntry>): ManifestProblem[] {
  const groups = new Map<string, ManifestSetEntry[]>();
  for (const entry of entries) {
    const key = `${entry.manifest.id}@${entry.manifest.version}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const problems: ManifestProblem[] = [];
  for (const [key, group] of groups) {
    if (group.length < 2) continue;
    for (const entry of group) {
      const at = locateInManifest(entry.manifest, '/id');
      const others = group
        .filter((e) => e !== entry)
        .map((e) => {
          const pos = locateInManifest(e.manifest, '/id');
          return pos ? `${e.file}:${pos.line}:${pos.col}` : e.file;
        });
      problems.push({
        file: entry.file,
        line: at?.line ?? 1,
        col: at?.col ?? 1,
        pointer: '/id',
        message: `id: duplicate id and version ${key}; also declared in ${others.join(', ')}`,
      });
    }
  }
  return problems;
}
