import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Where model requests are written. */
export interface CaptureOptions {
  /** Directory for the capture files; created owner-only (captures hold customer data). */
  dir: string;
  /**
   * `per-call` (default): each runner call writes into `<dir>/<its first run id>/`, so concurrent
   * calls (`baton serve`) never share or overwrite files. `flat`: the stack's first call writes into
   * `dir` itself (`baton run`, one call per process); any other call still gets its own directory.
   */
  layout?: 'flat' | 'per-call';
}

/** What one runner call has captured so far; lives in the call's async context. */
interface CallCapture {
  dir?: string;
  /** The model request being sent, so the HTTP body (sent from inside the model) gets its name. */
  current?: { sequence: number; agentId: string };
}

/** Serialises a model request for a capture file (an AbortSignal is not data). */
export function captureJson(request: unknown): string {
  return JSON.stringify(request, (key, value: unknown) => (key === 'signal' || value instanceof AbortSignal ? undefined : value), 2) + '\n';
}

const fileName = (sequence: number, agentId: string, suffix = '') => `${String(sequence).padStart(4, '0')}-${agentId}${suffix}.json`;

/**
 * Request captures correlated per runner call: each call runs in its own async context (see
 * {@link RequestCaptures.inCall}), so the model request listener and the HTTP `fetch` the model
 * makes find that call's state without a shared variable, however many calls run at once.
 */
export class RequestCaptures {
  readonly #root: string;
  readonly #layout: 'flat' | 'per-call';
  readonly #calls = new AsyncLocalStorage<CallCapture>();
  #flatTaken = false;

  constructor(options: CaptureOptions) {
    this.#root = resolve(options.dir);
    this.#layout = options.layout ?? 'per-call';
  }

  /** Creates the capture directory (owner-only). */
  async open(): Promise<void> {
    await mkdir(this.#root, { recursive: true, mode: 0o700 });
  }

  /** Runs one runner call with its own capture state. */
  inCall<T>(call: () => Promise<T>): Promise<T> {
    return this.#calls.run({}, call);
  }

  #dirFor(runId: string): string {
    if (this.#layout === 'flat' && !this.#flatTaken) {
      this.#flatTaken = true;
      return this.#root;
    }
    // Run ids are the runner's UUIDs; never let one name a path outside the capture directory.
    return join(this.#root, runId.replace(/[^A-Za-z0-9_-]/g, '_'));
  }

  /** The runner's `onModelRequest` listener: writes `<sequence>-<agent id>.json`. */
  readonly onModelRequest = async (event: { sequence: number; agentId: string; runId: string; request: unknown }): Promise<void> => {
    // A call that did not go through inCall (the Runner used directly) still gets its own directory.
    const call = this.#calls.getStore() ?? {};
    call.dir ??= this.#dirFor(event.runId);
    call.current = { sequence: event.sequence, agentId: event.agentId };
    if (call.dir !== this.#root) await mkdir(call.dir, { recursive: true, mode: 0o700 });
    await writeFile(join(call.dir, fileName(event.sequence, event.agentId)), captureJson(event.request), { mode: 0o600 });
  };

  /** A `fetch` for real model classes: also writes the HTTP body as `<sequence>-<agent id>.http.json`. */
  readonly fetch: typeof fetch = async (input, init) => {
    const call = this.#calls.getStore();
    if (call?.dir && call.current && typeof init?.body === 'string') {
      await writeFile(join(call.dir, fileName(call.current.sequence, call.current.agentId, '.http')), init.body, { mode: 0o600 });
    }
    return fetch(input, init);
  };
}
