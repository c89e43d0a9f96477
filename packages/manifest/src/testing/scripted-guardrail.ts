import type { GuardrailRequest, GuardrailResponse, GuardrailValidator } from '../index.js';

/**
 * What the scripted guardrail does with one request: answer with these response fields (default
 * ALLOW / OK, `action_id` always echoed), `throw` as an unreachable service would, answer
 * `garbage` that is not a guardrail response, or `hang` until the caller's signal aborts.
 */
export type ScriptedDecision = Partial<Omit<GuardrailResponse, 'action_id'>> | 'throw' | 'garbage' | 'hang';

/** What {@link scriptedGuardrail} returns. */
export interface ScriptedGuardrail {
  /** For anything that takes a `GuardrailValidator`. */
  validator: GuardrailValidator;
  /** Every request, in order, as a copy taken when it arrived. */
  requests: GuardrailRequest[];
}

/**
 * A scripted guardrail (a labelled test stand-in for the guardrail service): decides each request
 * with `decide` (ALLOW when it returns nothing) and records every request.
 */
export function scriptedGuardrail(
  decide: (request: GuardrailRequest) => ScriptedDecision | undefined | Promise<ScriptedDecision | undefined> = () => undefined,
): ScriptedGuardrail {
  const requests: GuardrailRequest[] = [];
  return {
    requests,
    validator: {
      async validate(request, options) {
        requests.push(structuredClone(request));
        const d = (await decide(request)) ?? {};
        if (d === 'throw') throw new Error('guardrail service unreachable');
        if (d === 'garbage') return { nonsense: true } as unknown as GuardrailResponse;
        if (d === 'hang') {
          return new Promise<GuardrailResponse>((_, reject) => {
            const signal = options?.signal;
            if (signal?.aborted) return reject(new Error('aborted'));
            signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          });
        }
        return { action_id: request.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: 'ok', ...d } as GuardrailResponse;
      },
    },
  };
}

/** A scripted guardrail that allows everything. */
export function allowAllGuardrail(): GuardrailValidator {
  return scriptedGuardrail().validator;
}
