import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DelegateTaskArgsSchema, ResponsePackageSchema } from '@baton/manifest';
import type { DelegateTaskArgs, ErrorReport, ResponsePackage, SkillPackage } from '@baton/manifest';
import { scrubbedEnv, spawnJsonProcess } from '@baton/runner/process';
import { confineCommand, detectConfinement, grantFor, markerEnv, sweepMarked } from '../confine/index.js';
import type { ConfinementInfo } from '../confine/index.js';
import { parseCriteria } from '../criteria/parse.js';
import { verifyCriteria } from '../criteria/verify.js';
import type { Criterion } from '../criteria/types.js';
import { applyEdits, sha256Hex } from '../edits/apply-edits.js';
import type { EditInput, FileChange } from '../edits/apply-edits.js';
import { ConstraintViolationError, EditError, SkillsConfigError, SkillsError, SkillsInputError, VagueCriteriaError } from '../errors.js';
import { entryCommand } from './entry-command.js';
import { DelegatedTaskSchema, EditLedgerEntrySchema, editsLanded } from './edit-ledger.js';
import { checkText, delegationChecker } from './guardrail-checks.js';
import { failure } from './outcome.js';
import type { AttemptOutcome } from './outcome.js';
import { checkPayloadBounds, resolveFileRefs } from './payload.js';
import { Semaphore } from './semaphore.js';
import { renderSkillPackage } from './skill-package.js';
import { createSkillRegistry, ioSchemaToJsonSchema, skillRegistryFrom } from './skill-registry.js';
import type { SkillDefinition, SkillRegistry } from './skill-registry.js';
import { DELEGATE_TASK_DESCRIPTION, DELEGATE_TASK_NAME, delegateTaskParameters, YIELD_CONTROL_DESCRIPTION, YIELD_CONTROL_NAME, YIELD_CONTROL_PARAMETERS } from './tools.js';
import type { CreateDelegationOptions, DelegatedTask, DelegatedTaskContext, Delegation, DelegationBoundary, DelegationContext, DelegationSystemTool, EditLedger, EditLedgerFile, TaskDispatcher } from './types.js';

/** Capabilities that need `requires_approval: true` and a yes from the approval hook (seed: Approval Rules). */
export const APPROVAL_CAPABILITIES: readonly string[] = ['network_outbound', 'file_delete', 'financial_tx'];

/** Environment variables that carry delegation limits into subprocess skills. */
export const DELEGATION_ENV = {
  depth: 'BATON_DELEGATION_DEPTH',
  maxDepth: 'BATON_DELEGATION_MAX_DEPTH',
  lineage: 'BATON_DELEGATION_LINEAGE',
  taskId: 'BATON_TASK_ID',
  workspace: 'BATON_WORKSPACE',
  /** The skill's private, writable scratch directory (also its TMPDIR and HOME). */
  scratch: 'BATON_SCRATCH',
  /** The confinement mechanism the skill runs under (bubblewrap, unshare, none). */
  confinement: 'BATON_CONFINEMENT',
} as const;

const DEFAULTS = { maxDepth: 3, timeoutMs: 60_000, maxConcurrency: 4 } as const;

interface Scope {
  depth: number;
  maxDepth: number;
  lineage: string[];
}

/** In-process subagents inherit their scope through the async context of the runner's run. */
const scopeStorage = new AsyncLocalStorage<Scope>();

function scopeFromEnv(env: NodeJS.ProcessEnv): Scope | undefined {
  const depth = env[DELEGATION_ENV.depth];
  if (depth === undefined) return undefined;
  const d = Number(depth);
  const m = Number(env[DELEGATION_ENV.maxDepth] ?? DEFAULTS.maxDepth);
  let lineage: string[] = [];
  try {
    const parsed: unknown = JSON.parse(env[DELEGATION_ENV.lineage] ?? '[]');
    if (Array.isArray(parsed)) lineage = parsed.filter((x): x is string => typeof x === 'string');
  } catch {
    // A garbled lineage still keeps the depth limit; fail towards the stricter side.
  }
  // Unparseable numbers mean someone tampered with the channel: treat as already at the limit.
  if (!Number.isInteger(d) || d < 0 || !Number.isInteger(m) || m < 1) return { depth: Number.MAX_SAFE_INTEGER, maxDepth: 1, lineage };
  return { depth: d, maxDepth: m, lineage };
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

function errorCodeFor(err: SkillsError): string {
  const code = err.code.startsWith('ERR_') ? err.code : `ERR_${err.code}`;
  return /^ERR_[A-Z0-9_]+$/.test(code) ? code : 'ERR_INVALID_REQUEST';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The names `subagent_type` may take when agents are listed: every skill and every agent. A name
 * that is both is refused (the skill would shadow the agent). Undefined = no enum (any name).
 */
function checkSubagentNames(registry: SkillRegistry, agents: readonly string[] | undefined): string[] | undefined {
  if (agents === undefined) return undefined;
  const seen = new Set<string>();
  for (const a of agents) {
    if (typeof a !== 'string' || a.length === 0) throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: agents must be non-empty strings, got ${JSON.stringify(a)}`);
    if (seen.has(a)) throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: agent ${JSON.stringify(a)} is listed twice in agents`);
    seen.add(a);
  }
  if (!registry.names) return undefined; // A registry that cannot list synchronously: no enum rather than unreachable skills.
  const skills = registry.names();
  const both = skills.filter((n) => seen.has(n));
  if (both.length > 0) {
    throw new SkillsConfigError('SUBAGENT_NAME_COLLISION', `createDelegation: ${both.map((n) => JSON.stringify(n)).join(', ')} ${both.length === 1 ? 'is' : 'are'} both a skill and an agent; subagent_type could not tell them apart — rename the skill directory or the agent`);
  }
  return [...skills, ...agents];
}

/** A deterministic task_id (UUID-shaped, RFC 9562 version 8) from an idempotency key. */
export function taskIdFromKey(key: string): string {
  const h = sha256Hex(`baton.task_id\0${key}`);
  const variant = ((parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The idempotency key of a keyed task's subagent run, per attempt: short and made of characters
 * every runner accepts (the Baton Runner: 1-120 of `A-Za-z0-9_.:-/`).
 */
export function subagentRunKey(key: string, attempt: number): string {
  return `delegation:${taskIdFromKey(key)}:attempt-${attempt}`;
}

/** The edit ledger failed where failing means nothing may be written or run (fail closed). */
class LedgerFailure extends Error {}

/** The context fields a dispatched task carries (strings only, so it stays JSON). */
function taskContextOf(ctx: DelegationContext): DelegatedTaskContext {
  const out: DelegatedTaskContext = {};
  for (const k of ['threadId', 'runId', 'agentId', 'traceparent', 'tracestate', 'idempotencyKey'] as const) {
    const v = ctx[k];
    if (typeof v === 'string' && v.length > 0) out[k] = v;
  }
  return out;
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts (a dispatcher that ignores it cannot hang the parent). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

function editsOf(output: Record<string, unknown>): EditInput[] | undefined {
  const out: EditInput[] = [];
  if (typeof output.diff === 'string') out.push({ format: 'unified_diff', text: output.diff });
  if (typeof output.replace_blocks === 'string') out.push({ format: 'replace_blocks', text: output.replace_blocks });
  if (typeof output.edits === 'string') out.push({ format: /^\s*REPLACE_START\s*$/m.test(output.edits) ? 'replace_blocks' : 'unified_diff', text: output.edits });
  return out.length > 0 ? out : undefined;
}

/**
 * Creates `delegate_task` / `yield_control` and the runtime behind them: skills and agents as
 * subagents, explicit SkillPackages, depth/loop limits, approvals, payload bounds, hard
 * timeouts, one self-correction, criteria verification and guardrails at the boundary.
 */
export function createDelegation(options: CreateDelegationOptions): Delegation {
  if (typeof options.workspace !== 'string' || options.workspace.length === 0) {
    throw new SkillsConfigError('INVALID_OPTIONS', 'createDelegation: workspace is required');
  }
  const workspace = path.resolve(options.workspace);
  const guardrails = delegationChecker(options.guardrails);
  const maxDepth = positiveInt('maxDepth', options.maxDepth, DEFAULTS.maxDepth);
  const timeoutMs = positiveInt('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs);
  const maxConcurrency = positiveInt('maxConcurrency', options.maxConcurrency, DEFAULTS.maxConcurrency);
  const registry = options.skills ?? (options.skillsDir ? createSkillRegistry(options.skillsDir) : skillRegistryFrom([]));
  const approvals = options.approvals ?? (async () => false);
  const idGenerator = options.idGenerator ?? randomUUID;
  const clock = options.clock ?? (() => performance.now());
  const spawn = options.spawn ?? spawnJsonProcess;
  const log = options.logger ?? { info: () => undefined, warn: () => undefined };
  const semaphore = new Semaphore(maxConcurrency);
  const subagentNames = checkSubagentNames(registry, options.agents);
  // Detected once and reported at start (a log line and `confinement()`), so an operator sees the
  // mechanism before the first skill runs; a dispatch-only parent runs no skill and probes nothing.
  let confinementInfo: Promise<ConfinementInfo> | undefined;
  const confinement = (): Promise<ConfinementInfo> => {
    confinementInfo ??= detectConfinement(options.confinement ?? 'auto').then(
      (info) => {
        (info.mechanism === 'none' ? log.warn : log.info)('skill confinement', { mechanism: info.mechanism, requested: info.requested, enforces: info.enforces, detail: info.detail });
        return info;
      },
      (err: unknown) => {
        log.warn('skill confinement unavailable; skills will not run', { requested: options.confinement ?? 'auto', error: messageOf(err) });
        throw err;
      },
    );
    return confinementInfo;
  };
  if (options.skillsDir !== undefined || options.skills !== undefined) confinement().catch(() => undefined);
  const stopAll = new AbortController();
  const inflight = new Set<Promise<unknown>>();

  function currentScope(ctx: DelegationContext): Scope {
    const base = scopeStorage.getStore() ?? scopeFromEnv(options.env ?? process.env) ?? { depth: 0, maxDepth, lineage: [] };
    const lineage = [...base.lineage];
    if (ctx.agentId && lineage[lineage.length - 1] !== ctx.agentId) lineage.push(ctx.agentId);
    return { depth: Math.max(base.depth, ctx.depth ?? 0), maxDepth: Math.min(base.maxDepth, maxDepth), lineage };
  }

  const yieldControlTool: DelegationSystemTool = {
    name: YIELD_CONTROL_NAME,
    description: YIELD_CONTROL_DESCRIPTION,
    parameters: YIELD_CONTROL_PARAMETERS,
    terminal: true,
    async execute(args) {
      const parsed = ResponsePackageSchema.safeParse(args);
      if (!parsed.success) return `yield_control arguments are invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
      return 'control yielded to the parent';
    },
  };

  /** The ledger and key a local run records its edits under (only with applyEdits, a ledger and a key). */
  function ledgerFor(ctx: DelegationContext): { ledger: EditLedger; key: string } | undefined {
    if (!options.applyEdits || !options.editLedger || typeof ctx.idempotencyKey !== 'string' || ctx.idempotencyKey.length === 0) return undefined;
    return { ledger: options.editLedger, key: ctx.idempotencyKey };
  }

  /**
   * Before a keyed task runs: an `applied` entry is the answer; a `pending` one whose post-images
   * are all on disk landed before a crash (mark applied, answer); one with none on disk did not
   * (forget it, run). Anything else fails closed.
   */
  async function recoverFromLedger({ ledger, key }: { ledger: EditLedger; key: string }, target: string): Promise<ResponsePackage | undefined> {
    const closed = (what: string, err: unknown) =>
      failure('ERR_TOOL_FAILURE', `the edit ledger failed (${what} for key ${JSON.stringify(key)}): ${messageOf(err)}; nothing was run or written (fail closed)`, { ledger_key: key });
    let raw: unknown;
    try {
      raw = await ledger.get(key);
    } catch (err) {
      return closed('get', err);
    }
    if (raw === undefined || raw === null) return undefined;
    const parsed = EditLedgerEntrySchema.safeParse(raw);
    if (!parsed.success) return closed('get', new Error(`the stored entry is not an EditLedgerEntry: ${parsed.error.issues[0]?.message ?? ''}`));
    const entry = parsed.data;
    if (entry.state === 'applied') {
      log.info('edit ledger: task already applied; returning the recorded result', { ledger_key: key, subagent: target });
      return entry.response;
    }
    let landed: Awaited<ReturnType<typeof editsLanded>>;
    try {
      landed = await editsLanded(workspace, entry.files);
    } catch (err) {
      return closed('comparing the recorded post-images with the workspace', err);
    }
    if (landed.kind === 'all') {
      try {
        await ledger.put(key, { ...entry, state: 'applied', at: new Date().toISOString() });
      } catch (err) {
        // The edits stand either way; the next retry finds the same pending entry and the same files.
        log.warn('edit ledger: could not mark a recovered task applied', { ledger_key: key, error: messageOf(err) });
      }
      log.info('edit ledger: edits landed before a crash; returning the recorded result', { ledger_key: key, subagent: target, files: entry.files.length });
      return entry.response;
    }
    if (landed.kind === 'some') {
      return failure(
        'ERR_TOOL_FAILURE',
        `a previous run of this task was interrupted while writing or undoing its edits: ${landed.landed.join(', ')} carry them, ${landed.missing.join(', ')} do not. The workspace needs a manual check; delete edit ledger key ${JSON.stringify(key)} to run the task again`,
        { ledger_key: key, landed: landed.landed, missing: landed.missing },
      );
    }
    try {
      await ledger.delete(key);
    } catch (err) {
      return closed('delete', err);
    }
    log.info('edit ledger: edits of an interrupted run did not land; running the task again', { ledger_key: key, subagent: target });
    return undefined;
  }

  async function checkOutput(
    response: ResponsePackage,
    criteria: Criterion[],
    contract: Criterion[],
    trigger: { criterion?: Criterion; literal?: string } | undefined,
    pkg: SkillPackage,
    signal: AbortSignal,
    keyed: { ledger: EditLedger; key: string } | undefined,
  ) {
    const output = response.output_payload;
    let changedFiles: string[] = [];
    const edits = editsOf(output);
    const problems: string[] = [];
    const results: Array<{ ok: boolean; message: string }> = [];
    // With applyEdits the edits go in first (so command criteria see them) and are undone if any check fails.
    let undo: (() => Promise<void>) | undefined;
    let recorded: EditLedgerFile[] | undefined;
    if (edits) {
      // Crash safety: the post-images go to the ledger (pending) before the first byte is written.
      const beforeWrite = keyed
        ? async (changes: readonly FileChange[]) => {
            const files = changes.map((c) => ({ path: c.path, sha256: c.sha256 }));
            try {
              await keyed.ledger.put(keyed.key, { state: 'pending', files, response, at: new Date().toISOString() });
            } catch (err) {
              throw new LedgerFailure(`the edit ledger failed (put pending for key ${JSON.stringify(keyed.key)}): ${messageOf(err)}; no edit was written (fail closed)`);
            }
            recorded = files;
          }
        : undefined;
      try {
        const applied = await applyEdits({ workspace, edits, capabilities: pkg.constraints.capabilities, dryRun: !options.applyEdits, ...(beforeWrite ? { beforeWrite } : {}) });
        changedFiles = applied.changes.map((c) => c.path);
        undo = applied.undo;
      } catch (err) {
        if (err instanceof LedgerFailure) return { ok: false, problems: [], results, partial: false, ledgerFailure: err.message, forbidden: undefined };
        // Forbidden, not mistaken: a retry cannot make it allowed (seed 002: ERR_CONSTRAINT_VIOLATION).
        if (err instanceof ConstraintViolationError || (err instanceof EditError && err.code === 'PATH_ESCAPE')) {
          return { ok: false, problems: [], results, partial: false, ledgerFailure: undefined, forbidden: `the returned edits are forbidden: ${err.message}; nothing was written` };
        }
        problems.push(`the returned edits cannot be applied: ${(err as Error).message}`);
        if (recorded && keyed) await forget(keyed, recorded); // the write failed and applyEdits rolled it back
      }
    }
    const contractCheck = await verifyCriteria(contract, { output, workspace, changedFiles, signal });
    problems.push(...contractCheck.results.filter((r) => !r.ok).map((r) => `output does not match the skill's output_schema: ${r.message}`));
    const verified = await verifyCriteria(criteria, { output, workspace, changedFiles, signal });
    results.push(...verified.results.map((r) => ({ ok: r.ok, message: r.message })));
    if (trigger?.criterion) {
      const t = await verifyCriteria([trigger.criterion], { output, workspace, changedFiles, signal });
      if (!t.ok) problems.push(`termination_trigger not met: ${t.results[0]?.message ?? ''}`);
    } else if (trigger?.literal !== undefined && !`${JSON.stringify(output)}\n${response.log_summary ?? ''}`.includes(trigger.literal)) {
      problems.push(`termination_trigger ${JSON.stringify(trigger.literal)} does not appear in the output`);
    }
    problems.push(...verified.results.filter((r) => !r.ok).map((r) => `criterion failed: ${r.message}`));
    if (problems.length > 0 && undo) {
      await undo();
      if (recorded && keyed) await forget(keyed, recorded);
    } else if (problems.length === 0 && recorded && keyed) {
      try {
        await keyed.ledger.put(keyed.key, { state: 'applied', files: recorded, response, at: new Date().toISOString() });
      } catch (err) {
        // The edits stand and passed every check; a retry finds the pending entry and its post-images on disk.
        log.warn('edit ledger: could not record the applied edits', { ledger_key: keyed.key, error: messageOf(err) });
      }
    }
    const onlyCriteriaFailed = problems.length === verified.results.filter((r) => !r.ok).length;
    // PARTIAL_COMPLETION: everything else holds and some (not all) requested criteria passed.
    return { ok: problems.length === 0, problems, results, partial: onlyCriteriaFailed && results.some((r) => r.ok), ledgerFailure: undefined, forbidden: undefined };
  }

  /**
   * The edits were rolled back or undone: drop the pending entry, but only once none of its
   * post-images is on disk any more. A half-undone workspace keeps the entry, so a retry refuses
   * to run (and possibly apply edits twice) rather than guess.
   */
  async function forget({ ledger, key }: { ledger: EditLedger; key: string }, files: EditLedgerFile[]): Promise<void> {
    try {
      const landed = await editsLanded(workspace, files);
      if (landed.kind !== 'none') {
        log.warn('edit ledger: undone edits are still partly on disk; keeping the pending entry', { ledger_key: key, landed: landed.kind === 'all' ? files.map((f) => f.path) : landed.landed });
        return;
      }
      await ledger.delete(key);
    } catch (err) {
      // Harmless: the files are back to their pre-images, so a retry sees "did not land" and runs again.
      log.warn('edit ledger: could not delete the entry of undone edits', { ledger_key: key, error: messageOf(err) });
    }
  }

  async function runSkillAttempt(skill: SkillDefinition, pkg: SkillPackage, signal: AbortSignal, boundary?: DelegationBoundary): Promise<AttemptOutcome> {
    const { command, args } = entryCommand(skill.entryPath);
    if (boundary?.onRecipientProcessInput) {
      try {
        // The gate's proof of exactly what is written to stdin; a refusal means nothing is sent.
        await boundary.onRecipientProcessInput(pkg);
      } catch (err) {
        return { kind: 'final', response: failure('ERR_CONSTRAINT_VIOLATION', `the packet gate refused what would be sent to ${skill.name}: ${messageOf(err)}`) };
      }
    }
    const info = await confinement();
    let realWorkspace: string;
    let writablePaths: string[];
    try {
      realWorkspace = await realpath(workspace);
      writablePaths = await Promise.all((options.skillWritablePaths ?? []).map((p) => realpath(path.resolve(p))));
    } catch (err) {
      throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: the workspace and every skillWritablePaths entry must exist: ${messageOf(err)}`, { cause: err });
    }
    // A writable path that holds the workspace would undo what the manifest does not grant.
    const tooWide = writablePaths.find((p) => p === path.parse(p).root || !path.relative(p, realWorkspace).startsWith('..'));
    if (tooWide !== undefined) {
      throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: skillWritablePaths entry ${JSON.stringify(tooWide)} is the file system root or contains the workspace; workspace writes are granted by fs_write / file_delete only`);
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
    const confined = confineCommand({ mechanism: info.mechanism, landlock: info.landlock, command, args, grant: grantFor(skill.manifest.capabilities), workspace: realWorkspace, scratch, writablePaths });
    let r: Awaited<ReturnType<typeof spawn>>;
    try {
      r = await spawn({ command: confined.command, args: confined.args, input: pkg, cwd: realWorkspace, env, timeoutMs: pkg.constraints.timeout_ms, signal });
    } finally {
      // Before any result is returned: nothing the skill started may still run (setsid, double-fork).
      const stragglers = await sweepMarked(marker);
      if (stragglers.length > 0) log.warn('killed processes a skill left behind', { skill: skill.name, task_id: pkg.task_id, pids: stragglers, mechanism: info.mechanism });
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    }
    if (r.stderr) log.info('skill stderr', { skill: skill.name, task_id: pkg.task_id, bytes: r.stderr.length });
    if (r.failure) {
      if (r.failure.code === 'TIMEOUT') {
        return { kind: 'final', response: failure('ERR_TIMEOUT', `skill ${skill.name} did not yield within ${pkg.constraints.timeout_ms} ms; its process group was killed`, { timeout_ms: pkg.constraints.timeout_ms }) };
      }
      if (r.failure.code === 'ABORTED') return { kind: 'final', response: failure('ERR_CANCELLED', `delegation to ${skill.name} was cancelled; its process group was killed`) };
      return { kind: 'retryable', error: { code: 'ERR_TOOL_FAILURE', message: `skill ${skill.name} ended without a valid yield_control: ${r.failure.message}`, details: { exit_code: r.exitCode, signal: r.signal, failure: r.failure.code } } };
    }
    const parsed = ResponsePackageSchema.safeParse(r.output);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      return { kind: 'retryable', error: { code: 'ERR_TOOL_FAILURE', message: `skill ${skill.name} wrote something that is not a yield_control ResponsePackage: ${issues}` } };
    }
    return { kind: 'yield', response: parsed.data };
  }

  async function runAgentAttempt(agentId: string, pkg: SkillPackage, signal: AbortSignal, trigger: { literal?: string } | undefined, ctx: DelegationContext, boundary?: DelegationBoundary): Promise<AttemptOutcome> {
    const runner = options.runner;
    if (!runner) throw new SkillsConfigError('NO_RUNNER', `subagent ${agentId} is an agent, but no runner was given to createDelegation`);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), pkg.constraints.timeout_ms);
    const runSignal = AbortSignal.any([signal, timeout.signal]);
    let stop: (() => void) | undefined;
    const stopped = new Promise<'stopped'>((resolve) => {
      stop = () => resolve('stopped');
      runSignal.addEventListener('abort', () => resolve('stopped'), { once: true });
    });
    try {
      const scope: Scope = { depth: pkg.depth, maxDepth: pkg.max_depth, lineage: [...pkg.lineage, agentId] };
      const run = scopeStorage.run(scope, () =>
        runner.run({ agentId, input: renderSkillPackage(pkg), systemTools: [yieldControlTool], depth: pkg.depth, maxTurns: pkg.constraints.max_iterations, signal: runSignal, ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}), ...(ctx.traceparent && ctx.tracestate ? { tracestate: ctx.tracestate } : {}), ...(ctx.idempotencyKey ? { idempotencyKey: subagentRunKey(ctx.idempotencyKey, pkg.attempt ?? 1) } : {}), ...(boundary ? { inputBoundary: boundary } : {}) }),
      );
      run.catch(() => undefined);
      const result = await Promise.race([run, stopped]);
      if (result === 'stopped' || runSignal.aborted) {
        if (timeout.signal.aborted) return { kind: 'final', response: failure('ERR_TIMEOUT', `agent ${agentId} did not yield within ${pkg.constraints.timeout_ms} ms; its run was cancelled`, { timeout_ms: pkg.constraints.timeout_ms }) };
        return { kind: 'final', response: failure('ERR_CANCELLED', `delegation to ${agentId} was cancelled`) };
      }
      if (result.terminal?.name === YIELD_CONTROL_NAME) {
        const parsed = ResponsePackageSchema.safeParse(result.terminal.arguments);
        if (parsed.success) return { kind: 'yield', response: parsed.data };
        return { kind: 'retryable', error: { code: 'ERR_TOOL_FAILURE', message: `agent ${agentId} called yield_control with invalid arguments: ${parsed.error.issues[0]?.message ?? ''}` } };
      }
      if (result.error?.code === 'MAX_TURNS_EXCEEDED') {
        // Seed 002: a spent budget is ERR_RESOURCE_EXHAUSTED (the self-correction gets what is left of it).
        return { kind: 'retryable', error: { code: 'ERR_RESOURCE_EXHAUSTED', message: `agent ${agentId} spent its budget of ${pkg.constraints.max_iterations} turn${pkg.constraints.max_iterations === 1 ? '' : 's'} without calling yield_control` } };
      }
      if (trigger?.literal !== undefined && result.response !== null && result.response.includes(trigger.literal)) {
        return { kind: 'yield', response: { status: 'SUCCESS', output_payload: { response: result.response }, log_summary: 'ended by termination_trigger' } };
      }
      return { kind: 'retryable', error: { code: 'ERR_TOOL_FAILURE', message: `agent ${agentId} ended its run (${result.status}) without calling yield_control` } };
    } catch (err) {
      if (err instanceof SkillsConfigError) throw err;
      return { kind: 'retryable', error: { code: 'ERR_TOOL_FAILURE', message: `agent ${agentId}'s run failed: ${(err as Error).message}` } };
    } finally {
      clearTimeout(timer);
      stop?.();
    }
  }

  /** Depth and loop limits: the same FAILURE packages wherever the task is about to go. */
  function limitViolation(scope: Scope, target: string): ResponsePackage | undefined {
    const childDepth = scope.depth + 1;
    if (childDepth > scope.maxDepth) {
      return failure('ERR_CONSTRAINT_VIOLATION', `delegation depth ${childDepth} would exceed the maximum of ${scope.maxDepth}`, { depth: childDepth, max_depth: scope.maxDepth, lineage: scope.lineage });
    }
    if (scope.lineage.includes(target)) {
      return failure('ERR_CONSTRAINT_VIOLATION', `delegation loop refused: ${[...scope.lineage, target].join(' → ')}`, { lineage: scope.lineage });
    }
    return undefined;
  }

  /** Hands a validated, within-limits task to the dispatcher; never rejects for dispatcher faults. */
  async function dispatchTask(dispatch: TaskDispatcher, args: DelegateTaskArgs, scope: Scope, ctx: DelegationContext): Promise<ResponsePackage> {
    const target = args.subagent_type;
    let task: DelegatedTask;
    try {
      // Exactly what a queue would carry, and the dispatcher cannot mutate our copy.
      task = JSON.parse(JSON.stringify({ args, scope, context: taskContextOf(ctx) })) as DelegatedTask;
    } catch (err) {
      throw new SkillsInputError('INVALID_ARGUMENTS', `delegate_task arguments must be JSON to run elsewhere: ${messageOf(err)}`);
    }
    const signal = AbortSignal.any([stopAll.signal, ...(ctx.signal ? [ctx.signal] : [])]);
    if (signal.aborted) return failure('ERR_CANCELLED', `delegation to ${target} was cancelled before it was dispatched`);
    log.info('delegation dispatched', { subagent: target, depth: scope.depth + 1, ...(task.context.idempotencyKey ? { idempotency_key: task.context.idempotencyKey } : {}) });
    let result: unknown;
    try {
      // Promise.resolve().then: a dispatcher that throws synchronously is a rejection like any other.
      result = await untilAborted(Promise.resolve().then(() => dispatch(task, { signal })), signal);
    } catch (err) {
      if (signal.aborted) return failure('ERR_CANCELLED', `delegation to ${target} was cancelled while it ran elsewhere`);
      log.warn('task dispatcher failed', { subagent: target, error: messageOf(err) });
      return failure('ERR_TOOL_FAILURE', `the task dispatcher failed to run ${target} elsewhere: ${messageOf(err)}`, { subagent_type: target });
    }
    const parsed = ResponsePackageSchema.safeParse(result);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      log.warn('task dispatcher returned garbage', { subagent: target });
      return failure('ERR_TOOL_FAILURE', `the task dispatcher returned something that is not a ResponsePackage for ${target}: ${issues}`, { subagent_type: target });
    }
    return parsed.data;
  }

  /**
   * One delegation. `local` (runDelegated): run here even when a dispatcher is configured, so a
   * dispatched task is never forwarded again; nested delegate_task calls are not local.
   */
  async function delegateOnce(rawArgs: unknown, ctx: DelegationContext, local = false): Promise<ResponsePackage> {
    const started = clock();
    const parsedArgs = DelegateTaskArgsSchema.safeParse(rawArgs);
    if (!parsedArgs.success) {
      const msg = parsedArgs.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new SkillsInputError('INVALID_ARGUMENTS', `delegate_task arguments are invalid: ${msg}`);
    }
    const args: DelegateTaskArgs = parsedArgs.data;
    const target = args.subagent_type;
    const scope = currentScope(ctx);

    if (options.dispatch && !local) {
      const refused = limitViolation(scope, target);
      if (refused) return refused;
      // Cheap and pure: keeps bloat out of the job store too (the worker checks again).
      checkPayloadBounds(args.input_data, options.payloadLimits);
      return dispatchTask(options.dispatch, args, scope, ctx);
    }

    const keyed = ledgerFor(ctx);
    const taskId = ctx.idempotencyKey ? taskIdFromKey(ctx.idempotencyKey) : idGenerator();

    const skill = await registry.get(target);
    if (skill && options.agents?.includes(target)) {
      // A registry without names() could not be checked at creation: refuse here rather than pick one.
      throw new SkillsConfigError('SUBAGENT_NAME_COLLISION', `${JSON.stringify(target)} is both a skill and an agent; rename one of them`);
    }
    if (!skill && (!options.runner || (options.agents && !options.agents.includes(target)))) {
      const known = [...(await registry.list()).map((s) => s.name), ...(options.agents ?? [])];
      throw new SkillsInputError('UNKNOWN_SUBAGENT', `unknown subagent_type ${JSON.stringify(target)}; known: ${known.length ? known.join(', ') : '(none)'}`);
    }
    const refused = limitViolation(scope, target);
    if (refused) return refused;
    const childDepth = scope.depth + 1;

    // A retried task whose edits already stand answers from the ledger, before anything runs.
    if (keyed) {
      const recovered = await recoverFromLedger(keyed, target);
      if (recovered) return recovered;
    }

    // Refused at delegation time, before anything runs.
    const criteria = parseCriteria(args.success_criteria ?? [], {
      ...(skill ? { outputSchema: ioSchemaToJsonSchema(skill.manifest.output_schema) } : {}),
      ...(options.testCommand ? { testCommand: options.testCommand } : {}),
    });
    // The skill's declared output schema is a contract, checked on every SUCCESS.
    const contract: Criterion[] = skill ? [{ type: 'json_schema', schema: ioSchemaToJsonSchema(skill.manifest.output_schema) }] : [];
    let trigger: { criterion?: Criterion; literal?: string } | undefined;
    if (args.termination_trigger !== undefined) {
      try {
        trigger = { criterion: parseCriteria([args.termination_trigger])[0] as Criterion };
      } catch (err) {
        if (!(err instanceof VagueCriteriaError)) throw err;
        trigger = { literal: args.termination_trigger };
      }
    }
    checkPayloadBounds(args.input_data, options.payloadLimits);
    let payload = await resolveFileRefs(args.input_data, workspace);
    let instructionSet = args.instruction_set;

    const capabilities = skill ? skill.manifest.capabilities : [...(options.agentCapabilities?.[target] ?? [])];
    const sensitive = capabilities.filter((c) => APPROVAL_CAPABILITIES.includes(c));
    if (sensitive.length > 0) {
      if (args.requires_approval !== true) {
        return failure('ERR_CONSTRAINT_VIOLATION', `${target} needs ${sensitive.join(', ')}: the request must set requires_approval: true`, { capabilities: sensitive });
      }
      // A human already approved this call through the run (resumable approvals).
      let yes = options.resumableApprovals === true && ctx.approval?.approved === true;
      if (!yes) {
        try {
          yes = (await approvals({ skill: target, capabilities: sensitive, task_id: taskId, summary: instructionSet.slice(0, 200) })) === true;
        } catch (err) {
          log.warn('approval hook failed; treating as a no', { task_id: taskId, error: (err as Error).message });
        }
      }
      if (!yes) return failure('ERR_CONSTRAINT_VIOLATION', `approval denied: ${target} needs ${sensitive.join(', ')}`, { capabilities: sensitive });
    }

    const signal = AbortSignal.any([stopAll.signal, ...(ctx.signal ? [ctx.signal] : [])]);
    const inputCheck = await checkText(guardrails, 'AGENT_INPUT', target, JSON.stringify({ instruction_set: instructionSet, payload }), { ...ctx, signal });
    if (!inputCheck.ok) return failure('ERR_CONSTRAINT_VIOLATION', `the subagent's input was blocked: ${inputCheck.reason}`);
    if (inputCheck.modified) {
      let redacted: unknown;
      try {
        redacted = JSON.parse(inputCheck.text);
      } catch {
        redacted = undefined;
      }
      const r = redacted as { instruction_set?: unknown; payload?: unknown } | undefined;
      if (!r || typeof r.instruction_set !== 'string' || !r.payload || typeof r.payload !== 'object' || Array.isArray(r.payload)) {
        return failure('ERR_CONSTRAINT_VIOLATION', 'the AGENT_INPUT guardrail modified the input into something that is not the same shape; blocked (fail closed)');
      }
      instructionSet = r.instruction_set;
      payload = r.payload as Record<string, unknown>;
    }

    let pkg: SkillPackage = {
      task_id: taskId,
      subagent_type: target,
      instruction_set: instructionSet,
      payload,
      success_criteria: criteria,
      constraints: { max_iterations: args.max_iterations, timeout_ms: timeoutMs, capabilities: [...capabilities] },
      requires_approval: args.requires_approval ?? false,
      ...(args.termination_trigger !== undefined ? { termination_trigger: args.termination_trigger } : {}),
      depth: childDepth,
      max_depth: scope.maxDepth,
      lineage: scope.lineage,
      attempt: 1,
    };
    let boundary: DelegationBoundary | undefined;
    if (options.packetGate) {
      try {
        const gated = await options.packetGate.prepare({ skillPackage: pkg, recipient: target, purpose: 'delegation' });
        pkg = gated.skillPackage;
        boundary = gated.boundary;
      } catch (err) {
        return failure('ERR_CONSTRAINT_VIOLATION', `the packet gate refused the hand-off: ${(err as Error).message}`);
      }
    }

    let release: () => void;
    try {
      release = await semaphore.acquire(signal);
    } catch {
      return failure('ERR_CANCELLED', `delegation to ${target} was cancelled before it started`);
    }
    try {
      const maxAttempts = Math.min(2, args.max_iterations);
      let lastError: ErrorReport = { code: 'ERR_TOOL_FAILURE', message: 'no attempt ran' };
      let partial: ResponsePackage | undefined;
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const attemptPkg: SkillPackage = {
          ...pkg,
          attempt,
          constraints: { ...pkg.constraints, max_iterations: args.max_iterations - (attempt - 1) },
          ...(attempt > 1 ? { previous_error: lastError } : {}),
        };
        const outcome = skill ? await runSkillAttempt(skill, attemptPkg, signal, boundary) : await runAgentAttempt(target, attemptPkg, signal, trigger, ctx, boundary);
        if (outcome.kind === 'final') return outcome.response;
        if (outcome.kind === 'retryable') {
          lastError = outcome.error;
          log.warn('subagent attempt failed', { task_id: taskId, attempt, code: lastError.code });
          continue;
        }
        const responseCheck = await checkText(guardrails, 'AGENT_RESPONSE', target, JSON.stringify(outcome.response), { ...ctx, signal });
        if (!responseCheck.ok) return failure('ERR_CONSTRAINT_VIOLATION', `the subagent's response was blocked: ${responseCheck.reason}`);
        let response = outcome.response;
        if (responseCheck.modified) {
          const reparsed = (() => {
            try {
              return ResponsePackageSchema.safeParse(JSON.parse(responseCheck.text));
            } catch {
              return undefined;
            }
          })();
          if (!reparsed?.success) return failure('ERR_CONSTRAINT_VIOLATION', 'the AGENT_RESPONSE guardrail modified the response into something that is not a ResponsePackage; blocked (fail closed)');
          response = reparsed.data;
        }
        if (response.status !== 'SUCCESS') return response;
        const check = await checkOutput(response, criteria, contract, trigger, attemptPkg, signal, keyed);
        if (check.ledgerFailure !== undefined) return failure('ERR_TOOL_FAILURE', check.ledgerFailure, keyed ? { ledger_key: keyed.key } : undefined);
        if (check.forbidden !== undefined) return failure('ERR_CONSTRAINT_VIOLATION', check.forbidden, { capabilities: attemptPkg.constraints.capabilities });
        if (check.ok) {
          log.info('delegation succeeded', { task_id: taskId, subagent: target, attempt, ms: Math.round(clock() - started) });
          return response;
        }
        lastError = { code: 'ERR_CRITERIA_NOT_MET', message: check.problems.join('; '), details: { criteria: check.results } };
        if (check.partial) partial = { ...response, status: 'PARTIAL_COMPLETION', error_report: lastError };
        else partial = undefined;
      }
      if (partial) return partial;
      return failure(lastError.code, `${lastError.message} (after ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'})`, lastError.details);
    } finally {
      release();
    }
  }

  async function tracked(p: Promise<ResponsePackage>): Promise<ResponsePackage> {
    inflight.add(p);
    try {
      return await p;
    } finally {
      inflight.delete(p);
    }
  }

  function delegate(args: unknown, ctx: DelegationContext = {}): Promise<ResponsePackage> {
    return tracked(delegateOnce(args, ctx));
  }

  /** What the model (or a remote parent) gets for an error `delegate()` would reject with. */
  function asFailure(err: unknown): ResponsePackage {
    if (err instanceof SkillsError) {
      const code = err instanceof SkillsInputError ? errorCodeFor(err) : 'ERR_CONFIGURATION';
      return failure(code, err.message);
    }
    log.warn('delegate_task failed unexpectedly', { error: messageOf(err) });
    return failure('ERR_TOOL_FAILURE', `delegate_task failed: ${messageOf(err)}`);
  }

  async function runDelegated(task: DelegatedTask, runOptions: { signal?: AbortSignal } = {}): Promise<ResponsePackage> {
    const parsed = DelegatedTaskSchema.safeParse(task);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      return failure('ERR_INVALID_TASK', `runDelegated: not a DelegatedTask: ${issues}`);
    }
    const { args, scope, context } = parsed.data;
    const ctx: DelegationContext = { ...taskContextOf(context), ...(runOptions.signal ? { signal: runOptions.signal } : {}) };
    // The parent's scope becomes this async context's scope: currentScope() sees it, and so do
    // the in-process subagents started below (whose delegate_task calls dispatch again).
    const parentScope: Scope = { depth: scope.depth, maxDepth: scope.maxDepth, lineage: [...scope.lineage] };
    try {
      return await scopeStorage.run(parentScope, () => tracked(delegateOnce(args, ctx, true)));
    } catch (err) {
      return asFailure(err);
    }
  }

  const delegateTaskTool: DelegationSystemTool = {
    name: DELEGATE_TASK_NAME,
    description: DELEGATE_TASK_DESCRIPTION,
    parameters: delegateTaskParameters(subagentNames),
    ...(options.resumableApprovals === true ? { needsApproval: (args: Record<string, unknown>) => args.requires_approval === true } : {}),
    async execute(args, ctx) {
      try {
        return JSON.stringify(await delegate(args, ctx));
      } catch (err) {
        return JSON.stringify(asFailure(err));
      }
    },
  };

  return {
    delegateTaskTool,
    yieldControlTool,
    delegate,
    runDelegated,
    async shutdown() {
      stopAll.abort(new Error('delegation shut down'));
      await Promise.allSettled([...inflight]);
    },
    confinement,
  };
}
