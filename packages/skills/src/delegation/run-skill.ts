import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ResponsePackageSchema } from '@baton/manifest';
import type { SkillPackage } from '@baton/manifest';
import { scrubbedEnv } from '@baton/runner/process';
import { confineCommand, grantFor, markerEnv, sweepMarked } from '../confine/index.js';
import { SkillsConfigError } from '../errors.js';
import { entryCommand } from './entry-command.js';
import { failure } from './outcome.js';
import type { AttemptOutcome } from './outcome.js';
import { messageOf } from './runtime.js';
import type { DelegationRuntime } from './runtime.js';
import { DELEGATION_ENV } from './scope.js';
import type { SkillDefinition } from './skill-registry.js';
import type { DelegationBoundary } from './types.js';

/**
 * Dispatch to a subprocess skill, one attempt: confined, with a private scratch dir, a scrubbed
 * environment carrying the delegation scope, a hard timeout and a sweep of anything it left running.
 */
export async function runSkillAttempt(
  rt: DelegationRuntime,
  skill: SkillDefinition,
  pkg: SkillPackage,
  signal: AbortSignal,
  boundary?: DelegationBoundary,
): Promise<AttemptOutcome> {
  const { options, workspace, log } = rt;
  const { command, args } = entryCommand(skill.entryPath);
  if (boundary?.onRecipientProcessInput) {
    try {
      // The gate's proof of exactly what is written to stdin; a refusal means nothing is sent.
      await boundary.onRecipientProcessInput(pkg);
    } catch (err) {
      return {
        kind: 'final',
        response: failure('ERR_CONSTRAINT_VIOLATION', `the packet gate refused what would be sent to ${skill.name}: ${messageOf(err)}`),
      };
    }
  }
  const info = await rt.confinement();
  let realWorkspace: string;
  let writablePaths: string[];
  try {
    realWorkspace = await realpath(workspace);
    writablePaths = await Promise.all((options.skillWritablePaths ?? []).map((p) => realpath(path.resolve(p))));
  } catch (err) {
    throw new SkillsConfigError(
      'INVALID_OPTIONS',
      `createDelegation: the workspace and every skillWritablePaths entry must exist: ${messageOf(err)}`,
      { cause: err },
    );
  }
  // A writable path that holds the workspace would undo what the manifest does not grant.
  const tooWide = writablePaths.find((p) => p === path.parse(p).root || !path.relative(p, realWorkspace).startsWith('..'));
  if (tooWide !== undefined) {
    throw new SkillsConfigError(
      'INVALID_OPTIONS',
      `createDelegation: skillWritablePaths entry ${JSON.stringify(tooWide)} is the file system root or contains the workspace; workspace writes are granted by fs_write / file_delete only`,
    );
  }
  // A fresh private scratch dir per attempt: the only place a skill without fs_write + file_delete may write.
  const scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), 'baton-skill-')));
  // Every process of this attempt inherits the marker; the sweep below kills any that outlive it.
  const marker = randomUUID();
  const env = scrubbedEnv({
    ...options.skillEnv,
    [DELEGATION_ENV.depth]: String(pkg.depth),
    [DELEGATION_ENV.maxDepth]: String(pkg.max_depth),
    [DELEGATION_ENV.lineage]: JSON.stringify([...pkg.lineage, pkg.subagent_type]),
    [DELEGATION_ENV.taskId]: pkg.task_id,
    [DELEGATION_ENV.workspace]: workspace,
    [DELEGATION_ENV.scratch]: scratch,
    [DELEGATION_ENV.confinement]: info.mechanism,
    TMPDIR: scratch,
    HOME: scratch,
    ...markerEnv(marker, options.env ?? process.env),
  });
  const confined = confineCommand({
    mechanism: info.mechanism,
    landlock: info.landlock,
    command,
    args,
    grant: grantFor(skill.manifest.capabilities),
    workspace: realWorkspace,
    scratch,
    writablePaths,
  });
  let r: Awaited<ReturnType<DelegationRuntime['spawn']>>;
  try {
    r = await rt.spawn({
      command: confined.command,
      args: confined.args,
      input: pkg,
      cwd: realWorkspace,
      env,
      timeoutMs: pkg.constraints.timeout_ms,
      signal,
    });
  } finally {
    // Before any result is returned: nothing the skill started may still run (setsid, double-fork).
    const stragglers = await sweepMarked(marker);
    if (stragglers.length > 0)
      log.warn('killed processes a skill left behind', {
        skill: skill.name,
        task_id: pkg.task_id,
        pids: stragglers,
        mechanism: info.mechanism,
      });
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
  if (r.stderr) log.info('skill stderr', { skill: skill.name, task_id: pkg.task_id, bytes: r.stderr.length });
  if (r.failure) {
    if (r.failure.code === 'TIMEOUT') {
      return {
        kind: 'final',
        response: failure(
          'ERR_TIMEOUT',
          `skill ${skill.name} did not yield within ${pkg.constraints.timeout_ms} ms; its process group was killed`,
          { timeout_ms: pkg.constraints.timeout_ms },
        ),
      };
    }
    if (r.failure.code === 'ABORTED')
      return {
        kind: 'final',
        response: failure('ERR_CANCELLED', `delegation to ${skill.name} was cancelled; its process group was killed`),
      };
    return {
      kind: 'retryable',
      error: {
        code: 'ERR_TOOL_FAILURE',
        message: `skill ${skill.name} ended without a valid yield_control: ${r.failure.message}`,
        details: { exit_code: r.exitCode, signal: r.signal, failure: r.failure.code },
      },
    };
  }
  const parsed = ResponsePackageSchema.safeParse(r.output);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return {
      kind: 'retryable',
      error: {
        code: 'ERR_TOOL_FAILURE',
        message: `skill ${skill.name} wrote something that is not a yield_control ResponsePackage: ${issues}`,
      },
    };
  }
  return { kind: 'yield', response: parsed.data };
}
