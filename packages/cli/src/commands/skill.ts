import type { Command } from 'commander';
import type { ScaffoldLanguage } from '@baton/skills';

// For the help text only: @baton/skills is imported when the command runs, so `baton --help`
// never loads it (and the runner and Agents SDK behind it). scaffoldSkill validates the language
// against its own SCAFFOLD_LANGUAGES; keep this list in step with it.
const SCAFFOLD_LANGUAGES: readonly ScaffoldLanguage[] = ['ts', 'js', 'python'];

/** Options of `runSkillNew`, the testable core of `baton skill new`. */
export interface SkillNewCommandOptions {
  name: string;
  /** Parent directory (default: the current directory). */
  dir?: string;
  /** ts (default), js or python. */
  lang?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

/** Scaffolds a skill and prints what it wrote. Returns the exit code: 0 done, 1 refused. */
export async function runSkillNew(options: SkillNewCommandOptions): Promise<number> {
  const out = options.stdout ?? ((text: string) => process.stdout.write(text));
  const err = options.stderr ?? ((text: string) => process.stderr.write(text));
  const { scaffoldSkill, SkillsError } = await import('@baton/skills');
  try {
    const res = await scaffoldSkill({
      name: options.name,
      ...(options.dir !== undefined ? { dir: options.dir } : {}),
      ...(options.lang !== undefined ? { lang: options.lang as ScaffoldLanguage } : {}),
    });
    out(`created ${res.skillDir}\n`);
    for (const f of res.files) out(`  ${f}\n`);
    out(`next: cd ${res.skillDir} && ${res.testCommand.join(' ')}\n`);
    return 0;
  } catch (error) {
    const message =
      error instanceof SkillsError ? error.message : `could not write the skill: ${error instanceof Error ? error.message : String(error)}`;
    err(`baton skill new: ${message}\n`);
    return 1;
  }
}

export function register(program: Command): void {
  const skill = program.command('skill').description('work with skills (portable subagents)');
  skill
    .command('new')
    .description(`scaffold a skill: manifest.json, an entry point, a test and a README (languages: ${SCAFFOLD_LANGUAGES.join(', ')})`)
    .argument('<name>', 'skill name: lower-case letters, digits and dashes')
    .option('--dir <dir>', 'parent directory (default: the current directory)')
    .option('--lang <lang>', `entry point language: ${SCAFFOLD_LANGUAGES.join(' | ')}`, 'ts')
    .action(async (name: string, opts: { dir?: string; lang?: string }) => {
      process.exitCode = await runSkillNew({
        name,
        ...(opts.dir !== undefined ? { dir: opts.dir } : {}),
        ...(opts.lang !== undefined ? { lang: opts.lang } : {}),
      });
    });
}
