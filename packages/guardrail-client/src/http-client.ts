import type { GuardrailCallOptions, GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';
import { GuardrailCallError, GuardrailClientConfigError } from './errors.js';
import { createHttpPost, PostError, type PostAnswer } from './http-post.js';
import { GUARDRAIL_REASON_CODES, type GuardrailReasonCode } from './outcomes.js';

/** Options for {@link createGuardrailClient}. */
export interface GuardrailClientOptions {
  /** Base URL of the guardrail service, e.g. `http://127.0.0.1:8787` (`/v1/validate` is appended). */
  url: string;
  /** Bearer token sent as `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * Transport deadline in milliseconds (connect, send, read); default none: the checker's
   * timeout (the runner's `guardrailTimeoutMs`) bounds every call. Past it: `GUARDRAIL_TIMEOUT`.
   */
  timeoutMs?: number;
  /** Removed: fail-open is the checker's policy (`createGuardrailChecker({ failOpen })`, the runner's `guardrailFailOpen`). */
  failMode?: never;
  /**
   * A fetch implementation to send with instead of the default: `node:http(s)` with a keep-alive
   * agent (connections reused across calls; about a third of `fetch`'s cost per loopback call).
   */
  fetch?: typeof fetch;
  /** Retries are not done: a guardrail call is on the hot path and fails closed. Only 0. */
  retries?: 0;
}

/**
 * A `GuardrailValidator` over HTTP: a transport. `validate` resolves with the service's parsed
 * JSON answer (verified by the checker, not here) or throws a `GuardrailCallError` whose `code`
 * says why there is none. Use it through `createGuardrailChecker` or the Baton runner.
 */
export interface GuardrailClient extends GuardrailValidator {
  /** The resolved `/v1/validate` URL this client posts to. */
  readonly endpoint: string;
}

/** Decisions are small; a bigger body is not a guardrail response. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Creates the HTTP transport for `POST /v1/validate`. */
export function createGuardrailClient(options: GuardrailClientOptions): GuardrailClient {
  const endpoint = resolveEndpoint(options?.url);
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new GuardrailClientConfigError(`timeoutMs must be a positive number of milliseconds; got ${String(options.timeoutMs)}`);
  }
  if (options.retries !== undefined && options.retries !== 0) {
    throw new GuardrailClientConfigError('retries must be 0: guardrail calls are not retried (they fail closed instead)');
  }
  if ((options as { failMode?: unknown }).failMode !== undefined) {
    throw new GuardrailClientConfigError(
      "failMode is no longer a client option: fail-open is decided by the checker (createGuardrailChecker({ failOpen }) or the runner's guardrailFailOpen)",
    );
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || /[\s]/.test(options.token) || options.token === '')) {
    throw new GuardrailClientConfigError('token must be a non-empty string without whitespace');
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new GuardrailClientConfigError('fetch must be a function');
  const send = options.fetch ? fetchPost(endpoint, options.fetch) : nodePost(endpoint);
  const baseHeaders: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.token) baseHeaders['authorization'] = `Bearer ${options.token}`;

  async function validate(request: GuardrailRequest, call: GuardrailCallOptions = {}): Promise<GuardrailResponse> {
    const timeout = timeoutMs !== undefined ? AbortSignal.timeout(timeoutMs) : undefined;
    const signal = timeout && call.signal ? AbortSignal.any([timeout, call.signal]) : (timeout ?? call.signal);
    const fail = (code: GuardrailReasonCode, message: string, cause?: unknown) =>
      new GuardrailCallError(code, message, cause !== undefined ? { cause } : undefined);
    const interrupted = (): GuardrailCallError | undefined => {
      if (call.signal?.aborted) return fail(GUARDRAIL_REASON_CODES.aborted, 'guardrail call was aborted by the caller');
      if (timeout?.aborted) return fail(GUARDRAIL_REASON_CODES.timeout, `guardrail service did not answer within ${timeoutMs} ms`);
      return undefined;
    };
    if (call.signal?.aborted) throw fail(GUARDRAIL_REASON_CODES.aborted, 'guardrail call was aborted by the caller');

    const headers = { ...baseHeaders };
    if (call.traceparent) headers['traceparent'] = call.traceparent;
    if (call.tracestate) headers['tracestate'] = call.tracestate;

    let body: string;
    try {
      body = JSON.stringify(request);
    } catch (err) {
      throw fail(GUARDRAIL_REASON_CODES.badResponse, 'guardrail request could not be serialized to JSON', err);
    }

    let answer: PostAnswer;
    try {
      answer = await send(headers, body, signal);
    } catch (err) {
      if (err instanceof PostError && err.kind === 'network') {
        throw (
          interrupted() ??
          fail(GUARDRAIL_REASON_CODES.unavailable, `guardrail service at ${endpoint} is unreachable (${err.message})`, err.cause)
        );
      }
      throw (
        interrupted() ??
        fail(
          GUARDRAIL_REASON_CODES.badResponse,
          err instanceof PostError && err.kind === 'too_large'
            ? 'guardrail response is larger than 4 MiB'
            : 'guardrail response body could not be read',
          err,
        )
      );
    }
    const res = answer;
    const text = answer.text;

    if (res.status !== 200) {
      // A 4xx about the request itself (not auth, routing or load) is no outage: never fail open on it.
      const refused = res.status >= 400 && res.status < 500 && !NOT_ABOUT_THE_REQUEST.has(res.status);
      throw new GuardrailCallError(
        GUARDRAIL_REASON_CODES.httpError,
        `guardrail service answered HTTP ${res.status}${serviceError(text)}${refused ? ' (the service refused this request)' : ''}`,
        { requestRefused: refused },
      );
    }
    try {
      return JSON.parse(text) as GuardrailResponse;
    } catch (err) {
      throw fail(GUARDRAIL_REASON_CODES.badResponse, 'guardrail response is not JSON', err);
    }
  }

  return { endpoint, validate };
}

/** 4xx answers about the caller's credentials, the endpoint or the service's load, not the request's content. */
const NOT_ABOUT_THE_REQUEST: ReadonlySet<number> = new Set([401, 403, 404, 405, 408, 429]);

type Send = (headers: Record<string, string>, body: string, signal: AbortSignal | undefined) => Promise<PostAnswer>;

function nodePost(endpoint: string): Send {
  const http = createHttpPost({ endpoint, maxBytes: MAX_RESPONSE_BYTES });
  return (headers, body, signal) => http.post(headers, body, signal);
}

function fetchPost(endpoint: string, fetchImpl: typeof fetch): Send {
  return async (headers, body, signal) => {
    let res: Response;
    try {
      res = await fetchImpl(endpoint, { method: 'POST', headers, body, ...(signal ? { signal } : {}), redirect: 'error' });
    } catch (err) {
      throw new PostError('network', networkReason(err), { cause: err });
    }
    try {
      const declared = Number(res.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) throw new RangeError('response too large');
      return { status: res.status, text: await readLimited(res, MAX_RESPONSE_BYTES) };
    } catch (err) {
      throw new PostError(err instanceof RangeError ? 'too_large' : 'read', 'response body could not be read', { cause: err });
    }
  };
}

/**
 * The body as UTF-8 text, read chunk by chunk and abandoned (the stream cancelled) as soon as it
 * passes `max` bytes: an endless answer costs at most `max` bytes of memory, not everything the
 * server sends before the call's deadline. Throws RangeError past the limit.
 */
async function readLimited(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new RangeError('response too large');
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks, size));
}

function resolveEndpoint(url: unknown): string {
  if (typeof url !== 'string' || url.trim() === '') throw new GuardrailClientConfigError('url is required (e.g. http://127.0.0.1:8787)');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new GuardrailClientConfigError(`url is not a valid URL: ${JSON.stringify(url)}`, { cause: err });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GuardrailClientConfigError(`url must be http: or https:, got ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) throw new GuardrailClientConfigError('url must not carry credentials; use options.token');
  if (!parsed.pathname.endsWith('/v1/validate')) parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/validate`;
  return parsed.toString();
}

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : 'network error';
}

/** The service's own `{ error: { code, message } }`, when it sent one (it never echoes payloads). */
function serviceError(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const code = typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
    const message = typeof parsed.error?.message === 'string' ? parsed.error.message.slice(0, 300) : undefined;
    if (code || message) return `: ${[code, message].filter(Boolean).join(': ')}`;
  } catch {
    // not the service's error shape; the status says enough
  }
  return '';
}
