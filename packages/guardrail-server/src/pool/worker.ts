/**
 * A guardrail worker thread. Everything that costs time in proportion to the request happens here,
 * not on the HTTP event loop: UTF-8 decoding, the nesting scan, JSON.parse, the schema check, the
 * detectors and serialising the answer. The main thread only moves bytes and applies the taint
 * step (the engine's one piece of state) to pick between the two answers computed here.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { createGuardrailEngine } from '../engine.js';
import { engineInternals, taintCallOf, type EngineSpec, type TaintCall } from '../engine-internals.js';
import { parseJsonBody } from '../http/body.js';
import type { HttpErrorCode } from '../http/errors.js';
import { parseGuardrailRequest } from '../request.js';
import { budgetClock } from '../budget-clock.js';

/** One request for a worker: the raw body. */
export interface WorkerTask {
  body: Uint8Array;
  maxJsonDepth: number;
  /** Told as soon as this worker starts on the task: the hard deadline runs from then. */
  started: MessagePort;
}

/** What a worker answers: a 400 to send, or the decided answers (JSON text) and what the main thread needs. */
export type WorkerResult =
  | { kind: 'invalid'; code: HttpErrorCode; message: string }
  | {
      kind: 'decided';
      call: TaintCall;
      action_id: string;
      trace: { trace_id: string; span_id: string };
      plain: Answer;
      /** For a call to a sink tool: the answer on a tainted thread. */
      tainted?: Answer;
    };

export interface Answer {
  json: string;
  decision: string;
  reason_code: string;
}

const spec = workerData as EngineSpec;
const internals = engineInternals(
  createGuardrailEngine({
    policy: spec.policy,
    budget: spec.budget,
    ...(spec.canaries ? { canaries: spec.canaries } : {}),
    ...(spec.systemPrompts ? { systemPrompts: spec.systemPrompts } : {}),
  }),
)!;

/** What a worker tells the main thread on `started` once it has read the request (see engine-pool). */
export interface StartedNote {
  action_id: string;
  call: TaintCall;
  trace: { trace_id: string; span_id: string };
}

export default function decide(task: WorkerTask): WorkerResult {
  const startedAt = budgetClock();
  task.started.postMessage(0);
  try {
    return decideBody(task, startedAt);
  } finally {
    task.started.close();
  }
}

function decideBody(task: WorkerTask, startedAt: number): WorkerResult {
  const body = parseJsonBody(Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength), task.maxJsonDepth);
  if (!body.ok) return { kind: 'invalid', code: body.error.error.code, message: body.error.error.message };
  const checked = parseGuardrailRequest(body.value);
  if (!checked.ok) return { kind: 'invalid', code: 'invalid_request', message: checked.message };
  const request = checked.request;
  // If this worker is terminated past the deadline, the main thread still knows whom to answer.
  const note: StartedNote = { action_id: request.action_id, call: taintCallOf(request), trace: request.trace };
  task.started.postMessage(note);
  const variants = internals.decideVariants(request, true, startedAt);
  const answer = (r: typeof variants.plain): Answer => ({ json: JSON.stringify(r), decision: r.decision, reason_code: r.reason_code });
  return {
    kind: 'decided',
    call: taintCallOf(request),
    action_id: request.action_id,
    trace: request.trace,
    plain: answer(variants.plain),
    ...(variants.tainted ? { tainted: answer(variants.tainted) } : {}),
  };
}
