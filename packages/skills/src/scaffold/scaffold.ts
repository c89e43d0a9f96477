import { mkdir, stat, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { SkillsInputError } from '../errors.js';
import {
  jsEntry,
  jsPackageJson,
  manifest,
  nodeTest,
  pythonEntry,
  pythonTest,
  readme,
  SCAFFOLD_LANGUAGES,
  TS_CONFIG,
  tsEntry,
  tsPackageJson,
} from './templates.js';
import type { ScaffoldLanguage } from './templates.js';

/** Options for {@link scaffoldSkill}. */
export interface ScaffoldSkillOptions {
  /** Skill name: lower-case letters, digits and dashes, starting with a letter (it is the `subagent_type`). */
  name: string;
  /** Parent directory; the skill goes to `<dir>/<name>` (default: the current directory). */
  dir?: string;
  /** Entry point language (default `ts`). */
  lang?: ScaffoldLanguage;
}

/** What {@link scaffoldSkill} wrote. */
export interface ScaffoldSkillResult {
  skillDir: string;
  /** Paths relative to `skillDir`. */
  files: string[];
  /** The command that runs the generated test, from `skillDir`. */
  testCommand: string[];
}

export const SKILL_NAME_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * Scaffolds a skill: `manifest.json`, an entry point, a test that passes as generated, a README.
 * Refuses an invalid name, an unknown language and an existing directory.
 */
export async function scaffoldSkill(options: ScaffoldSkillOptions): Promise<ScaffoldSkillResult> {
  const { name } = options;
  const lang = options.lang ?? 'ts';
  if (!SKILL_NAME_PATTERN.test(name)) {
    throw new SkillsInputError(
      'INVALID_SKILL_NAME',
      `invalid skill name ${JSON.stringify(name)}: use lower-case letters, digits and dashes, starting with a letter (at most 63 characters)`,
    );
  }
  if (!(SCAFFOLD_LANGUAGES as readonly string[]).includes(lang)) {
    throw new SkillsInputError(
      'INVALID_LANGUAGE',
      `unknown language ${JSON.stringify(lang)}; choose one of ${SCAFFOLD_LANGUAGES.join(', ')}`,
    );
  }
  const skillDir = path.resolve(options.dir ?? '.', name);
  const exists = await stat(skillDir).then(
    () => true,
    () => false,
  );
  if (exists) throw new SkillsInputError('SKILL_EXISTS', `${skillDir} already exists; choose another name or --dir`);

  const files: Record<string, string> = {};
  let testCommand: string[];
  if (lang === 'python') {
    files['manifest.json'] = manifest(name, 'skill.py');
    files['skill.py'] = pythonEntry(name);
    files['test/test_skill.py'] = pythonTest(name);
    files['README.md'] = readme(name, lang, 'skill.py');
    testCommand = ['python3', '-m', 'unittest', 'discover', '-s', 'test'];
  } else if (lang === 'js') {
    files['manifest.json'] = manifest(name, 'skill.mjs');
    files['skill.mjs'] = jsEntry(name);
    files['package.json'] = jsPackageJson(name);
    files['test/skill.test.mjs'] = nodeTest(name, 'skill.mjs');
    files['README.md'] = readme(name, lang, 'skill.mjs');
    testCommand = ['node', '--test', 'test/skill.test.mjs'];
  } else {
    files['manifest.json'] = manifest(name, 'dist/skill.js');
    files['src/skill.ts'] = tsEntry(name);
    // Pre-compiled so the skill runs on a fresh machine; `npm run build` regenerates it.
    files['dist/skill.js'] = jsEntry(name);
    files['package.json'] = tsPackageJson(name);
    files['tsconfig.json'] = TS_CONFIG;
    files['test/skill.test.mjs'] = nodeTest(name, 'dist/skill.js');
    files['README.md'] = readme(name, lang, 'dist/skill.js');
    testCommand = ['node', '--test', 'test/skill.test.mjs'];
  }
  try {
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(skillDir, rel)), { recursive: true });
      await writeFile(path.join(skillDir, rel), content, { flag: 'wx' });
    }
  } catch (err) {
    await rm(skillDir, { recursive: true, force: true });
    throw err;
  }
  return { skillDir, files: Object.keys(files), testCommand };
}
