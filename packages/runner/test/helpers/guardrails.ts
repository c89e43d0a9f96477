import type { GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';

export type ScriptedDecision = Partial<Omit<GuardrailResponse, 'action_id'>> | 'throw' | 'garbage' | 'hang';

/** A test guardrail (a labelled stand-in for the service): decides per request, records every request. */
export function scriptedGuardrail(decide: (request: GuardrailRequest) => ScriptedDecision | undefined | Promise<ScriptedDecision | undefined> = () => undefined): {
  validator: GuardrailValidator;
  requests: GuardrailRequest[];
} {
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
          return new Promise<GuardrailResponse>((_, reject) => options?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
        }
        return { action_id: request.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: 'ok', ...d } as GuardrailResponse;
      },
    },
  };
}

export function allowAll(): GuardrailValidator {
  return scriptedGuardrail().validator;
}
