import { HANDOFF_PROTOCOL_NAME } from '@baton/manifest';
import { trace, type Context } from '@opentelemetry/api';
import { toErrorInfo } from '../errors.js';
import type { RegisteredAgent } from '../registry/types.js';
import type { JsonObject, RunStatus, SuspendedRun } from '../store/types.js';
import { suspendAgentRun } from './approval-flow.js';
import type { ResumePlan } from './approval-gate.js';
import { requiredActionOf } from './approvals.js';
import type { AgentRunState, CallState } from './call-state.js';
import type { RunnerContext } from './context.js';
import { createEventSink, decisionEvent, type RunnerEventSink } from './events.js';
import { checkGuardrail, type GuardrailCheckerOptions, type RecordedDecision } from './guardrails.js';
import { runHandoff } from './handoff.js';
import type { AgentRunOutcome } from './in-process-agent.js';
import { checkInputAndLaunch } from './input-check.js';
import { launchAgent } from './launch.js';
import { ResponseRelease } from './response-release.js';
import { endSpan } from './tracing.js';
import type { PreparedHandoff, RequiredAction, RunRequest, RunSummary } from './types.js';
import type { WriteBuffer } from './write-buffer.js';

const REFUSAL = 'I can’t share that response: it was withheld by a guardrail.';

/** One call's chain of agent runs: the first agent, then each one it hands off to. */
export interface ChainOptions {
  /** The caller's request (input, auth, listeners, per-call tools and limits). */
  request: RunRequest;
  /** The agent the chain starts with. */
  first: RegisteredAgent;
  /** The thread, already locked by this call. */
  threadId: string;
  /** The call's root span context. */
  rootContext: Context;
  /** Aborts on timeout or the caller's signal. */
  signal: AbortSignal;
  /** Whether an abort was the run timeout (expired) rather than the caller (cancelled). */
  timedOut: () => boolean;
  /** The call's buffered writes; the caller flushes them, also when the chain throws. */
  writes: WriteBuffer;
  /** Continue a paused run instead of starting one. */
  resume?: ResumePlan;
  /** The thread was created by this call, already locked: it has no earlier items to read. */
  freshThread?: boolean;
}

/** What a chain did: the runs and decisions so far, kept even when it throws (see ChainInterrupted). */
export interface ChainProgress {
  /** Every run the chain started, in order, with its final status. */
  runs: RunSummary[];
  /** Every guardrail decision of the call. */
  decisions: RecordedDecision[];
}

/** How the last run of the chain ended. */
export interface ChainEnd {
  status: RunStatus;
  response: string | null;
  terminal?: { name: string; arguments: JsonObject };
  requiredAction?: RequiredAction;
  error?: { code: string; message: string };
}

/** A finished chain. */
export type ChainOutcome = ChainEnd & ChainProgress;

/**
 * A chain that threw (store failure, lock loss): `cause` is what it threw, `progress` what it had
 * done, so the failed result still lists its runs and decisions.
 */
export class ChainInterrupted extends Error {
  constructor(
    readonly progress: ChainProgress,
    override readonly cause: unknown,
  ) {
    super('the run chain was interrupted');
  }
}

/** Runs the chain to its end; throws only ChainInterrupted. */
export async function runChain(ctx: RunnerContext, options: ChainOptions): Promise<ChainOutcome> {
  const progress: ChainProgress = { runs: [], decisions: [] };
  try {
    return { ...(await runSteps(ctx, options, progress)), ...progress };
  } catch (error) {
    throw new ChainInterrupted(progress, error);
  }
}

async function runSteps(ctx: RunnerContext, options: ChainOptions, progress: ChainProgress): Promise<ChainEnd> {
  const { request, first, threadId, rootContext, signal, timedOut, writes, resume } = options;
  const { runs, decisions } = progress;
  let sequence = 0;
  const events = createEventSink([request.onEvent, ctx.options.onEvent], ctx.logger);
  const guard: GuardrailCheckerOptions = {
    checker: ctx.checker,
    tracing: ctx.tracing,
    store: ctx.store,
    writes,
    decisions,
    ...(events.active ? { onDecision: (d, runId, about) => events.emit(decisionEvent(d, runId, about)) } : {}),
  };
  const call: CallState = {
    threadId,
    auth: request.auth ?? {},
    depth: request.depth ?? 0,
    signal,
    store: ctx.store,
    writes,
    tracing: ctx.tracing,
    guard,
    validator: ctx.validator,
    tools: ctx.options.tools ?? {},
    systemTools: ctx.systemTools,
    requestSystemTools: request.systemTools ?? [],
    maxTurns: request.maxTurns ?? ctx.limits.maxTurns,
    nextSequence: () => ++sequence,
    onModelRequest: ctx.options.onModelRequest,
    fetch: ctx.options.fetch ?? globalThis.fetch,
    logger: ctx.logger,
    idempotencyKey: request.idempotencyKey,
    toolPolicy: ctx.toolPolicy,
    events,
    // Nobody to stream to: the answer is checked once, as without streaming.
    stream: request.stream === true && events.active,
    ...(options.freshThread ? { freshThread: true } : {}),
  };

  let agent = first;
  let input = request.input;
  let parentRunId: string | null = null;
  // A gate outside the runner may have prepared the first input (delegation): same boundary as a handoff.
  let prepared: PreparedHandoff | undefined = request.inputBoundary ? { ...request.inputBoundary, input: request.input } : undefined;
  const chain: string[] = [];
  let handoffs = 0;
  // The honoured handoff that leads to the next run, reported once that run exists.
  let handedOff: { from_run_id: string; from_agent_id: string; packet_id?: string } | undefined;

  // The paused run continues under its own id; a handoff from it starts a new one as usual.
  let resuming = resume?.suspended ? { plan: resume, suspended: resume.suspended } : undefined;
  if (resuming) {
    // The handoffs that led to the paused run still count: the limit and the loop check carry on
    // from them instead of starting again after every approval.
    const before = await handoffLineage(ctx.store, resuming.suspended.runId, ctx.limits.maxHandoffs);
    chain.push(...before);
    handoffs = before.length;
  }
  for (;;) {
    chain.push(agent.manifest.id);
    // A new run is committed with its first writes (the next flush), not in a transaction of its
    // own; a resumed run already exists and goes back to in_progress at once, in a fenced batch
    // (a worker that lost the thread's lock must not mark the new holder's run as its own).
    let record: { id: string };
    try {
      record = resuming
        ? await resumeRun(writes, resuming.suspended.runId)
        : {
            id: await writes.createRun(threadId, {
              agentId: agent.manifest.id,
              agentVersion: agent.manifest.version,
              parentRunId,
              status: 'in_progress',
              traceId: trace.getSpanContext(rootContext)?.traceId ?? null,
            }),
          };
    } catch (error) {
      if (handedOff) events.emit({ type: 'handoff', thread_id: threadId, ...handedOff, to_agent_id: agent.manifest.id });
      throw error;
    }
    if (handedOff)
      events.emit({ type: 'handoff', thread_id: threadId, ...handedOff, to_agent_id: agent.manifest.id, to_run_id: record.id });
    events.emit({ type: 'run_start', thread_id: threadId, run_id: record.id, agent_id: agent.manifest.id });
    const summary: RunSummary = {
      run_id: record.id,
      agent_id: agent.manifest.id,
      agent_version: agent.manifest.version,
      status: 'in_progress',
    };
    runs.push(summary);
    const scope = ctx.tracing.start('baton.agent_run', rootContext, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent.manifest.name,
      'gen_ai.agent.id': agent.manifest.id,
      'baton.agent.version': agent.manifest.version,
      'baton.run.id': record.id,
      'baton.thread.id': threadId,
      'baton.agent.mode': agent.deployment.mode,
    });
    // A resumed run keeps its suspended record until its final status commits: a worker that dies
    // before then leaves the record, so the decisions can be submitted again (see ApprovalGate.claim).
    const resumedRunId = resuming?.suspended.runId;
    const finish = async (status: RunStatus, error?: { code: string; message: string }) => {
      summary.status = status;
      if (error) summary.error = error;
      // No flush of its own: the next boundary (the next agent's first model call, or the end
      // of the call) commits it, with the writes around it.
      await writes.updateRun(record.id, { status, error: error ?? null });
      // Paused again: suspendAgentRun already replaced the record with the new one.
      if (resumedRunId === record.id && status !== 'requires_action') await writes.deleteSuspendedRun(threadId, record.id);
      scope.span.setAttribute('baton.run.status', status);
      endSpan(scope.span, status === 'completed' || status === 'cancelled' ? undefined : error);
      events.emit({ type: 'run_end', thread_id: threadId, run_id: record.id, agent_id: agent.manifest.id, status });
    };
    const abortInfo = () =>
      timedOut()
        ? { status: 'expired' as const, error: { code: 'RUN_TIMEOUT', message: `the run took longer than ${ctx.limits.runTimeoutMs} ms` } }
        : { status: 'cancelled' as const, error: { code: 'ABORTED', message: 'the caller aborted the run' } };

    const run: AgentRunState = {
      agent,
      runId: record.id,
      context: scope.context,
      handoffRequests: new Map(),
      ordinal: chain.length - 1,
      counters: { toolCalls: 0, stateMerges: 0 },
      release: responseRelease(ctx, guard, events, agent.manifest.id, threadId, record.id, scope.context, signal),
    };
    let outcome: AgentRunOutcome;
    const resumeNow = resuming;
    resuming = undefined;
    try {
      outcome = resumeNow
        ? await withAbort(signal, launchAgent(ctx, { call, run, input, prepared: undefined, signal, resume: resumeNow }))
        : (await withAbort(signal, checkInputAndLaunch(ctx, { call, run, input, prepared }))).outcome;
    } catch (error) {
      if (!signal.aborted) {
        const info = toErrorInfo(error, 'RUNNER_ERROR');
        await finish('failed', info);
        return { status: 'failed', response: null, error: info };
      }
      const info = abortInfo();
      await finish(info.status, info.error);
      return { status: info.status, response: null, error: info.error };
    }
    if (signal.aborted) {
      const info = abortInfo();
      await finish(info.status, info.error);
      return { status: info.status, response: null, error: info.error };
    }

    if (outcome.kind === 'error') {
      await finish('failed', outcome.error);
      return { status: 'failed', response: null, error: outcome.error };
    }
    if (outcome.kind === 'interrupted') {
      const expiresAt = new Date(ctx.clock().getTime() + ctx.limits.approvalTimeoutMs).toISOString();
      let suspended: SuspendedRun;
      try {
        suspended = await suspendAgentRun({
          store: ctx.store,
          seal: ctx.seal,
          call,
          run,
          state: outcome.state,
          calls: outcome.calls,
          expiresAt,
        });
      } catch (error) {
        // Not kept means not resumable: the run ends here and the waiting calls never run.
        const info = toErrorInfo(error, 'APPROVAL_SUSPEND_FAILED');
        await finish('failed', info);
        return { status: 'failed', response: null, error: info };
      }
      await finish('requires_action');
      return { status: 'requires_action', response: null, requiredAction: requiredActionOf(suspended) };
    }
    if (outcome.kind === 'terminal') {
      await finish('completed');
      return { status: 'completed', response: null, terminal: { name: outcome.name, arguments: outcome.arguments } };
    }
    if (outcome.kind === 'final') {
      const text = outcome.text;
      if (text === null) {
        await finish('completed');
        return { status: 'completed', response: null };
      }
      const verdict = await run.release.finish(text);
      const response = verdict.decision === 'BLOCK' ? REFUSAL : verdict.text;
      await writes.appendItems(threadId, record.id, [
        { type: 'message', role: 'assistant', content: response, ...(verdict.decision === 'ALLOW' ? {} : { guardrail: verdict.decision }) },
      ]);
      await finish('completed');
      return { status: 'completed', response };
    }

    // system::handoff
    const next = await runHandoff(ctx, { call, run, outcome, chain, handoffsSoFar: handoffs, parent: scope.context });
    if (!next.ok) {
      await finish('failed', next.error);
      return { status: 'failed', response: null, error: next.error };
    }
    await finish('cancelled', { code: 'HANDED_OFF', message: `handed off to ${next.target.manifest.id} (${HANDOFF_PROTOCOL_NAME})` });
    handoffs++;
    handedOff = {
      from_run_id: record.id,
      from_agent_id: agent.manifest.id,
      ...(next.prepared?.packetId !== undefined ? { packet_id: next.prepared.packetId } : {}),
    };
    agent = next.target;
    input = next.input;
    prepared = next.prepared;
    parentRunId = record.id;
  }
}

/** One agent run's answer release: every check through the runner's checker, text as `text_delta` events. */
function responseRelease(
  ctx: RunnerContext,
  guard: GuardrailCheckerOptions,
  events: RunnerEventSink,
  agentId: string,
  threadId: string,
  runId: string,
  parent: Context,
  signal: AbortSignal,
): ResponseRelease {
  return new ResponseRelease({
    check: (text) => checkGuardrail(guard, { actionType: 'AGENT_RESPONSE', payload: text, agentId, threadId, runId, parent, signal }),
    emit: async (text) => {
      events.emit({ type: 'text_delta', run_id: runId, agent_id: agentId, text });
      await events.idle(signal);
    },
    recordBlock: (reasonCode) => {
      const decision: RecordedDecision = { action_type: 'AGENT_RESPONSE', decision: 'BLOCK', reason_code: reasonCode, agent_id: agentId };
      guard.decisions.push(decision);
      guard.onDecision?.(decision, runId);
    },
    ...(ctx.options.streamSegmentMaxChars !== undefined ? { maxSegmentChars: ctx.options.streamSegmentMaxChars } : {}),
  });
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts (a tool that ignores aborts cannot hold a run open). */
function withAbort<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * The agents whose runs handed off, in order, up to `runId`'s run (not included), read back along
 * `parentRunId`. The walk stops after `maxHandoffs + 1` steps: more cannot have been honoured.
 */
async function handoffLineage(store: RunnerContext['store'], runId: string, maxHandoffs: number): Promise<string[]> {
  const agents: string[] = [];
  let run = await store.getRun(runId);
  for (let step = 0; run?.parentRunId && step <= maxHandoffs; step++) {
    run = await store.getRun(run.parentRunId);
    if (run) agents.unshift(run.agentId);
  }
  return agents;
}

/** Puts a resumed run back to `in_progress`, committed now (fenced by the call's lock when the store batches). */
async function resumeRun(writes: WriteBuffer, runId: string): Promise<{ id: string }> {
  await writes.updateRun(runId, { status: 'in_progress', error: null });
  await writes.flush();
  return { id: runId };
}
