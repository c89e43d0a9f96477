// Every outbound hop of a run carries the W3C context of a Baton span of its own: the model's
// HTTP calls (a real OpenAI client), the guardrail client (a real guardrail service), a tool's
// fetch, and a subprocess agent's stdin. No OpenTelemetry SDK is registered here on purpose:
// without one, the hops used to carry the caller's span id, and an unsampled parent became `-01`.
import path from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createGuardrailClient } from '@baton/guardrail-client';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { createGuardrailServer, type GuardrailServer } from '@baton/guardrail-server/http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Runner, resolveModelProvider } from '../../src/index.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';
import { manifest, registry } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACESTATE = 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7';
const AGENT = 'io.baton.test.fetcher';
const PROC = 'io.baton.test.proc';
const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'scripted-agent.mjs');
const TP = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

interface Hop {
  via: string;
  traceparent: string | undefined;
  tracestate: string | undefined;
}

const header = (h: IncomingMessage['headers'], name: string) => (typeof h[name] === 'string' ? (h[name] as string) : undefined);

let model: ScriptedOpenAIServer | undefined;
let guardrail: GuardrailServer | undefined;
let toolApi: Server | undefined;
afterEach(async () => {
  await model?.close();
  await guardrail?.close();
  await new Promise<void>((resolve) => (toolApi ? toolApi.close(() => resolve()) : resolve()));
  model = guardrail = toolApi = undefined;
});

async function setup() {
  const hops: Hop[] = [];
  const guardrailAnswers: string[] = [];
  model = await startScriptedOpenAIServer({
    api: 'chat',
    script: (req) =>
      JSON.stringify(req.body.messages).includes('status: green')
        ? { message: 'all green' }
        : { toolCalls: [{ name: 'fetch_status', arguments: {} }] },
  });
  // This file checks trace headers, not load shedding: on a saturated machine a check may wait in
  // the worker pool's queue longer than the production 5 s (then the service answers 503 and the
  // runner fails closed), so the queue wait here is roomy.
  guardrail = createGuardrailServer({ validator: createGuardrailEngine(), port: 0, queueTimeoutMs: 120_000 });
  guardrail.app.addHook('onRequest', (req, _reply, done) => {
    hops.push({ via: 'guardrail', traceparent: header(req.headers, 'traceparent'), tracestate: header(req.headers, 'tracestate') });
    done();
  });
  guardrail.app.addHook('onSend', (_req, reply, payload, done) => {
    guardrailAnswers.push(String(reply.getHeader('traceresponse')));
    done(null, payload);
  });
  const guardrailUrl = (await guardrail.listen()).url;
  toolApi = createServer((req, res) => {
    hops.push({ via: 'tool', traceparent: header(req.headers, 'traceparent'), tracestate: header(req.headers, 'tracestate') });
    res.end('status: green');
  });
  await new Promise<void>((resolve) => toolApi!.listen(0, '127.0.0.1', resolve));
  const toolUrl = `http://127.0.0.1:${(toolApi.address() as AddressInfo).port}/status`;

  const resolved = await resolveModelProvider({ env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test' } });
  const runner = new Runner({
    registry: registry(
      [
        manifest(AGENT, {
          tools: [
            {
              type: 'function',
              function: {
                name: 'fetch_status',
                description: 'Reads the status.',
                parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
              },
            },
          ],
        }),
        manifest(PROC),
      ],
      `agents:\n  ${PROC}:\n    mode: subprocess\n    process:\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(FIXTURE)}]\n      timeout_ms: 20000\n`,
    ),
    tools: { fetch_status: async (_args, ctx) => (await ctx.fetch(toolUrl)).text() },
    guardrails: createGuardrailClient({ url: guardrailUrl, timeoutMs: 20_000 }),
    // A loaded machine must not turn a slow guardrail answer into a fail-closed timeout here.
    limits: { guardrailTimeoutMs: 60_000 },
    modelProvider: resolved.provider,
  });
  const modelHops = () =>
    model!.requests.map((r): Hop => ({
      via: 'model',
      traceparent: header(r.headers, 'traceparent'),
      tracestate: header(r.headers, 'tracestate'),
    }));
  return { runner, hops, modelHops, guardrailAnswers };
}

describe.each([
  ['unsampled', '00'],
  ['sampled', '01'],
  ['random, unsampled (Level 2)', '02'],
  ['random, sampled (Level 2)', '03'],
])('outbound hops under a %s caller', (_label, flags) => {
  it("each carries its own Baton span id, the caller's trace id, flags and tracestate", async () => {
    const { runner, hops, modelHops, guardrailAnswers } = await setup();
    const result = await runner.run({
      agentId: AGENT,
      input: 'check the status',
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-${flags}`,
      tracestate: TRACESTATE,
    });
    expect(result.status).toBe('completed');
    expect(result.response).toBe('all green');

    const all = [...modelHops(), ...hops];
    expect(all.filter((h) => h.via === 'model')).toHaveLength(2);
    expect(all.filter((h) => h.via === 'tool')).toHaveLength(1);
    // AGENT_INPUT, TOOL_CALL, TOOL_OUTPUT, AGENT_RESPONSE.
    expect(all.filter((h) => h.via === 'guardrail')).toHaveLength(4);
    const spanIds = all.map((hop) => {
      const m = TP.exec(hop.traceparent ?? '');
      expect(m, `${hop.via} sent a traceparent`).not.toBeNull();
      expect(m![1]).toBe(TRACE_ID);
      expect(m![2]).not.toBe(CALLER_SPAN);
      expect(m![3], `${hop.via} keeps the flags`).toBe(flags);
      expect(hop.tracestate, `${hop.via} carries tracestate`).toBe(TRACESTATE);
      return m![2];
    });
    // Every hop names a different span: two chat spans, one tool span, four guardrail spans.
    expect(new Set(spanIds).size).toBe(all.length);
    // The guardrail service continues the trace and names its own span in `traceresponse`.
    for (const answer of guardrailAnswers) {
      const m = TP.exec(answer);
      expect(m?.[1]).toBe(TRACE_ID);
      expect(spanIds).not.toContain(m?.[2]);
    }
  });

  it('a subprocess agent gets its own parent span id, the flags as received and the tracestate on stdin', async () => {
    const { runner } = await setup();
    const result = await runner.run({
      agentId: PROC,
      input: 'inspect',
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-${flags}`,
      tracestate: TRACESTATE,
    });
    expect(result.status).toBe('completed');
    const { trace } = JSON.parse(result.response!) as { trace: Record<string, string> };
    expect(trace.trace_id).toBe(TRACE_ID);
    expect(trace.parent_span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.parent_span_id).not.toBe(CALLER_SPAN);
    expect(trace.trace_flags).toBe(flags);
    expect(trace.tracestate).toBe(TRACESTATE);
  });
});

describe('a run with no caller context', () => {
  it('starts a random, unsampled trace and still gives every hop its own span', async () => {
    const { runner, hops, modelHops } = await setup();
    const result = await runner.run({ agentId: AGENT, input: 'check the status' });
    const all = [...modelHops(), ...hops];
    const parsed = all.map((h) => TP.exec(h.traceparent ?? ''));
    expect(parsed.every((m) => m?.[1] === result.trace_id && m?.[3] === '02')).toBe(true);
    expect(new Set(parsed.map((m) => m?.[2])).size).toBe(all.length);
    expect(all.every((h) => h.tracestate === undefined)).toBe(true);
  });
});
