/**
 * The guardrail engine: runs the detectors a policy asks for over a request's payload and turns
 * their findings into one decision (ALLOW, MODIFY or BLOCK). Synchronous and allocation-light on
 * the hot path (`validateSync`); `validate` wraps it for the GuardrailValidator interface.
 *
 * Same request, same decision - except for tool policy, whose thread state depends on earlier
 * TOOL_OUTPUT requests for the same thread_id (by design).
 */
import type { Finding, GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { indexSystemPrompts } from './detectors/system-prompt-leak.js';
import type { DetectedSpan } from './detectors/types.js';
import type { Detector, DetectorInput } from './detector.js';
import { builtInDetectors, toolPolicyDetector } from './engine-detectors.js';
import { WARM_UP_REQUESTS } from './engine-warm-up.js';
import { REASONS, reasonOf, type ReasonCode } from './engine-reasons.js';
import { DEFAULT_POLICY, PolicySchema, type Policy, type PolicyInput } from './policy/schema.js';
import { PolicyError } from './errors.js';
import { applyReplacements, KeyCollisionError, placeholderFor, type Replacement } from './redact.js';
import { ThreadTaintTracker } from './tool-policy.js';
import { assertEngineRequest } from './request.js';
import { ENGINE_INTERNALS, taintCallOf, type DecisionVariants, type EngineInternals, type TaintCall } from './engine-internals.js';
import { payloadFields, rebuildPayload, type Field, type PayloadFields } from './payload.js';
import { child, MAX_POINTER_CHARS, pointerOf, type PathNode } from './payload-path.js';
import { foldForMatching, type FoldedView } from './text/fold-map.js';
import { BUDGET_CLOCK_IS_CPU_TIME, budgetClock } from './budget-clock.js';

/** Options for {@link createGuardrailEngine}. */
export interface GuardrailEngineOptions {
  /** The policy (validated; partial input is completed with defaults). Default: DEFAULT_POLICY. */
  policy?: Policy | PolicyInput;
  /** System prompts to detect leaks of (added to the policy's `leakage.system_prompts`). */
  systemPrompts?: string[];
  /** Canary tokens (added to the policy's `leakage.canaries`). */
  canaries?: string[];
  /** Work allowed per request; past it the answer is BLOCK `PAYLOAD_TOO_COMPLEX`. */
  budget?: GuardrailBudget;
  /** Clock for the time budget, in milliseconds. Default: this thread's CPU time where Node can tell, else `performance.now` (see budget-clock.ts). */
  now?: () => number;
  /**
   * Wall clock, in milliseconds, for the wall-clock ceiling of a request: `WALL_CEILING_FACTOR` ×
   * `timeMs` of wall-clock time, past which the request is refused (PAYLOAD_TOO_COMPLEX) whatever
   * the budget clock says. Applies when the budget clock is CPU time (the default where Node can
   * tell) or when this is given. Default: `performance.now`.
   */
  wallNow?: () => number;
}

/**
 * The wall-clock ceiling of a request, in multiples of `timeMs`. On CPU time the budget no longer
 * bounds how long an inspection holds its thread on a loaded machine; in the event loop (`workers:
 * 0`, small bodies) that thread is the service's, so a ceiling keeps a stall bounded (2 s with the
 * default 500 ms budget). Generous, so load alone rarely reaches it: an ordinary request costs
 * milliseconds of CPU. Workers are bounded anyway (terminated after `timeMs + workerGraceMs`).
 */
export const WALL_CEILING_FACTOR = 4;

/** How much work one request may cost before it is refused as too complex. */
export interface GuardrailBudget {
  /** Milliseconds of inspection per request (behind the HTTP service: parsing included). Default 500. */
  timeMs?: number;
  /** Findings per request (every match counts). Default 2,000. */
  maxFindings?: number;
  /** Findings listed in an answer; the rest are counted in `reason_message`. Default 100. */
  maxReportedFindings?: number;
}

// Paths of the listed findings together: long keys can't make the list outgrow the request.
const MAX_LISTED_PATH_CHARS = 8192;

/** The defaults of {@link GuardrailBudget}. */
export const DEFAULT_BUDGET: Readonly<Required<GuardrailBudget>> = { timeMs: 500, maxFindings: 2000, maxReportedFindings: 100 };

/** The in-process guardrail engine. */
export interface GuardrailEngine extends GuardrailValidator {
  /** Decides synchronously. Never throws for a valid request. */
  validateSync(request: GuardrailRequest): GuardrailResponse;
  /** The effective policy. */
  readonly policy: Policy;
}

type Decision = 'ALLOW' | 'MODIFY' | 'BLOCK';

/** A detector's verdict on one field, as the engine keeps it. */
interface Verdict {
  decision: Decision;
  reason: ReasonCode | 'OK';
  detector: string;
  field: Field;
  spans: DetectedSpan[];
  /** For MODIFY: replacements within `field.text`. */
  replacements: Replacement[];
}

const rankOf = (reason: ReasonCode | 'OK'): number => REASONS[reason].rank;

function toFinding(detector: string, field: Field, s: DetectedSpan, rename: ReadonlyMap<PathNode, string>): Finding {
  const f: Finding = {
    detector,
    type: s.type,
    severity: s.severity,
    path: pointerOf(field.node, MAX_POINTER_CHARS, rename),
    start: s.start,
    end: s.end,
  };
  if (s.score !== undefined) f.score = s.score;
  return f;
}

/**
 * Keys that had findings, by node, in their redacted form: a finding's path must not spell out
 * the card number or token that was used as a key on the way to it.
 */
function redactedKeys(verdicts: readonly Verdict[]): Map<PathNode, string> {
  const spans = new Map<Field, Replacement[]>();
  for (const v of verdicts) {
    if (!v.field.isKey || !v.field.node) continue;
    const list = spans.get(v.field) ?? [];
    for (const s of v.spans) list.push({ start: s.start, end: s.end, with: placeholderFor(v.detector, s.type) });
    spans.set(v.field, list);
  }
  const out = new Map<PathNode, string>();
  for (const [field, reps] of spans) out.set(field.node!, applyReplacements(field.text, reps));
  return out;
}

function uniqueTypes(spans: readonly DetectedSpan[]): string {
  return [...new Set(spans.map((s) => s.type))].sort().join(', ');
}

/** The request took more than its budget: answered BLOCK `PAYLOAD_TOO_COMPLEX`. */
class BudgetExceeded extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

/** A detector threw: answered BLOCK `DETECTOR_FAILED` (fail closed). */
class DetectorFailed extends Error {
  constructor(
    readonly detector: string,
    cause: unknown,
  ) {
    super(`the ${detector} detector failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Whether this isolate has run the warm-up inspections (see engine-warm-up.ts). */
let warmedUp = false;

/** Creates an engine for a policy. Throws {@link PolicyError} when the policy is invalid. */
export function createGuardrailEngine(options: GuardrailEngineOptions = {}): GuardrailEngine {
  return createEngine(options);
}

/**
 * Internal (not exported from the package): an engine that runs `detectors` (default: the
 * built-in ones for the policy) in order over every field. Tests use it to run custom lists.
 */
export function createEngine(options: GuardrailEngineOptions, detectors?: (policy: Policy) => readonly Detector[]): GuardrailEngine {
  const parsed = PolicySchema.safeParse(options.policy ?? DEFAULT_POLICY);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PolicyError(`policy.${issue.path.join('.')}: ${issue.message}`, { cause: parsed.error });
  }
  const policy = parsed.data;
  const budget = resolveBudget(options.budget);
  const now = options.now ?? budgetClock;
  // Not with an injected wall-clock budget clock alone: there the budget is the wall bound.
  const wallNow = options.wallNow ?? (options.now === undefined && BUDGET_CLOCK_IS_CPU_TIME ? () => performance.now() : undefined);
  const canaries = [...policy.leakage.canaries, ...(options.canaries ?? [])];
  const promptIndex = indexSystemPrompts([...policy.leakage.system_prompts, ...(options.systemPrompts ?? [])], policy.leakage.min_words);
  const list = detectors ? detectors(policy) : builtInDetectors(policy, { canaries, promptIndex });
  // Per action type, the detectors that inspect it: looked up once per field, not per detector.
  const byType = new Map<GuardrailRequest['action_type'], readonly Detector[]>();
  for (const type of ['AGENT_INPUT', 'AGENT_RESPONSE', 'TOOL_CALL', 'TOOL_OUTPUT', 'AGENT_HANDOFF'] as const)
    byType.set(
      type,
      list.filter((d) => d.actionTypes.has(type)),
    );
  const sinkTools = new Set(policy.tool_policy.sink_tools);
  const taint = new ThreadTaintTracker({
    sourceTools: policy.tool_policy.source_tools,
    sinkTools: policy.tool_policy.sink_tools,
    maxThreads: policy.tool_policy.max_threads,
  });

  /** Per request: the deadline and the running count of findings. */
  interface Work {
    deadline: number;
    /** The wall-clock ceiling (`wallNow`), when one applies. */
    wallDeadline?: number;
    findings: number;
  }

  function charge(work: Work, spans: number): void {
    work.findings += spans;
    if (work.findings > budget.maxFindings) throw new BudgetExceeded(`more than ${budget.maxFindings} findings`);
    if (now() > work.deadline) throw new BudgetExceeded(`more than ${budget.timeMs} ms of inspection`);
    if (work.wallDeadline !== undefined && wallNow!() > work.wallDeadline)
      throw new BudgetExceeded(`more than ${budget.timeMs * WALL_CEILING_FACTOR} ms of wall-clock time`);
  }

  /** Runs every detector that inspects this action type over one field, in order. */
  function inspect(request: GuardrailRequest, field: Field, verdicts: Verdict[], work: Work, reports: Verdict[]): void {
    const text = field.text;
    if (text.length === 0) return;
    const input = new FieldInput(request, field);
    for (const detector of byType.get(request.action_type) ?? []) {
      let out;
      try {
        out = detector.inspect(input);
      } catch (err) {
        // Deep nesting surfaces as RangeError: answered PAYLOAD_TOO_COMPLEX like the traversal's.
        if (err instanceof RangeError || err instanceof BudgetExceeded) throw err;
        throw new DetectorFailed(detector.name, err);
      }
      let matches = 0;
      for (const v of out.verdicts) {
        // A verdict the reason table can't stand behind is the detector's failure, not an ALLOW.
        if (
          !Object.hasOwn(REASONS, v.reason) ||
          REASONS[v.reason].decision !== v.decision ||
          (v.decision === 'MODIFY' && !detector.redacts)
        ) {
          throw new DetectorFailed(
            detector.name,
            new Error(`it answered ${String(v.decision)} ${String(v.reason)}, which the reason table does not allow for it`),
          );
        }
        const verdict: Verdict = { ...v, detector: v.detector ?? detector.name, field };
        if (v.decision === 'ALLOW') reports.push(verdict);
        else {
          matches += v.spans.length;
          verdicts.push(verdict);
        }
      }
      charge(work, out.matches ?? matches);
    }
  }

  function modifiedPayload(request: GuardrailRequest, parsedPayload: PayloadFields, verdicts: readonly Verdict[]): unknown {
    // All MODIFY replacements of a field applied together; edits kept by field index.
    const reps: Array<Replacement[] | undefined> = [];
    for (const v of verdicts) {
      if (v.decision !== 'MODIFY') continue;
      (reps[v.field.index] ??= []).push(...v.replacements);
    }
    const edits: Array<string | undefined> = [];
    reps.forEach((r, i) => {
      if (r) edits[i] = applyReplacements(parsedPayload.fields[i]!.text, r);
    });
    return rebuildPayload(request, parsedPayload, edits);
  }

  function respond(
    request: GuardrailRequest,
    decision: Decision,
    reason: string,
    message: string,
    verdicts: readonly Verdict[],
    payload?: unknown,
    reports: readonly Verdict[] = [],
  ): GuardrailResponse {
    const res: GuardrailResponse = { action_id: request.action_id, decision, reason_code: reason, reason_message: message };
    // Report-only findings (the injection grey band) ride along with any decision, ALLOW included.
    const shown = decision === 'ALLOW' ? reports : [...verdicts, ...reports];
    if (decision !== 'ALLOW' || shown.length > 0) {
      // At most maxReportedFindings, so an answer stays about as small as its request.
      const findings: Finding[] = [];
      const rename = redactedKeys(shown);
      let total = 0;
      let pathChars = 0;
      let full = false;
      for (const v of shown) {
        for (const s of v.spans) {
          total++;
          if (full) continue;
          const f = toFinding(v.detector, v.field, s, rename);
          pathChars += f.path?.length ?? 0;
          if (findings.length >= budget.maxReportedFindings || pathChars > MAX_LISTED_PATH_CHARS) full = true;
          else findings.push(f);
        }
      }
      res.findings = findings;
      if (total > findings.length) res.reason_message = `${message} ${total} findings; the first ${findings.length} are listed.`;
    }
    if (decision === 'MODIFY') res.modified_payload = payload;
    return res;
  }

  function tooComplex(request: GuardrailRequest, why: string): GuardrailResponse {
    return respond(
      request,
      'BLOCK',
      'PAYLOAD_TOO_COMPLEX',
      `Blocked: the payload could not be inspected within the guardrail's budget (${why}).`,
      [],
    );
  }

  /** Records a TOOL_OUTPUT's taint; for a TOOL_CALL, whether the thread's taint forbids it. */
  function taintStep(call: TaintCall): boolean {
    if (call.action_type === 'TOOL_OUTPUT') taint.recordToolOutput(call.thread_id, call.tool);
    if (call.action_type === 'TOOL_CALL') return taint.checkToolCall(call.thread_id, call.tool) !== undefined;
    return false;
  }

  /**
   * The decision on the payload's content, and - when `withTaint` and the request calls a sink
   * tool - the decision for a tainted thread too, from one inspection. Stateless.
   */
  function decideVariants(request: GuardrailRequest, withTaint: boolean, startedAt?: number): DecisionVariants {
    const taintable = withTaint && request.action_type === 'TOOL_CALL' && sinkTools.has(request.payload.function.name);
    const work: Work = {
      deadline: (startedAt ?? now()) + budget.timeMs,
      ...(wallNow ? { wallDeadline: wallNow() + budget.timeMs * WALL_CEILING_FACTOR } : {}),
      findings: 0,
    };
    const verdicts: Verdict[] = [];
    const reports: Verdict[] = [];
    let parsedPayload: PayloadFields;
    try {
      parsedPayload = payloadFields(request);
      for (const f of parsedPayload.fields) inspect(request, f, verdicts, work, reports);
    } catch (err) {
      let res: GuardrailResponse;
      if (err instanceof BudgetExceeded) res = tooComplex(request, err.why);
      // Only reachable for payloads nested deeper than any sane request: fail closed.
      else if (err instanceof RangeError)
        res = respond(request, 'BLOCK', 'PAYLOAD_TOO_COMPLEX', `The payload could not be inspected: ${err.message}.`, []);
      else if (err instanceof DetectorFailed) res = respond(request, 'BLOCK', 'DETECTOR_FAILED', `Blocked: ${err.message}.`, []);
      else throw err;
      return taintable ? { plain: res, tainted: res } : { plain: res };
    }
    const plain = combine(request, parsedPayload, verdicts, reports);
    if (!taintable || request.action_type !== 'TOOL_CALL') return { plain };
    const name = request.payload.function.name;
    const field: Field = { index: -1, text: name, node: FUNCTION_NAME, isKey: false, where: 'the tool call' };
    const taintVerdicts: Verdict[] = toolPolicyDetector
      .inspect(new FieldInput(request, field))
      .verdicts.map((v) => ({ ...v, detector: v.detector ?? toolPolicyDetector.name, field }));
    return { plain, tainted: combine(request, parsedPayload, [...taintVerdicts, ...verdicts], reports) };
  }

  function combine(
    request: GuardrailRequest,
    parsedPayload: PayloadFields,
    verdicts: readonly Verdict[],
    reports: readonly Verdict[],
  ): GuardrailResponse {
    const blocks = verdicts.filter((v) => v.decision === 'BLOCK');
    if (blocks.length > 0) {
      blocks.sort((a, b) => rankOf(a.reason) - rankOf(b.reason));
      const top = blocks[0]!;
      const entry = reasonOf(top.reason as ReasonCode);
      const types = uniqueTypes(top.spans);
      const extra = types && !entry.omitTypes ? ` (${types})` : '';
      const msg = entry.wholeRequest ? `Blocked: ${entry.message}.` : `Blocked: ${entry.message}${extra} was found in ${top.field.where}.`;
      return respond(request, 'BLOCK', top.reason, msg, verdicts, undefined, reports);
    }
    const modifies = verdicts.filter((v) => v.decision === 'MODIFY');
    if (modifies.length > 0) {
      const reasons = [...new Set(modifies.map((v) => v.reason as ReasonCode))].sort((a, b) => rankOf(a) - rankOf(b));
      const wheres = [...new Set(modifies.map((v) => v.field.where))].join(' and ');
      let payload: unknown;
      try {
        payload = modifiedPayload(request, parsedPayload, verdicts);
      } catch (err) {
        if (!(err instanceof KeyCollisionError)) throw err;
        const reason = (reasonOf(reasons[0]!).blockedAs as ReasonCode | undefined) ?? 'PAYLOAD_TOO_COMPLEX';
        return respond(
          request,
          'BLOCK',
          reason,
          `Blocked: ${reasonOf(reason).message} was found in ${wheres}, and redacting it would give two keys of one object the same name.`,
          verdicts,
          undefined,
          reports,
        );
      }
      const msg = `Modified: ${reasons.map((r) => reasonOf(r).message).join('; ')} in ${wheres} (${uniqueTypes(modifies.flatMap((v) => v.spans))}).`;
      return respond(request, 'MODIFY', reasons[0]!, msg, verdicts, payload, reports);
    }
    return respond(
      request,
      'ALLOW',
      'OK',
      reports.length > 0 ? 'No policy violation found; see the low-severity findings.' : 'No policy violation found.',
      verdicts,
      undefined,
      reports,
    );
  }

  function validateSync(request: GuardrailRequest): GuardrailResponse {
    assertEngineRequest(request);
    const tainted = taintStep(taintCallOf(request));
    const variants = decideVariants(request, tainted);
    return (tainted ? variants.tainted : undefined) ?? variants.plain;
  }

  const engine: GuardrailEngine = {
    policy,
    validateSync,
    validate(request: GuardrailRequest, callOptions?: GuardrailCallOptions): Promise<GuardrailResponse> {
      // A malformed request rejects; it never throws out of a function that returns a promise.
      try {
        assertEngineRequest(request);
      } catch (error) {
        return Promise.reject(error);
      }
      if (callOptions?.signal?.aborted) {
        return Promise.resolve({
          action_id: request.action_id,
          decision: 'BLOCK',
          reason_code: 'ABORTED',
          reason_message: 'The validation was aborted before it ran.',
        });
      }
      return Promise.resolve(validateSync(request));
    },
  };
  const internals: EngineInternals = {
    spec: {
      policy,
      ...(options.canaries ? { canaries: options.canaries } : {}),
      ...(options.systemPrompts ? { systemPrompts: options.systemPrompts } : {}),
      budget,
    },
    taintStep,
    decideVariants,
  };
  Object.defineProperty(engine, ENGINE_INTERNALS, { value: internals, enumerable: false });
  // One-time costs are paid here, not by the first request's budget (see engine-warm-up.ts): once
  // per isolate (each worker thread warms its own), since they are per process, not per engine.
  // Stateless: decideVariants records no taint. Only the built-in detectors: a caller's own
  // detectors are never called with requests nobody sent.
  if (!detectors && !warmedUp) {
    warmedUp = true;
    for (const request of WARM_UP_REQUESTS) decideVariants(request, false);
  }
  return engine;
}

/**
 * One field as the detectors see it. The exact-match detectors also see the text as a reader does
 * (invisible characters gone, confusables and full-width forms folded; spans map back to the
 * original offsets): folded on first use, once per field.
 */
class FieldInput implements DetectorInput {
  readonly text: string;
  private view: FoldedView | undefined | null = null;
  private memo: Map<string, unknown> | undefined;
  constructor(
    readonly request: GuardrailRequest,
    readonly field: Field,
  ) {
    this.text = field.text;
  }
  folded(): FoldedView | undefined {
    if (this.view === null) this.view = foldForMatching(this.text);
    return this.view;
  }
  shared<T>(key: string, compute: () => T): T {
    this.memo ??= new Map();
    if (!this.memo.has(key)) this.memo.set(key, compute());
    return this.memo.get(key) as T;
  }
}

const FUNCTION_NAME = child(child(undefined, 'function'), 'name');

function resolveBudget(b: GuardrailBudget | undefined): Required<GuardrailBudget> {
  const out = { ...DEFAULT_BUDGET, ...(b ?? {}) };
  for (const [k, v] of Object.entries(out)) {
    if (!(typeof v === 'number' && v > 0 && Number.isFinite(v)))
      throw new PolicyError(`budget.${k} must be a positive number; got ${String(v)}`);
  }
  return out;
}
