/**
 * What the worker pool needs from an engine, kept off the public API: the serialisable spec a
 * worker rebuilds the engine from, the stateful taint step (which stays on the main thread, so
 * every thread's taint lives in one place) and the stateless content decision (run in a worker).
 */
import type { GuardrailRequest, GuardrailResponse } from '@baton/manifest';
import type { GuardrailBudget } from './engine.js';
import type { Policy } from './policy/schema.js';

export const ENGINE_INTERNALS: unique symbol = Symbol.for('baton.guardrail.engine-internals');

/** Options a worker passes to createGuardrailEngine to get an engine that decides alike. */
export interface EngineSpec {
  policy: Policy;
  canaries?: string[];
  systemPrompts?: string[];
  budget: Required<GuardrailBudget>;
}

/** What the taint step needs of a request. */
export interface TaintCall {
  action_type: GuardrailRequest['action_type'];
  thread_id: string;
  /** The tool: TOOL_OUTPUT's `payload.name`, TOOL_CALL's `payload.function.name`; else ''. */
  tool: string;
}

/** The content decision, and for a call to a sink tool the decision on a tainted thread. */
export interface DecisionVariants {
  plain: GuardrailResponse;
  tainted?: GuardrailResponse;
}

export interface EngineInternals {
  spec: EngineSpec;
  /** Stateful, main thread only: records a TOOL_OUTPUT's taint; true when a TOOL_CALL is forbidden. */
  taintStep(call: TaintCall): boolean;
  /**
   * Stateless: inspects once and decides without and (if `withTaint`) with the taint verdict. The
   * time budget runs from `startedAt` (the engine's clock) when given, else from now.
   */
  decideVariants(request: GuardrailRequest, withTaint: boolean, startedAt?: number): DecisionVariants;
}

export function taintCallOf(request: GuardrailRequest): TaintCall {
  const tool =
    request.action_type === 'TOOL_OUTPUT' ? request.payload.name : request.action_type === 'TOOL_CALL' ? request.payload.function.name : '';
  return { action_type: request.action_type, thread_id: request.thread_id, tool };
}

/** The internals of an engine made by createGuardrailEngine, or undefined for any other validator. */
export function engineInternals(validator: unknown): EngineInternals | undefined {
  if (validator === null || typeof validator !== 'object') return undefined;
  return (validator as { [ENGINE_INTERNALS]?: EngineInternals })[ENGINE_INTERNALS];
}
