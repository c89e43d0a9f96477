import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** One model request as sent, kept for the canary check and written to disk for inspection. */
export interface CapturedRequest {
  sequence: number;
  agentId: string;
  runId: string;
  json: string;
}

/** Serialises a model request (an AbortSignal is not data). */
export function requestJson(request: unknown): string {
  return JSON.stringify(request, (key, value: unknown) => (key === 'signal' || value instanceof AbortSignal ? undefined : value), 2);
}

/** Writes every model request to `<dir>/<sequence>-<agent id>.json`, exactly as sent. */
export class RequestCapture {
  readonly requests: CapturedRequest[] = [];
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  async record(event: { sequence: number; agentId: string; runId: string; request: unknown }): Promise<CapturedRequest> {
    const captured = { sequence: event.sequence, agentId: event.agentId, runId: event.runId, json: requestJson(event.request) };
    this.requests.push(captured);
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(this.#dir, `${String(event.sequence).padStart(4, '0')}-${event.agentId}.json`), `${captured.json}\n`, {
      mode: 0o600,
    });
    return captured;
  }
}
