/**
 * Stronger, slower detectors layered over the engine: `createTieredValidator` runs the engine
 * first and consults each tier only for requests the engine did not BLOCK. A tier may BLOCK; it
 * never loosens the engine's decision. Off by default — nothing here runs unless configured.
 *
 * A tier that fails (throws, times out, returns garbage) fails closed: the request is BLOCKed with
 * `TIER_UNAVAILABLE` unless `onTierError: 'ALLOW'` keeps the engine's decision.
 */
import type { Finding, GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { GuardrailError } from '../errors.js';
import { jsonStrings } from '../redact.js';

/** One string of a request a tier may look at. */
export interface TierText {
  /** JSON pointer into the payload (`""` for a string payload). */
  path: string;
  text: string;
}

/** What a tier is given. */
export interface TierInput {
  request: GuardrailRequest;
  /** The engine's (or the previous tier's) answer; never a BLOCK. */
  response: GuardrailResponse;
  /** The request's strings (the payload text, tool output, argument strings, handoff strings). */
  texts: readonly TierText[];
  /** Aborted when the tier's time is up or the caller gave up. */
  signal: AbortSignal;
}

/** A tier's verdict: BLOCK with findings, or nothing to add. */
export interface TierVerdict {
  decision: 'BLOCK';
  reason_code: string;
  reason_message: string;
  findings: Finding[];
}

/** A stronger detector consulted after the engine. */
export interface GuardrailTier {
  /** Name used in errors and reason messages. */
  readonly name: string;
  /** Returns a BLOCK verdict, or undefined to keep the current decision. May throw: fail closed. */
  check(input: TierInput): Promise<TierVerdict | undefined>;
}

/** Options for {@link createTieredValidator}. */
export interface TieredValidatorOptions {
  /** The base validator, normally the in-process engine. */
  engine: GuardrailValidator;
  /** Tiers, consulted in order until one BLOCKs. */
  tiers: readonly GuardrailTier[];
  /** What a failing tier means: BLOCK (default, fail closed) or ALLOW (keep the engine's decision). */
  onTierError?: 'BLOCK' | 'ALLOW';
  /** Time one tier may take per request, ms (default 10 000). A tier over time has failed. */
  tierTimeoutMs?: number;
  /** Called with every tier failure (for logs and metrics); must not throw. */
  onError?: (error: TierError) => void;
}

/** A tier failed (threw, timed out or answered garbage): the tier's or its backend's fault. */
export class TierError extends GuardrailError {
  /** The tier's name. */
  readonly tier: string;
  constructor(tier: string, message: string, options?: { cause?: unknown }) {
    super('TIER_UNAVAILABLE', message, options);
    this.name = 'TierError';
    this.tier = tier;
  }
}

function walk(value: unknown, pointer: string, out: TierText[], depth: number): void {
  if (depth > 512) return;
  if (typeof value === 'string') out.push({ path: pointer, text: value });
  else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`, out, depth + 1));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, depth + 1);
}

/** The strings of a request a tier may look at, with their JSON pointers. */
export function requestTexts(request: GuardrailRequest): TierText[] {
  switch (request.action_type) {
    case 'AGENT_INPUT':
    case 'AGENT_RESPONSE':
      return [{ path: '', text: request.payload }];
    case 'TOOL_OUTPUT':
      return [{ path: '/output', text: request.payload.output }];
    case 'TOOL_CALL':
      return jsonStrings(request.payload.function.arguments).map((s) => ({ path: `/function/arguments${s.pointer}`, text: s.value }));
    case 'AGENT_HANDOFF': {
      const out: TierText[] = [{ path: '/input', text: request.payload.input }];
      walk(request.payload.state, '/state', out, 0);
      return out;
    }
  }
}

async function runTier(
  tier: GuardrailTier,
  input: Omit<TierInput, 'signal'>,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<TierVerdict | undefined> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort(new Error('timeout'));
      reject(new TierError(tier.name, `The ${tier.name} tier did not answer within ${timeoutMs} ms.`));
    }, timeoutMs);
  });
  try {
    const verdict = await Promise.race([tier.check({ ...input, signal: ac.signal }), timeout]);
    if (
      verdict !== undefined &&
      (verdict.decision !== 'BLOCK' || typeof verdict.reason_code !== 'string' || !Array.isArray(verdict.findings))
    )
      throw new TierError(tier.name, `The ${tier.name} tier returned an invalid verdict.`);
    return verdict;
  } catch (err) {
    if (err instanceof TierError) throw err;
    throw new TierError(tier.name, `The ${tier.name} tier failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/**
 * Wraps a validator with stronger tiers (an ONNX classifier, an LLM judge). The engine decides
 * first; a BLOCK stands without consulting any tier. Otherwise each tier in order may BLOCK.
 */
export function createTieredValidator(options: TieredValidatorOptions): GuardrailValidator {
  const { engine, tiers } = options;
  const onTierError = options.onTierError ?? 'BLOCK';
  const timeoutMs = options.tierTimeoutMs ?? 10_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new GuardrailError('TIER_CONFIG_INVALID', `tierTimeoutMs must be a positive number of milliseconds, got ${timeoutMs}.`);
  const names = new Set<string>();
  for (const t of tiers) {
    if (!t || typeof t.check !== 'function' || typeof t.name !== 'string')
      throw new GuardrailError('TIER_CONFIG_INVALID', 'every tier needs a name and a check(input) function.');
    if (names.has(t.name)) throw new GuardrailError('TIER_CONFIG_INVALID', `two tiers are named "${t.name}".`);
    names.add(t.name);
  }
  return {
    async validate(request: GuardrailRequest, callOptions?: GuardrailCallOptions): Promise<GuardrailResponse> {
      const response = await engine.validate(request, callOptions);
      if (response.decision === 'BLOCK' || tiers.length === 0) return response;
      const texts = requestTexts(request);
      for (const tier of tiers) {
        if (callOptions?.signal?.aborted)
          return {
            action_id: request.action_id,
            decision: 'BLOCK',
            reason_code: 'ABORTED',
            reason_message: 'The validation was aborted before it finished.',
          };
        let verdict: TierVerdict | undefined;
        try {
          verdict = await runTier(tier, { request, response, texts }, timeoutMs, callOptions?.signal);
        } catch (err) {
          const e = err instanceof TierError ? err : new TierError(tier.name, String(err), { cause: err });
          try {
            options.onError?.(e);
          } catch {
            // a logging hook must not change the decision
          }
          if (onTierError === 'ALLOW') continue;
          return {
            action_id: request.action_id,
            decision: 'BLOCK',
            reason_code: 'TIER_UNAVAILABLE',
            reason_message: `Blocked: the ${tier.name} detector could not decide (${e.message.replace(/^The [^ ]+ tier /, '')}); failing closed.`,
            findings: response.findings ?? [],
          };
        }
        if (verdict)
          return {
            action_id: request.action_id,
            decision: 'BLOCK',
            reason_code: verdict.reason_code,
            reason_message: verdict.reason_message,
            findings: [...(response.findings ?? []), ...verdict.findings],
          };
      }
      return response;
    },
  };
}
