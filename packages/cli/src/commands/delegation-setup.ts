import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError, setupRunner, type RunnerSetupOptions } from './runner-setup.js';

/** The delegation flags `baton run` and `baton serve` take (`baton worker` delegates through the queues). */
export interface DelegationCommandOptions {
  /** `--skills <dir>`: skills `delegate_task` may start. */
  skills?: string;
  /** `--workspace <dir>`: where subagents work. */
  workspace: string;
  /** `--apply-edits`: apply a successful subtask's edits to the workspace. */
  applyEdits: boolean;
}

const isDir = (dir: string) =>
  stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * The skills directory: `--skills <dir>` when given (it must exist), else `<agents>/../skills`
 * when that exists, else none. One rule for `run`, `serve` and `worker`.
 */
export async function resolveSkillsDir(flag: string | undefined, agentsDir: string): Promise<string | undefined> {
  if (flag !== undefined) {
    const dir = resolve(flag);
    if (!(await isDir(dir))) throw new UsageError(`--skills ${flag}: not a directory`);
    return dir;
  }
  const conventional = resolve(agentsDir, '..', 'skills');
  return (await isDir(conventional)) ? conventional : undefined;
}

/** The agent the runner refused because nobody provides its `delegate_task`, if that was the refusal. */
function missingDelegateTask(err: unknown): string | undefined {
  const problems = (err as { code?: unknown; problems?: Array<{ message?: unknown }> }).problems;
  if ((err as { code?: unknown }).code !== 'REGISTRY_INVALID' || !Array.isArray(problems)) return undefined;
  for (const p of problems) {
    const match = typeof p.message === 'string' ? /^agent (\S+): system tool 'delegate_task'/.exec(p.message) : null;
    if (match) return match[1];
  }
  return undefined;
}

/**
 * `setupRunner` for one process (`baton run`, `baton serve`): when there is a skills directory,
 * the stack offers `delegate_task`, and delegated skills run here as subprocesses (agent
 * subagents on this same runner, every boundary through the same guardrail). Without one, an agent
 * whose baton.yml `system_tools` names `delegate_task` is a usage error that names `--skills`.
 */
export async function setupRunnerWithDelegation(
  options: Omit<RunnerSetupOptions, 'delegation'> & { delegation: DelegationCommandOptions },
) {
  const { delegation: flags, ...runnerOptions } = options;
  const skillsDir = await resolveSkillsDir(flags.skills, options.agentsDir);
  if (skillsDir === undefined) {
    try {
      return { ...(await setupRunner(runnerOptions)), skillsDir };
    } catch (err) {
      const agentId = missingDelegateTask(err);
      if (agentId === undefined) throw err;
      throw new UsageError(
        `agent ${agentId} delegates (delegate_task in baton.yml system_tools): pass --skills <dir>, the directory of skills it may start (<dir>/<name>/manifest.json)`,
      );
    }
  }
  const workspace = resolve(flags.workspace);
  if (!(await isDir(workspace))) throw new UsageError(`--workspace ${flags.workspace}: not a directory`);
  return { ...(await setupRunner({ ...runnerOptions, delegation: { skillsDir, workspace, applyEdits: flags.applyEdits } })), skillsDir };
}
