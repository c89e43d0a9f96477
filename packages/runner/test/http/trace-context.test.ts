// POST /v1/runs receives W3C Trace Context as the specification says: a bad or repeated
// traceparent is ignored and a new trace starts (it used to be a 400), a bad tracestate is dropped
// whole, repeated tracestate fields are combined, and the answer carries `traceresponse`.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunnerServer, type RunnerServer } from '../../src/http/index.js';
import { Runner, type RunRequest } from '../../src/index.js';
import { manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const AGENT = 'io.baton.test.alpha';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER = 'b7ad6b7169203331';
const TP = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let server: RunnerServer;
let base: URL;
const seen: RunRequest[] = [];

beforeAll(async () => {
  const runner = new Runner({
    registry: registry([manifest(AGENT)]),
    guardrails: scriptedGuardrail().validator,
    modelProvider: createScriptedProvider({ scripts: { alpha: Array.from({ length: 40 }, () => ({ message: 'ok' })) } }).provider,
  });
  // The real runner, with each request it gets recorded.
  server = createRunnerServer({ runner: { run: (r) => (seen.push(r), runner.run(r)) }, store: runner.threadStore, port: 0 });
  base = new URL((await server.listen()).url);
});
afterAll(() => server.close());

/** POSTs a run with exactly these header fields (repeats kept, as a proxy might send them). */
function postRun(
  fields: Array<[string, string]>,
): Promise<{ status: number; traceresponse: string | undefined; body: { trace_id?: string; status?: string } }> {
  const body = JSON.stringify({ agent_id: AGENT, input: 'hi' });
  const raw = ['host', base.host, 'content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))];
  for (const [n, v] of fields) raw.push(n, v);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: base.hostname, port: base.port, path: '/v1/runs', method: 'POST', headers: raw, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, traceresponse: res.headers.traceresponse as string | undefined, body: JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('POST /v1/runs and W3C Trace Context', () => {
  it.each([
    ['version ff', `ff-${TRACE_ID}-${CALLER}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${CALLER}-01`],
    ['all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${CALLER}-01`],
    ['extra field on version 00', `00-${TRACE_ID}-${CALLER}-01-extra`],
    ['short trace id', `00-${TRACE_ID.slice(1)}-${CALLER}-01`],
    ['long parent id', `00-${TRACE_ID}-${CALLER}0-01`],
    ['garbage', 'not a traceparent'],
  ])('ignores an invalid traceparent (%s) and starts a new trace instead of answering 400', async (_label, value) => {
    const res = await postRun([
      ['traceparent', value],
      ['tracestate', 'congo=1'],
    ]);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.trace_id).not.toBe(TRACE_ID);
    const answer = TP.exec(res.traceresponse ?? '');
    expect(answer?.[1]).toBe(res.body.trace_id);
    // The tracestate of an ignored traceparent is not carried on.
    expect(seen.at(-1)?.tracestate).toBeUndefined();
  });

  it('treats a repeated traceparent as invalid', async () => {
    const res = await postRun([
      ['traceparent', `00-${TRACE_ID}-${CALLER}-01`],
      ['traceparent', `00-${TRACE_ID}-${CALLER}-01`],
    ]);
    expect(res.status).toBe(200);
    expect(res.body.trace_id).not.toBe(TRACE_ID);
  });

  it('continues a valid traceparent under its own server span, named in traceresponse with the flags as received', async () => {
    for (const flags of ['00', '01', '02', '03']) {
      const res = await postRun([['TraceParent', ` 00-${TRACE_ID}-${CALLER}-${flags}\t`]]);
      expect(res.status).toBe(200);
      expect(res.body.trace_id).toBe(TRACE_ID);
      const answer = TP.exec(res.traceresponse ?? '');
      expect(answer?.[1]).toBe(TRACE_ID);
      expect(answer?.[2]).not.toBe(CALLER);
      expect(answer?.[3]).toBe(flags);
      // The run is started as a child of that server span.
      expect(seen.at(-1)?.traceparent).toBe(res.traceresponse);
    }
  });

  it('reads a future version by the forward-compatibility rules', async () => {
    const res = await postRun([['traceparent', `cc-${TRACE_ID}-${CALLER}-01-future-fields`]]);
    expect(res.body.trace_id).toBe(TRACE_ID);
  });

  it('keeps the parent and drops an invalid tracestate whole', async () => {
    for (const state of ['ok=1,BAD=2', 'foo=bar=baz', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')]) {
      const res = await postRun([
        ['traceparent', `00-${TRACE_ID}-${CALLER}-01`],
        ['tracestate', state],
      ]);
      expect(res.status).toBe(200);
      expect(res.body.trace_id).toBe(TRACE_ID);
      expect(seen.at(-1)?.tracestate).toBeUndefined();
    }
  });

  it('combines repeated tracestate fields in order', async () => {
    await postRun([
      ['traceparent', `00-${TRACE_ID}-${CALLER}-01`],
      ['tracestate', 'foo=1,bar=2'],
      ['tracestate', ''],
      ['TRACESTATE', 'baz=3'],
    ]);
    expect(seen.at(-1)?.tracestate).toBe('foo=1,bar=2,baz=3');
  });

  it('answers a new trace with a random, unsampled traceresponse when no traceparent came', async () => {
    const res = await postRun([]);
    const answer = TP.exec(res.traceresponse ?? '');
    expect(answer?.[1]).toBe(res.body.trace_id);
    expect(answer?.[3]).toBe('02');
  });
});
