import { z } from 'zod';
import { DelegateTaskArgsSchema, ResponsePackageSchema, type DelegateTaskArgs, type ResponsePackage } from './delegation.js';
import { ActionTypeSchema, DecisionSchema, FindingSchema } from './guardrail.js';
import { AgentIdSchema } from './ids.js';
import type { GuardrailDecisionRecord, RunExecutor, RunRequest, RunResult } from './run.js';

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

/** The most boundary decisions one task result may carry (a task makes a few per attempt). */
export const MAX_DELEGATED_TASK_DECISIONS = 64;
/** The most findings one carried decision may list. */
const MAX_CARRIED_FINDINGS = 256;
/** A reason code: upper snake case, bounded (it is recorded in audit, spans and events). */
const REASON_CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
/** A carried finding's detector or type: printable ASCII (no control or invisible characters), bounded. */
const FINDING_NAME = z
  .string()
  .max(128)
  .regex(/^[\x20-\x7e]*$/);

/**
 * A finding that crossed a process boundary: {@link FindingSchema} with every string bounded
 * (detector and type go into the parent's audit, the path into its run result) and an end that
 * is not before its start. A guardrail's own findings fit: its JSON pointers are at most 256
 * characters (`MAX_POINTER_CHARS` of the guardrail server).
 */
const CarriedFindingSchema = FindingSchema.extend({
  detector: FINDING_NAME,
  type: FINDING_NAME,
  path: z.string().max(256).optional(),
}).refine((f) => f.start <= f.end, { message: 'end must not be before start', path: ['end'] });

/**
 * A {@link GuardrailDecisionRecord} that crossed a process boundary (a worker's answer): only a
 * boundary's action types (AGENT_INPUT, AGENT_RESPONSE), a real decision, a code, a reverse-DNS
 * agent id and well-formed findings. Anything else is refused, never read in part: the record
 * goes into the parent's audit.
 */
export const GuardrailDecisionRecordSchema: z.ZodType<GuardrailDecisionRecord> = z
  .object({
    action_type: ActionTypeSchema.extract(['AGENT_INPUT', 'AGENT_RESPONSE']),
    decision: DecisionSchema,
    reason_code: z.string().max(128).regex(REASON_CODE),
    // A DNS name's length: the schema's labels are bounded, their number is not.
    agent_id: z.string().max(253).pipe(AgentIdSchema),
    findings: z.array(CarriedFindingSchema).max(MAX_CARRIED_FINDINGS).optional(),
  })
  .strict();

/**
 * What running a {@link DelegatedTask} elsewhere answers (`Delegation.runDelegated`, a
 * dispatcher, a queue job's return value): the subagent's ResponsePackage and the boundary
 * decisions made on the way (its input, its yields), for the delegating run to record like its
 * own. JSON-serialisable.
 */
export interface DelegatedTaskResult {
  response: ResponsePackage;
  guardrail_decisions: GuardrailDecisionRecord[];
}

/** Validates a {@link DelegatedTaskResult} that came back from elsewhere. Strict: unknown keys are refused. */
export const DelegatedTaskResultSchema = z
  .object({
    response: ResponsePackageSchema,
    guardrail_decisions: z.array(GuardrailDecisionRecordSchema).max(MAX_DELEGATED_TASK_DECISIONS),
  })
  .strict();

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
