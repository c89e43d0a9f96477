import type { GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { GuardrailClientConfigError } from './errors.js';
import { CLIENT_REASON_CODES, failedCall, type FailModes } from './outcomes.js';
import { verifyResponse } from './verify-response.js';

/** Options for {@link createInProcessGuardrail}. */
export interface InProcessGuardrailOptions {
  /** Per action type, `open` lets an engine failure ALLOW. Default: every type fails closed. */
  failMode?: FailModes;
}

/**
 * The client interface over an in-process validator (the detector engine): same fail-closed
 * rules as the HTTP client — a thrown error, an abort or a response that breaks the contract is
 * a BLOCK that says why.
 */
export function createInProcessGuardrail(validator: GuardrailValidator, options: InProcessGuardrailOptions = {}): GuardrailValidator {
  if (!validator || typeof validator.validate !== 'function') {
    throw new GuardrailClientConfigError('createInProcessGuardrail needs a validator with a validate(request) method');
  }
  const failModes: FailModes = { ...(options.failMode ?? {}) };
  return {
    async validate(request: GuardrailRequest, call: GuardrailCallOptions = {}): Promise<GuardrailResponse> {
      if (call.signal?.aborted) return failedCall(request, CLIENT_REASON_CODES.aborted, 'guardrail call was aborted by the caller', failModes);
      let body: unknown;
      try {
        body = await validator.validate(request, call);
      } catch (err) {
        const name = err instanceof Error ? err.name : typeof err;
        return failedCall(request, CLIENT_REASON_CODES.engineError, `guardrail engine threw ${name}`, failModes);
      }
      if (call.signal?.aborted) return failedCall(request, CLIENT_REASON_CODES.aborted, 'guardrail call was aborted by the caller', failModes);
      const verified = verifyResponse(request, body);
      return verified.ok ? verified.response : failedCall(request, verified.code, verified.message, failModes);
    },
  };
}
