import { randomUUID } from 'node:crypto';
import { AgentNotFoundError, RunTimeoutError, toErrorInfo } from '../errors.js';
import type { RegisteredAgent } from '../registry/types.js';
import { ACTIVE_RUN_STATUSES, RUNNER_CRASHED, ThreadNotFoundError } from '../store/index.js';
import { ABANDONED_RUN_MESSAGE } from '../store/rules.js';
import type { AcquireLockOptions, RunRecord, ThreadLock, UpdateRunInput } from '../store/types.js';
import type { ResumePlan } from './approval-gate.js';
import { ApprovalError, ApprovalsUnsupportedError } from './approvals.js';
import { ChainInterrupted, runChain, type ChainOutcome, type ChainProgress } from './chain.js';
import type { RunnerContext } from './context.js';
import { LOCK_LEASE_MARGIN_MS, checkRequestToolsFor, validateRequest } from './request.js';
import { completedResult, failedResult } from './result.js';
import type { RunRequest, RunResult, SubmitApprovalsRequest } from './types.js';
import { endSpan } from './tracing.js';
import { WriteBuffer } from './write-buffer.js';

/** The thread belongs to another tenant; surfaces as ThreadNotFoundError (no existence oracle). */
class ThreadAccessRefused extends Error {
  constructor(readonly threadId: string) {
    super('thread belongs to another tenant');
  }
}

/** Runs `request.agentId` on a thread (and any agents it hands off to). */
export async function startRun(ctx: RunnerContext, request: RunRequest): Promise<RunResult> {
  validateRequest(request);
  const entry = ctx.registry.get(request.agentId, request.agentVersion);
  if (!entry) {
    const known = ctx.registry.get(request.agentId);
    throw new AgentNotFoundError(
      known
        ? `agent ${request.agentId} has no version ${request.agentVersion ?? ''} (highest: ${known.manifest.version})`
        : `no agent with id '${request.agentId}' is registered`,
    );
  }
  checkRequestToolsFor(entry, request.systemTools ?? [], ctx.systemTools);
  return execute(ctx, request, entry, undefined);
}

/**
 * Decides a run paused in `requires_action` and resumes it: each pending approval approved (the
 * tool runs, with every guardrail) or rejected (the model gets a refusal and the run goes on).
 * Throws `ApprovalError`s for caller mistakes: unknown run or another tenant's
 * (`APPROVAL_RUN_NOT_FOUND`), bad decisions (`APPROVAL_INVALID`), nothing waiting or decided by
 * a concurrent call (`APPROVAL_CONFLICT`), too late (`APPROVAL_EXPIRED`, the run becomes `expired`).
 */
export async function resumeRun(ctx: RunnerContext, request: SubmitApprovalsRequest): Promise<RunResult> {
  const { record, plan } = await ctx.approvalGate.prepare(request);
  const entry = ctx.registry.get(record.agentId, record.agentVersion);
  if (!entry)
    throw new AgentNotFoundError(
      `run ${record.id} was paused in agent ${record.agentId} ${record.agentVersion}, which is no longer registered`,
    );
  return execute(
    ctx,
    {
      agentId: record.agentId,
      agentVersion: record.agentVersion,
      input: '',
      threadId: record.threadId,
      ...(request.auth ? { auth: request.auth } : {}),
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
      ...(request.tracestate ? { tracestate: request.tracestate } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onEvent ? { onEvent: request.onEvent } : {}),
    },
    entry,
    plan,
  );
}

/** `run()` after its checks; with `resume`, continues a paused run instead of starting one. */
async function execute(
  ctx: RunnerContext,
  request: RunRequest,
  entry: RegisteredAgent,
  resume: ResumePlan | undefined,
): Promise<RunResult> {
  const rootContext = ctx.tracing.rootContext(request.traceparent, request.tracestate);
  const root = ctx.tracing.start('baton.run', rootContext, { 'baton.agent.id': entry.manifest.id, 'baton.depth': request.depth ?? 0 });

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new RunTimeoutError(`the run took longer than ${ctx.limits.runTimeoutMs} ms`));
  }, ctx.limits.runTimeoutMs);
  const onCallerAbort = () => controller.abort(request.signal?.reason);
  if (request.signal?.aborted) onCallerAbort();
  request.signal?.addEventListener('abort', onCallerAbort, { once: true });

  // Replaced by the chain's own once it has run or thrown: a failed result still lists them.
  let progress: ChainProgress = { runs: [], decisions: [] };
  let threadId = request.threadId ?? '';
  // Set once the caller may see the thread: a refused call never reads another tenant's state.
  let accessible = false;
  const base = () => ({ threadId, progress, entry, traceId: root.ids.traceId, model: ctx.options.modelLabel ?? 'custom model provider' });
  try {
    const lockOptions = {
      owner: `call_${randomUUID()}`,
      leaseMs: ctx.limits.lockLeaseMs ?? ctx.limits.runTimeoutMs + LOCK_LEASE_MARGIN_MS,
      waitMs: ctx.limits.runTimeoutMs,
      signal: controller.signal,
    };
    const ensured = await ensureThread(ctx, { threadId: request.threadId, tenant: request.auth?.tenant, lockOptions });
    accessible = true;
    threadId = ensured.threadId;
    root.span.setAttribute('baton.thread.id', threadId);
    const lock = ensured.lock ?? (await ctx.store.acquireThreadLock(threadId, lockOptions));
    let released = false;
    try {
      // A thread this call just created under a store-generated id, or created locked, has no
      // runs (nobody else could run on it yet): nothing abandoned to look for, one read saved.
      if (!ensured.freshGeneratedId) await failAbandonedRuns(ctx, { threadId, lock });
      if (resume) resume.suspended = await ctx.approvalGate.claim(threadId, resume, lock);
      else if (!ensured.freshGeneratedId) await ctx.approvalGate.refuseWhileAwaiting(threadId, lock);
      const writes = new WriteBuffer(ctx.store, lock);
      let outcome: ChainOutcome;
      try {
        outcome = await runChain(ctx, {
          request,
          first: entry,
          threadId,
          rootContext: root.context,
          signal: controller.signal,
          timedOut: () => timedOut,
          writes,
          freshThread: ensured.freshGeneratedId,
          ...(resume ? { resume } : {}),
        });
        progress = outcome;
      } catch (error) {
        // What the chain recorded before it stopped is committed before the failure is reported.
        await writes.flush();
        if (!(error instanceof ChainInterrupted)) throw error;
        progress = error.progress;
        throw error.cause;
      }
      // The last writes, the state the result reports and the lock release: one commit where the
      // store can, the state read while the lock is still ours either way.
      const state =
        (
          await writes.finish(lock, {
            onReleased: () => (released = true),
            onReleaseError: (error) => warnReleaseFailed(ctx, threadId, error),
          })
        )?.state ?? {};
      const result = completedResult(base(), outcome, state);
      root.span.setAttribute('baton.run.status', outcome.status);
      endSpan(root.span, outcome.error);
      return result;
    } finally {
      if (!released) await lock.release().catch((error: unknown) => warnReleaseFailed(ctx, threadId, error));
    }
  } catch (error) {
    // Another tenant's thread is a caller mistake, thrown like an unknown agent.
    if (error instanceof ThreadAccessRefused) throw new ThreadNotFoundError(error.threadId);
    // Decisions that lost a race or came late, a new run on a paused thread: the caller's answer.
    if (error instanceof ApprovalError || error instanceof ApprovalsUnsupportedError) throw error;
    // Store failures and lock contention: reported as a failed result, not thrown.
    const cancelled = controller.signal.aborted && !timedOut;
    const info = timedOut
      ? { code: 'RUN_TIMEOUT', message: `the run took longer than ${ctx.limits.runTimeoutMs} ms` }
      : cancelled
        ? { code: 'ABORTED', message: 'the caller aborted the run' }
        : toErrorInfo(error, 'RUNNER_ERROR');
    endSpan(root.span, info);
    const state = threadId && accessible ? ((await ctx.store.getThread(threadId).catch(() => undefined))?.state ?? {}) : {};
    return failedResult(base(), timedOut ? 'expired' : cancelled ? 'cancelled' : 'failed', info, state);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** A lock that could not be released runs out with its lease: logged, the call's result stands. */
function warnReleaseFailed(ctx: RunnerContext, threadId: string, error: unknown): void {
  ctx.logger.warn('could not release thread lock', { thread_id: threadId, error: toErrorInfo(error) });
}

/**
 * Runs execute only under the thread lock, so a run still active when the lock is ours belongs
 * to a process that died (its lease expired): record it as crashed before starting again. One
 * that still has its suspended record died resuming after approvals (the record goes only with
 * the resumed run's final commit): it waits again, so its decisions can be submitted again.
 * Fenced by `lock` in one batch where the store batches: a caller that lost the lock since taking
 * it (its lease ran out, another owner took the thread) changes none of them.
 */
async function failAbandonedRuns(ctx: RunnerContext, { threadId, lock }: { threadId: string; lock: ThreadLock }): Promise<void> {
  const stale = (await ctx.store.listRuns(threadId)).filter((r) => ACTIVE_RUN_STATUSES.includes(r.status));
  if (stale.length === 0) return;
  const updates: Array<{ run: RunRecord; input: UpdateRunInput }> = [];
  for (const run of stale) {
    const waits = run.status === 'in_progress' && (await ctx.store.getSuspendedRun?.(run.id)) !== undefined;
    updates.push({
      run,
      input: waits
        ? { status: 'requires_action', error: null }
        : { status: 'failed', error: { code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE } },
    });
  }
  if (ctx.store.writeBatch)
    await ctx.store.writeBatch(
      updates.map(({ run, input }) => ({ op: 'updateRun', runId: run.id, input })),
      { lock },
    );
  // A store without batches has no fenced updateRun: the lock was checked when taken, moments ago.
  else for (const { run, input } of updates) await ctx.store.updateRun(run.id, input);
  for (const { run, input } of updates) {
    const fields = { thread_id: threadId, run_id: run.id, agent_id: run.agentId };
    if (input.status === 'requires_action')
      ctx.logger.warn('a run resumed after approvals was abandoned by a dead process; it waits for approval again', fields);
    else ctx.logger.warn('marked a run abandoned by a dead process as failed', fields);
  }
}

/** Options of {@link ensureThread}. */
interface EnsureThreadOptions {
  /** The thread the caller named; absent: a new one. */
  threadId: string | undefined;
  /** The caller's tenant (`RunAuth.tenant`): recorded on a new thread, required to match on an existing one. */
  tenant: string | undefined;
  /** The lock a store that creates threads locked takes in the same change. */
  lockOptions: AcquireLockOptions;
}

/**
 * The thread to run on, created for `tenant` when new; `freshGeneratedId` when nobody else can
 * have run on it yet (this call created it under the store's generated id, or created it already
 * locked), and `lock` when the store created it already locked (one commit, not two). A thread
 * of another tenant is refused (ThreadAccessRefused).
 */
async function ensureThread(
  ctx: RunnerContext,
  { threadId, tenant, lockOptions }: EnsureThreadOptions,
): Promise<{ threadId: string; freshGeneratedId: boolean; lock?: ThreadLock }> {
  const owner = tenant !== undefined ? { tenant } : {};
  const check = (thread: { tenant?: string }) => {
    if (thread.tenant !== tenant) throw new ThreadAccessRefused(threadId as string);
    return { threadId: threadId as string, freshGeneratedId: false };
  };
  const create = async (id: string | undefined) => {
    const input = { ...(id !== undefined ? { id } : {}), ...owner };
    if (ctx.store.createLockedThread) {
      const { thread, lock } = await ctx.store.createLockedThread(input, lockOptions);
      return { threadId: thread.id, freshGeneratedId: true, lock };
    }
    return { threadId: (await ctx.store.createThread(input)).id, freshGeneratedId: id === undefined };
  };
  if (threadId !== undefined) {
    const existing = await ctx.store.getThread(threadId);
    if (existing) return check(existing);
    try {
      return await create(threadId);
    } catch (error) {
      // Created concurrently by another call: fine if it is this tenant's.
      const raced = await ctx.store.getThread(threadId);
      if (raced) return check(raced);
      throw error;
    }
  }
  return create(ctx.options.idGenerator ? ctx.options.idGenerator() : undefined);
}
