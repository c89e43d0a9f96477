// The store side of deciding a paused run: who may decide it, whether it still waits or has
// expired, taking it (one winner), and keeping new runs off a thread that waits. runner.ts holds
// one instance and calls it from `submitApprovals` and under the thread lock.
import type { RunRecord, SuspendedRun, ThreadStore } from '../store/types.js';
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

/** A paused run being resumed: its decisions and, once taken under the thread lock, its record. */
export interface ResumePlan {
  runId: string;
  decisions: ApprovalDecision[];
  decidedBy: string | undefined;
  /** Set under the thread lock once the record is taken from the store. */
  suspended?: SuspendedRun;
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
   * tenant's, waits, has not expired (an expired one is closed now) and the decisions fit it.
   */
  async prepare(request: SubmitApprovalsRequest): Promise<{ record: RunRecord; plan: ResumePlan }> {
    if (!request || typeof request !== 'object') throw new ApprovalDecisionError('submitApprovals(request): request object is required');
    const { runId } = request;
    if (typeof runId !== 'string' || runId.length === 0 || runId.length > 200)
      throw new ApprovalDecisionError('submitApprovals(request): runId must be a run id (1-200 characters)');
    const store = approvalStore(this.options.store);
    if (!store) throw new ApprovalsUnsupportedError('this thread store cannot keep paused runs, so there is nothing to approve');
    const record = await store.getRun(runId);
    const thread = record ? await store.getThread(record.threadId) : undefined;
    // Another tenant's run and a run that does not exist look the same.
    if (!record || !thread || thread.tenant !== request.auth?.tenant) throw new ApprovalRunNotFoundError(runId);
    const suspended = await store.getSuspendedRun(runId);
    if (!suspended) {
      if (record.status === 'expired' && record.error?.code === 'APPROVAL_EXPIRED')
        throw new ApprovalExpiredError(runId, /until (\S+);/.exec(record.error.message)?.[1] ?? 'its expiry');
      throw new ApprovalConflictError(
        `run ${JSON.stringify(runId)} is ${record.status}; it is not waiting for approval (already decided?)`,
      );
    }
    const decisions = checkDecisions(request.decisions, suspended.approvals);
    if (this.isExpired(suspended)) {
      if (!(await this.expire(suspended))) throw takenByOther(runId);
      throw new ApprovalExpiredError(runId, suspended.expiresAt);
    }
    return { record, plan: { runId, decisions, decidedBy: request.auth?.subject } };
  }

  /** Takes an expired paused run out of the store and records it `expired`; false when another call took it first. */
  private async expire(suspended: SuspendedRun): Promise<boolean> {
    const taken = await approvalStore(this.options.store)?.takeSuspendedRun(suspended.runId);
    if (!taken) return false;
    await this.options.store.updateRun(suspended.runId, { status: 'expired', error: expiredError(suspended.expiresAt) });
    await this.options.store.appendAudit({
      threadId: suspended.threadId,
      runId: suspended.runId,
      kind: 'approval_expired',
      data: { expires_at: suspended.expiresAt, approvals: suspended.approvals.map((a) => a.id) },
    });
    return true;
  }

  /** Under the thread lock: the paused run to resume, taken from the store so no other call can. */
  async claim(threadId: string, plan: ResumePlan): Promise<SuspendedRun> {
    const store = approvalStore(this.options.store);
    const taken = await store?.takeSuspendedRun(plan.runId);
    if (!store || !taken || taken.threadId !== threadId) throw takenByOther(plan.runId);
    if (this.isExpired(taken)) {
      await this.options.store.updateRun(taken.runId, { status: 'expired', error: expiredError(taken.expiresAt) });
      throw new ApprovalExpiredError(taken.runId, taken.expiresAt);
    }
    try {
      // The record may have been replaced since the decisions were checked (the run paused again).
      plan.decisions = checkDecisions(plan.decisions, taken.approvals);
    } catch (error) {
      const { createdAt: _created, ...again } = taken;
      await store.saveSuspendedRun(again);
      throw error instanceof ApprovalDecisionError
        ? new ApprovalConflictError(`run ${JSON.stringify(plan.runId)} changed while deciding: ${error.message}`)
        : error;
    }
    return taken;
  }

  /** Under the thread lock: a paused run blocks new runs on its thread until decided; an expired one is closed. */
  async refuseWhileAwaiting(threadId: string): Promise<void> {
    const store = approvalStore(this.options.store);
    if (!store) return;
    for (const suspended of await store.listSuspendedRuns(threadId)) {
      if (this.isExpired(suspended)) await this.expire(suspended);
      else throw new ThreadAwaitingApprovalError(threadId, suspended.runId);
    }
  }
}
