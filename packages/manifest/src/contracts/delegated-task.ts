import { z } from 'zod';
import { DelegateTaskArgsSchema, ResponsePackageSchema, type DelegateTaskArgs, type ResponsePackage } from './delegation.js';
import type { RunExecutor, RunRequest, RunResult } from './run.js';

/**
 * The one schema of a `DelegatedTask` in transit (queue job data, `Delegation.runDelegated`).
 * Strict throughout: `args` is the strict `delegate_task` schema (defaults applied) and unknown
 * keys in the envelope, `scope` or `context` are refused. Two copies used to disagree —
 * @baton/skills dropped unknown envelope keys and @baton/queue accepted any `args` — and the
 * strict reading of both is the one kept: data a worker does not fully understand is refused
 * (job data is versioned for exactly that), never half-read.
 */
export const DelegatedTaskSchema = z
  .object({
    args: DelegateTaskArgsSchema,
    scope: z
      .object({
        depth: z.number().int().nonnegative(),
        maxDepth: z.number().int().positive(),
        lineage: z.array(z.string()),
      })
      .strict(),
    context: z
      .object({
        threadId: z.string().optional(),
        runId: z.string().optional(),
        agentId: z.string().optional(),
        traceparent: z.string().optional(),
        tracestate: z.string().optional(),
        idempotencyKey: z.string().min(1).optional(),
      })
      .strict(),
  })
  .strict();

/** Where a delegation stands: the parent's depth, the limit, and who is already in the chain. */
export interface DelegationScope {
  /** Depth of the delegating (parent) agent: 0 top level. */
  depth: number;
  maxDepth: number;
  /** Agents and skills from the top down to the parent (loop detection). */
  lineage: string[];
}

/** The parts of the caller's context a dispatched task carries (all optional strings). */
export interface DelegatedTaskContext {
  threadId?: string;
  runId?: string;
  agentId?: string;
  traceparent?: string;
  tracestate?: string;
  idempotencyKey?: string;
}

/**
 * One `delegate_task` call on its way to run somewhere else (a queue, another process or
 * machine). JSON-serialisable: it travels in job data. @baton/skills' `Delegation.runDelegated`
 * runs it; @baton/queue's dispatcher carries it.
 */
export interface DelegatedTask {
  /** The `delegate_task` arguments as received, already schema-validated (defaults applied). */
  args: DelegateTaskArgs;
  /** The parent's scope, exactly as the delegating side computed it. */
  scope: DelegationScope;
  context: DelegatedTaskContext;
}

/** One changed file in an {@link EditLedgerEntry}: workspace-relative path and post-image hash. */
export interface EditLedgerFile {
  path: string;
  /** SHA-256 (hex) of the content after the edits; null = the edits delete the file. */
  sha256: string | null;
}

/** One write-ahead record of a task's edits, per task key (any edit ledger: memory, files, Redis). */
export interface EditLedgerEntry {
  /** `pending`: recorded just before writing; `applied`: written and every check passed. */
  state: 'pending' | 'applied';
  /** Post-image per changed file. */
  files: EditLedgerFile[];
  /** The ResponsePackage the task returns once its edits stand. */
  response: ResponsePackage;
  /** ISO-8601 time of the record. */
  at: string;
}

/** Validates an {@link EditLedgerEntry} (e.g. read back from a store). */
export const EditLedgerEntrySchema = z
  .object({
    state: z.enum(['pending', 'applied']),
    files: z.array(
      z
        .object({
          path: z.string().min(1),
          sha256: z
            .string()
            .regex(/^[0-9a-f]{64}$/)
            .nullable(),
        })
        .strict(),
    ),
    response: ResponsePackageSchema,
    at: z.string().min(1),
  })
  .strict();

/** What delegation asks of an in-process subagent run: the part of {@link RunRequest} it sets. */
export type SubagentRunRequest = Pick<
  RunRequest,
  'agentId' | 'input' | 'systemTools' | 'depth' | 'maxTurns' | 'signal' | 'traceparent' | 'tracestate' | 'idempotencyKey' | 'inputBoundary'
>;

/** What delegation reads from a subagent's {@link RunResult}. */
export type SubagentRunResult = Pick<RunResult, 'status' | 'response' | 'error' | 'terminal'>;

/** Anything that runs an in-process subagent: a {@link RunExecutor} read through the subagent subset (the Baton `Runner` fits). */
export type SubagentRunner = RunExecutor<SubagentRunRequest, SubagentRunResult>;
