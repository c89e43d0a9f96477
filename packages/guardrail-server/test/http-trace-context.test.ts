// POST /v1/validate receives W3C Trace Context as the specification says and answers with
// `traceresponse`; what it passes on to an asynchronous validator is checked, never the raw header.
import type { GuardrailRequest } from '@baton/manifest';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardrailServer, type GuardrailServer } from '../src/http/index.js';
import { decideForTest, toolCallRequest, SPAN_ID, TRACE_ID, TRACEPARENT } from './http-helpers.js';

const TP = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const servers: GuardrailServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function serve() {
  const passed: Array<{ traceparent?: string; tracestate?: string }> = [];
  const server = createGuardrailServer({
    validator: {
      validate: async (request: GuardrailRequest, call?: { traceparent?: string; tracestate?: string }) => (
        passed.push({ ...call }),
        decideForTest(request)
      ),
    },
    port: 0,
  });
  servers.push(server);
  const post = (headers: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url: '/v1/validate',
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(toolCallRequest({ to: 'a@example.com', body: 'hi' })),
    });
  return { post, passed };
}

describe('guardrail service and W3C Trace Context', () => {
  it('continues a valid traceparent under its own span, answers traceresponse and passes that span on', async () => {
    const { post, passed } = serve();
    const res = await post({ traceparent: TRACEPARENT.replace(/-01$/, '-02'), tracestate: 'congo=1' });
    expect(res.statusCode).toBe(200);
    const answer = TP.exec(String(res.headers.traceresponse));
    expect(answer?.[1]).toBe(TRACE_ID);
    expect(answer?.[2]).not.toBe(SPAN_ID);
    expect(answer?.[3]).toBe('02');
    expect(passed[0]).toEqual({ traceparent: res.headers.traceresponse, tracestate: 'congo=1' });
  });

  it.each([`ff-${TRACE_ID}-${SPAN_ID}-01`, TRACEPARENT.toUpperCase(), `${TRACEPARENT}-extra`, `00-${'0'.repeat(32)}-${SPAN_ID}-01`])(
    'ignores an invalid traceparent (%s): 200, a new trace, no tracestate passed on',
    async (value) => {
      const { post, passed } = serve();
      const res = await post({ traceparent: value, tracestate: 'congo=1' });
      expect(res.statusCode).toBe(200);
      const answer = TP.exec(String(res.headers.traceresponse));
      expect(answer?.[1]).not.toBe(TRACE_ID);
      expect(passed[0]?.traceparent).toBe(res.headers.traceresponse);
      expect(passed[0]?.tracestate).toBeUndefined();
    },
  );

  it('drops an invalid tracestate whole and keeps the parent', async () => {
    const { post, passed } = serve();
    const res = await post({ traceparent: TRACEPARENT, tracestate: 'ok=1,@bad=2' });
    expect(TP.exec(String(res.headers.traceresponse))?.[1]).toBe(TRACE_ID);
    expect(passed[0]?.tracestate).toBeUndefined();
  });
});
