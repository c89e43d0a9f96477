import { readdirSync, statSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadSkillManifestFile, skillIoSchemaToJsonSchema } from '@baton/manifest';
import type { SkillManifest } from '@baton/manifest';
import { SkillsConfigError } from '../errors.js';

export type SkillManifestFields = SkillManifest;

/** A skill ready to run. */
export interface SkillDefinition {
  /** The name `subagent_type` uses: the skill's directory name. */
  name: string;
  manifest: SkillManifestFields;
  /** The skill's directory (realpath). */
  dir: string;
  /** Absolute path of the entry point (inside `dir`). */
  entryPath: string;
}

/** Looks skills up by name. */
export interface SkillRegistry {
  get(name: string): Promise<SkillDefinition | undefined>;
  list(): Promise<SkillDefinition[]>;
  /**
   * The skill names, synchronously (for the `subagent_type` enum, built when the tool is created).
   * A registry without it leaves the enum off when agents are listed, so no skill is unreachable.
   */
  names?(): string[];
}

/** Loads one skill directory (`<dir>/manifest.json`) with @baton/manifest's loader; the entry point must exist inside it. */
export async function loadSkill(dir: string): Promise<SkillDefinition> {
  const file = path.join(dir, 'manifest.json');
  const loaded = await loadSkillManifestFile(file, { requireEntryPoint: true });
  if (!loaded.ok) {
    const msg = loaded.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`).join('\n');
    throw new SkillsConfigError('SKILL_MANIFEST_INVALID', `invalid skill manifest:\n${msg}`);
  }
  const realDir = await realpath(dir);
  const entryPath = await realpath(path.resolve(realDir, loaded.value.entry_point));
  return { name: path.basename(realDir), manifest: loaded.value, dir: realDir, entryPath };
}

/** A registry over a directory of skills (`<dir>/<name>/manifest.json`), loaded once. */
export function createSkillRegistry(skillsDir: string): SkillRegistry {
  let loading: Promise<Map<string, SkillDefinition>> | undefined;
  const load = (): Promise<Map<string, SkillDefinition>> => {
    loading ??= (async () => {
      let entries;
      try {
        entries = await readdir(skillsDir, { withFileTypes: true });
      } catch (err) {
        throw new SkillsConfigError('SKILLS_DIR_MISSING', `skills directory ${skillsDir} cannot be read`, { cause: err });
      }
      const map = new Map<string, SkillDefinition>();
      for (const e of entries.filter((x) => x.isDirectory() && !x.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name))) {
        // A directory without a manifest is not a skill (e.g. shared helpers).
        if (
          !(await stat(path.join(skillsDir, e.name, 'manifest.json')).then(
            (st) => st.isFile(),
            () => false,
          ))
        )
          continue;
        const skill = await loadSkill(path.join(skillsDir, e.name));
        map.set(skill.name, skill);
      }
      return map;
    })();
    return loading;
  };
  return {
    async get(name) {
      return (await load()).get(name);
    },
    async list() {
      return [...(await load()).values()];
    },
    names() {
      // The same selection as load(): directories with a manifest.json, named by their directory.
      let entries;
      try {
        entries = readdirSync(skillsDir, { withFileTypes: true });
      } catch (err) {
        throw new SkillsConfigError('SKILLS_DIR_MISSING', `skills directory ${skillsDir} cannot be read`, { cause: err });
      }
      return entries
        .filter((x) => x.isDirectory() && !x.name.startsWith('.'))
        .filter((x) => {
          try {
            return statSync(path.join(skillsDir, x.name, 'manifest.json')).isFile();
          } catch {
            return false;
          }
        })
        .map((x) => x.name)
        .sort((a, b) => a.localeCompare(b));
    },
  };
}

/** A registry over skills already loaded (tests, embedding). */
export function skillRegistryFrom(skills: readonly SkillDefinition[]): SkillRegistry {
  const map = new Map(skills.map((s) => [s.name, s]));
  return {
    get: async (name) => map.get(name),
    list: async () => [...map.values()],
    names: () => [...map.keys()],
  };
}

/**
 * A skill's `input_schema` / `output_schema` as JSON Schema (the seed's shorthand, `?` for
 * optional fields, or a JSON Schema as is); @baton/manifest's conversion.
 */
export function ioSchemaToJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return skillIoSchemaToJsonSchema(schema);
}
