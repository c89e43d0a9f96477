import { realpath } from 'node:fs/promises';
import { dirname, relative, resolve, isAbsolute, sep } from 'node:path';
import type { LoadResult } from '../problems.js';
import { SkillManifestSchema, type SkillManifest } from '../schema/skill-manifest.js';
import { checkSkillManifestData } from '../validate/skill-checks.js';
import {
  loadManifestFile,
  locateInManifest,
  parseManifestText,
  type LoadManifestFileOptions,
  type ManifestKind,
  type ParseManifestOptions,
} from './manifest-loader.js';

const SKILL_KIND: ManifestKind<SkillManifest> = {
  format: 'json',
  schema: SkillManifestSchema,
  check: checkSkillManifestData,
};

/** Options for loading a skill's `manifest.json` from disk. */
export interface LoadSkillManifestFileOptions extends LoadManifestFileOptions {
  /** Also require `entry_point` to exist. Default false (a skill may build its entry point). */
  requireEntryPoint?: boolean;
}

/** Parses and validates skill `manifest.json` text, reporting every problem with its line and column. */
export function parseSkillManifest(source: string, options: ParseManifestOptions): LoadResult<SkillManifest> {
  return parseManifestText(SKILL_KIND, source, options);
}

/**
 * Reads and validates a skill `manifest.json`. When `entry_point` exists it must also resolve
 * (through symbolic links) inside the skill's directory. Never throws for a bad or unreadable file.
 */
export async function loadSkillManifestFile(file: string, options: LoadSkillManifestFileOptions = {}): Promise<LoadResult<SkillManifest>> {
  const result = await loadManifestFile(SKILL_KIND, file, options);
  if (!result.ok) return result;
  const problem = await entryPointOnDiskProblem(file, result.value.entry_point, options.requireEntryPoint === true);
  if (!problem) return result;
  const at = locateInManifest(result.value, '/entry_point') ?? { file, line: 1, col: 1 };
  return { ok: false, problems: [{ ...at, file, pointer: '/entry_point', message: `entry_point: ${problem}` }] };
}

async function entryPointOnDiskProblem(file: string, entryPoint: string, required: boolean): Promise<string | undefined> {
  const dir = dirname(resolve(file));
  let real: string;
  let realDir: string;
  try {
    realDir = await realpath(dir);
    real = await realpath(resolve(dir, entryPoint));
  } catch {
    return required ? `'${entryPoint}' does not exist` : undefined;
  }
  const rel = relative(realDir, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    return `'${entryPoint}' resolves outside the skill's directory (through a symbolic link)`;
  }
  return undefined;
}
