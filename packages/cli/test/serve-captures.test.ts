// `baton serve --capture`: two calls served at the same time each get their own capture
// directory, and neither sees the other's model requests (the capture state is per call, not one
// variable shared by the process).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedTurn } from '@baton/runner/testing';
import { afterAll, expect, it } from 'vitest';
import { EXAMPLES, offlineEnv, startServe } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-serve-captures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MARKERS = ['CALL-ALPHA-51c2', 'CALL-BRAVO-9e07'];

it('keeps the captures of two concurrent HTTP calls apart', async () => {
  // Neither model request is answered until both have arrived: the two calls are certainly in
  // flight together, with both requests captured, before either finishes.
  let arrived = 0;
  let bothArrived: () => void = () => undefined;
  const barrier = new Promise<void>((resolve) => (bothArrived = resolve));
  const script = async (req: RecordedRequest): Promise<ScriptedTurn> => {
    if (++arrived === MARKERS.length) bothArrived();
    await barrier;
    const marker = MARKERS.find((m) => req.raw.includes(m)) ?? 'none';
    return { message: `answer for ${marker}` };
  };
  const model = await startScriptedOpenAIServer({ script, api: 'chat' });
  const capture = join(dir, 'captures');
  const server = await startServe(
    ['--port', '0', '--agents', join(EXAMPLES, 'agents'), '--store', join(dir, 's.db'), '--capture', capture],
    { env: offlineEnv({ OPENAI_BASE_URL: model.url }) },
  );
  try {
    const url = server.url;
    const post = (marker: string) =>
      fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: 'io.baton.examples.triage', input: `Just a question, reference ${marker}.` }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { response: string; runs: Array<{ run_id: string }> } }));
    const results = await Promise.all(MARKERS.map(post));

    for (const [i, marker] of MARKERS.entries()) {
      const { status, body } = results[i]!;
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.response).toBe(`answer for ${marker}`);
      // The call's directory is named by its first run id and holds that call's request only.
      const callDir = join(capture, body.runs[0]!.run_id);
      expect(readdirSync(callDir).sort()).toEqual(['0001-io.baton.examples.triage.http.json', '0001-io.baton.examples.triage.json']);
      const other = MARKERS[1 - i]!;
      const sent = readFileSync(join(callDir, '0001-io.baton.examples.triage.http.json'), 'utf8');
      expect(model.requests.map((r) => r.raw)).toContain(sent);
      expect(sent).toContain(marker);
      expect(sent).not.toContain(other);
      const request = readFileSync(join(callDir, '0001-io.baton.examples.triage.json'), 'utf8');
      expect(request).toContain(marker);
      expect(request).not.toContain(other);
    }
    expect(readdirSync(capture).sort()).toEqual(results.map((r) => r.body.runs[0]!.run_id).sort());
    expect(await server.stop()).toBe(0);
  } finally {
    server.kill();
    await model.close();
  }
}, 180_000);
