// The store side of deciding a paused run: who may decide it, whether it still waits or has
// expired, taking it (one winner), and keeping new runs off a thread that waits. runner.ts holds
// one instance and calls it from `submitApprovals` and under the thread lock.
import { TERMINAL_RUN_STATUSES } from '../store/rules.js';
import type { RunRecord, StoreWrite, SuspendedRun, ThreadLock, ThreadStore } from '../store/types.js';
import { approvalStore } from './approval-flow.js';
import {
  ApprovalConflictError,
  ApprovalDecisionError,
  ApprovalExpiredError,
  ApprovalRunNotFoundError,
  ApprovalsUnsupportedError,
  ThreadAwaitingApprovalError,
  checkDecisions,
} from './approvals.js';
import type { ApprovalDecision, SubmitApprovalsRequest } from './types.js';

/** A paused run being resumed: its decisions and, once claimed under the thread lock, its record. */
export interface ResumePlan {
  runId: string;
  decisions: ApprovalDecision[];
  decidedBy: string | undefined;
  /** Set under the thread lock once the record is claimed (it stays in the store until the run's final commit). */
  suspended?: SuspendedRun;
  /**
   * Set with `suspended`: the decisions an earlier, unfinished resume already committed to the
   * thread (approval id → its recorded rejection reason, if any). They are applied again as
   * recorded (a rejection with the recorded reason) but not recorded or announced again.
   */
  recorded?: ReadonlyMap<string, { reason?: string }>;
}

const expiredError = (expiresAt: string) => ({
  code: 'APPROVAL_EXPIRED',
  message: `the run waited for approval until ${expiresAt}; nobody decided in time`,
});
const takenByOther = (runId: string) =>
  new ApprovalConflictError(`run ${JSON.stringify(runId)} is no longer waiting for approval: another request decided it first`);

export class ApprovalGate {
  constructor(private readonly options: { store: ThreadStore; clock: () => Date }) {}

  private isExpired(suspended: SuspendedRun): boolean {
    return this.options.clock().getTime() >= Date.parse(suspended.expiresAt);
  }

  /**
   * Checks a `submitApprovals` request before any lock: the run exists and is the caller's
   * tenant's, waits and the decisions fit it (an expired one is closed by `claim`).
   */
  async prepare(request: SubmitApprovalsRequest): Promise<{ record: RunRecord; plan: ResumePlan }> {
    if (!request || typeof request !== 'object') throw new ApprovalDecisionError('submitApprovals(request): request object is required');
    const { runId } = request;
    if (typeof runId !== 'string' || runId.length === 0 || runId.length > 200)
      throw new ApprovalDecisionError('submitApprovals(request): runId must be a run id (1-200 characters)');
    if (request.onEvent !== undefined && typeof request.onEvent !== 'function')
      throw new ApprovalDecisionError('submitApprovals(request): onEvent must be a function');
    const store = approvalStore(this.options.store);
    if (!store) throw new ApprovalsUnsupportedError('this thread store cannot keep paused runs, so there is nothing to approve');
    const record = await store.getRun(runId);
    const thread = record ? await store.getThread(record.threadId) : undefined;
    // Another tenant's run and a run that does not exist look the same.
    if (!record || !thread || thread.tenant !== request.auth?.tenant) throw new ApprovalRunNotFoundError(runId);
    let suspended = await store.getSuspendedRun(runId);
    // A record whose run already finished is left over (e.g. a store without batched writes that
    // failed between the two): nothing waits any more, so it goes.
    if (suspended && TERMINAL_RUN_STATUSES.includes(record.status)) {
      await store.takeSuspendedRun(runId);
      suspended = undefined;
    }
    if (!suspended) {
      if (record.status === 'expired' && record.error?.code === 'APPROVAL_EXPIRED')
        throw new ApprovalExpiredError(runId, /until (\S+);/.exec(record.error.message)?.[1] ?? 'its expiry');
      throw new ApprovalConflictError(
        `run ${JSON.stringify(runId)} is ${record.status}; it is not waiting for approval (already decided?)`,
      );
    }
    const decisions = checkDecisions(request.decisions, suspended.approvals);
    // An expired run is closed by `claim`, under the thread lock: its writes are fenced like every
    // other write of the thread, and the lock keeps two closers apart.
    return { record, plan: { runId, decisions, decidedBy: request.auth?.subject } };
  }

  /**
   * Under the thread lock: takes an expired paused run out of the store and records it `expired`
   * (status and audit); false when its record was gone already. The three writes are one batch
   * fenced by `lock` where the store batches, so a caller that lost its lock changes nothing and
   * never leaves the record taken but the run not closed; otherwise the take is fenced.
   */
  private async expire(suspended: SuspendedRun, lock: ThreadLock): Promise<boolean> {
    const { store } = this.options;
    const { runId, threadId } = suspended;
    const status = { status: 'expired' as const, error: expiredError(suspended.expiresAt) };
    const audit = {
      threadId,
      runId,
      kind: 'approval_expired',
      data: { expires_at: suspended.expiresAt, approvals: suspended.approvals.map((a) => a.id) },
    };
    if (store.writeBatch) {
      const writes: StoreWrite[] = [
        { op: 'deleteSuspendedRun', threadId, runId },
        { op: 'updateRun', runId, input: status },
        { op: 'appendAudit', record: audit },
      ];
      await store.writeBatch(writes, { lock });
      return true;
    }
    const taken = await approvalStore(store)?.takeSuspendedRun(runId, { lock });
    if (!taken) return false;
    await store.updateRun(runId, status);
    await store.appendAudit(audit);
    return true;
  }

  /**
   * Under the thread lock (after abandoned runs were put back to `requires_action`): the paused
   * run to resume. The record is NOT removed here: it goes in the resumed run's final commit
   * (chain.ts), so a resumer that dies (or stalls past its lease) leaves it for another try. A run
   * that is no longer waiting was decided by a call that finished (its record is gone), so the
   * lock is what keeps two resumes apart. Decisions that an earlier, unfinished resume already
   * recorded on the thread must be repeated as they were: its approved tools may have run.
   */
  async claim(threadId: string, plan: ResumePlan, lock: ThreadLock): Promise<SuspendedRun> {
    const store = approvalStore(this.options.store);
    const suspended = await store?.getSuspendedRun(plan.runId);
    if (!store || !suspended || suspended.threadId !== threadId) throw takenByOther(plan.runId);
    const run = await store.getRun(plan.runId);
    if (run?.status !== 'requires_action') {
      if (run && TERMINAL_RUN_STATUSES.includes(run.status)) await store.takeSuspendedRun(plan.runId, { lock });
      throw takenByOther(plan.runId);
    }
    if (this.isExpired(suspended)) {
      if (!(await this.expire(suspended, lock))) throw takenByOther(plan.runId);
      throw new ApprovalExpiredError(suspended.runId, suspended.expiresAt);
    }
    try {
      // The record may have been replaced since the decisions were checked (the run paused again).
      plan.decisions = checkDecisions(plan.decisions, suspended.approvals);
    } catch (error) {
      throw error instanceof ApprovalDecisionError
        ? new ApprovalConflictError(`run ${JSON.stringify(plan.runId)} changed while deciding: ${error.message}`)
        : error;
    }
    const earlier = await this.recordedDecisions(suspended);
    const changed = plan.decisions.find((d) => earlier.has(d.id) && earlier.get(d.id)!.approved !== d.approve);
    if (changed)
      throw new ApprovalConflictError(
        `run ${JSON.stringify(plan.runId)} was already decided (${changed.id} ${earlier.get(changed.id)!.approved ? 'approved' : 'rejected'}) by a request whose resume did not finish; submit the same decisions to resume it again`,
      );
    // Resuming again (a redelivered job, a resumer that lost its lease) must not record them twice.
    plan.recorded = new Map([...earlier].map(([id, d]) => [id, d.reason !== undefined ? { reason: d.reason } : {}]));
    return suspended;
  }

  /** The decisions an earlier resume of this record committed to the thread (approval id → approved). */
  private async recordedDecisions(suspended: SuspendedRun): Promise<Map<string, { approved: boolean; reason?: string }>> {
    const pending = new Set(suspended.approvals.map((a) => a.id));
    const recorded = new Map<string, { approved: boolean; reason?: string }>();
    for (const { runId, item } of await this.options.store.listItems(suspended.threadId)) {
      if (runId !== suspended.runId || item.type !== 'approval' || typeof item.approval_id !== 'string') continue;
      if (!pending.has(item.approval_id)) continue;
      const approved = item.decision === 'approved';
      recorded.set(item.approval_id, !approved && typeof item.reason === 'string' ? { approved, reason: item.reason } : { approved });
    }
    return recorded;
  }

  /** Under the thread lock: a paused run blocks new runs on its thread until decided; an expired one is closed. */
  async refuseWhileAwaiting(threadId: string, lock: ThreadLock): Promise<void> {
    const store = approvalStore(this.options.store);
    if (!store) return;
    for (const suspended of await store.listSuspendedRuns(threadId)) {
      const status = (await store.getRun(suspended.runId))?.status;
      // Left behind by a run that finished: nothing waits.
      if (status && TERMINAL_RUN_STATUSES.includes(status)) await store.takeSuspendedRun(suspended.runId, { lock });
      else if (this.isExpired(suspended)) await this.expire(suspended, lock);
      else throw new ThreadAwaitingApprovalError(threadId, suspended.runId);
    }
  }
}
