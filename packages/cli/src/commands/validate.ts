import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import type { AgentManifest, ManifestProblem } from '@baton/manifest';
import { UsageError } from '../errors.js';

/** Which loader a file goes to. */
export type ManifestFileKind = 'agent' | 'skill';

/** Options of `runValidate`, the testable core of `baton validate`. */
export interface ValidateCommandOptions {
  /** Files and directories to validate; directories are walked. */
  paths: string[];
  /** Treat named files as this kind instead of guessing from their names (`agent` | `skill`). */
  kind?: string;
  /** Print the problems as a JSON array instead of `path:line:col: message` lines. */
  json?: boolean;
  /** Where results go. Default: process.stdout. */
  stdout?: (text: string) => void;
  /** Where the summary and usage errors go. Default: process.stderr. */
  stderr?: (text: string) => void;
}

/** Directories never walked into: dependencies, build output and hidden directories. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);

/** The kind a file name implies, or undefined for files that are not manifests. */
export function manifestKindOf(file: string): ManifestFileKind | undefined {
  const name = basename(file);
  if (name === 'agent.yml' || name === 'agent.yaml' || name.endsWith('.agent.yml') || name.endsWith('.agent.yaml')) return 'agent';
  if (name === 'manifest.json') return 'skill';
  return undefined;
}

/**
 * Validates manifests and prints one `path:line:col: message` line per problem (or JSON).
 * Returns the exit code: 0 all valid, 1 problems found, 2 usage error.
 */
export async function runValidate(options: ValidateCommandOptions): Promise<number> {
  const out = options.stdout ?? ((text: string) => process.stdout.write(text));
  const err = options.stderr ?? ((text: string) => process.stderr.write(text));
  try {
    const files = await collectFiles(options.paths, options.kind);
    const problems = await validateFiles(files);
    if (options.json) out(`${JSON.stringify(problems, null, 2)}\n`);
    else for (const p of problems) out(`${p.file}:${p.line}:${p.col}: ${p.message}\n`);
    const fileCount = `${files.length} file${files.length === 1 ? '' : 's'}`;
    err(
      problems.length === 0
        ? `baton validate: ${fileCount} valid\n`
        : `baton validate: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${fileCount}\n`,
    );
    return problems.length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`baton validate: ${error.message}\n`);
      return 2;
    }
    err(`baton validate: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function collectFiles(paths: string[], kind: string | undefined): Promise<Array<{ file: string; kind: ManifestFileKind }>> {
  if (kind !== undefined && kind !== 'agent' && kind !== 'skill') throw new UsageError(`unknown --kind '${kind}'; use 'agent' or 'skill'`);
  if (paths.length === 0) throw new UsageError('no files given; usage: baton validate <file|dir>... [--kind agent|skill] [--json]');
  const files: Array<{ file: string; kind: ManifestFileKind }> = [];
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new UsageError(`no such file or directory: ${path}`);
    }
    if (info.isDirectory()) {
      const before = files.length;
      for (const file of await walk(path)) {
        const fileKind = manifestKindOf(file);
        if (fileKind && (kind === undefined || kind === fileKind)) files.push({ file, kind: fileKind });
      }
      if (files.length === before) throw new UsageError(`no agent.yml, *.agent.yml or manifest.json files found in ${path}`);
    } else {
      const fileKind = (kind as ManifestFileKind | undefined) ?? manifestKindOf(path);
      if (!fileKind) {
        throw new UsageError(
          `cannot tell what kind of manifest ${path} is: name it agent.yml, *.agent.yml or manifest.json, or pass --kind agent|skill`,
        );
      }
      files.push({ file: path, kind: fileKind });
    }
  }
  return files;
}

/** Every file under `dir`, sorted, without following symbolic links or entering skipped directories. */
async function walk(dir: string): Promise<string[]> {
  const found: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) found.push(...(await walk(path)));
    } else if (entry.isFile()) {
      found.push(path);
    }
  }
  return found;
}

async function validateFiles(files: Array<{ file: string; kind: ManifestFileKind }>): Promise<ManifestProblem[]> {
  // Loaded only when validating, so `baton --version` and other commands do not pay for it.
  const manifest = await import('@baton/manifest');
  const problems: ManifestProblem[] = [];
  const agents: Array<{ file: string; manifest: AgentManifest }> = [];
  for (const { file, kind } of files) {
    if (kind === 'agent') {
      const result = await manifest.loadAgentManifestFile(file);
      if (result.ok) agents.push({ file, manifest: result.value });
      else problems.push(...result.problems);
    } else {
      const result = await manifest.loadSkillManifestFile(file);
      if (!result.ok) problems.push(...result.problems);
    }
  }
  problems.push(...manifest.checkManifestSet(agents));
  return problems;
}

/** `baton validate <file|dir>...`: exit 0 when every manifest is valid, 1 on problems, 2 on usage errors. */
export function register(program: Command): void {
  program
    .command('validate')
    .description('validate agent.yml (*.agent.yml) and skill manifest.json files; directories are walked')
    .argument('[paths...]', 'files or directories to validate')
    .option('--kind <kind>', 'treat the named files as agent or skill manifests')
    .option('--json', 'print the problems as a JSON array')
    .action(async (paths: string[], opts: { kind?: string; json?: boolean }) => {
      process.exitCode = await runValidate({
        paths,
        ...(opts.kind !== undefined ? { kind: opts.kind } : {}),
        ...(opts.json ? { json: true } : {}),
      });
    });
}
