import type { GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { GuardrailCallError, GuardrailClientConfigError } from './errors.js';
import { GUARDRAIL_REASON_CODES } from './outcomes.js';

/** Options for {@link createInProcessGuardrail}. */
export interface InProcessGuardrailOptions {
  /** Removed: fail-open is the checker's policy (`createGuardrailChecker({ failOpen })`, the runner's `guardrailFailOpen`). */
  failMode?: never;
}

/**
 * The in-process engine as a transport: what the engine throws becomes a `GuardrailCallError`
 * (`GUARDRAIL_ENGINE_ERROR`, the original as `cause`), so the checker records one code for it.
 * The answer is verified by the checker, once.
 */
/**
 * Whether an engine's error refuses the request itself (the guardrail engine's `REQUEST_INVALID`,
 * by its wire-stable code: this package cannot import the engine). Never failed open.
 */
export function refusesRequest(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'REQUEST_INVALID';
}

export function createInProcessGuardrail(validator: GuardrailValidator, options: InProcessGuardrailOptions = {}): GuardrailValidator {
  if (!validator || typeof validator.validate !== 'function') {
    throw new GuardrailClientConfigError('createInProcessGuardrail needs a validator with a validate(request) method');
  }
  if ((options as { failMode?: unknown })?.failMode !== undefined) {
    throw new GuardrailClientConfigError(
      "failMode is no longer a client option: fail-open is decided by the checker (createGuardrailChecker({ failOpen }) or the runner's guardrailFailOpen)",
    );
  }
  return {
    async validate(request: GuardrailRequest, call: GuardrailCallOptions = {}): Promise<GuardrailResponse> {
      if (call.signal?.aborted) throw new GuardrailCallError(GUARDRAIL_REASON_CODES.aborted, 'guardrail call was aborted by the caller');
      try {
        return await validator.validate(request, call);
      } catch (err) {
        if (err instanceof GuardrailCallError) throw err;
        const name = err instanceof Error ? err.name : typeof err;
        throw new GuardrailCallError(GUARDRAIL_REASON_CODES.engineError, `guardrail engine threw ${name}`, {
          cause: err,
          requestRefused: refusesRequest(err),
        });
      }
    },
  };
}
