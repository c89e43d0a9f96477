/**
 * The one guardrail call path (issue 16): the shipped transports throw, the runner's checker
 * decides (timeout, verification, fail policy, one reason code per failure) and records every
 * decision once — in `guardrail_decisions`, the audit and the span.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardrailClient, createInProcessGuardrail } from '@baton/guardrail-client';
import type { GuardrailValidator } from '@baton/manifest';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryThreadStore, Runner } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

const AGENT = 'io.baton.test.helper';
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function answering(status: number, body: string): Promise<string> {
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(body);
    });
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

function runnerWith(guardrails: GuardrailValidator, failOpen?: Array<'AGENT_INPUT' | 'AGENT_RESPONSE'>) {
  const store = createMemoryThreadStore();
  const runner = new Runner({
    registry: registry([manifest(AGENT, { tools: [lookupTool()] })]),
    tools: { lookup_order: () => 'ok' },
    guardrails,
    store,
    modelProvider: createScriptedProvider({ scripts: { helper: [{ message: 'fine' }] } }).provider,
    ...(failOpen ? { guardrailFailOpen: failOpen } : {}),
    limits: { guardrailTimeoutMs: 60_000 },
  });
  return { runner, store };
}

describe('guardrailFailOpen through the shipped HTTP client', () => {
  it('a service that is down fails open where configured (the client no longer decides BLOCK itself)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { runner, store } = runnerWith(createGuardrailClient({ url }), ['AGENT_INPUT', 'AGENT_RESPONSE']);
    const result = await runner.run({ agentId: AGENT, input: 'hi' });
    expect(result.status).toBe('completed');
    expect(result.response).toBe('fine');
    expect(result.guardrail_decisions.map((d) => `${d.action_type}:${d.decision}:${d.reason_code}`)).toEqual([
      'AGENT_INPUT:ALLOW:GUARDRAIL_UNAVAILABLE',
      'AGENT_RESPONSE:ALLOW:GUARDRAIL_UNAVAILABLE',
    ]);
    const audit = (await store.listAudit(result.thread_id)).filter((a) => a.kind === 'guardrail_decision');
    expect(audit.map((a) => [a.data['decision'], a.data['reason_code']])).toEqual([
      ['ALLOW', 'GUARDRAIL_UNAVAILABLE'],
      ['ALLOW', 'GUARDRAIL_UNAVAILABLE'],
    ]);
  });

  it('without fail-open the same outage blocks, with the same one code', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { runner } = runnerWith(createGuardrailClient({ url }));
    const result = await runner.run({ agentId: AGENT, input: 'hi' });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('GUARDRAIL_BLOCKED');
    expect(result.guardrail_decisions).toEqual([
      { action_type: 'AGENT_INPUT', decision: 'BLOCK', reason_code: 'GUARDRAIL_UNAVAILABLE', agent_id: AGENT },
    ]);
  });
});

describe('one reason code per failure', () => {
  it('an engine that throws is GUARDRAIL_ENGINE_ERROR whether or not it is wrapped as a transport', async () => {
    const throwing: GuardrailValidator = { validate: async () => Promise.reject(new TypeError('engine broke')) };
    for (const guardrails of [throwing, createInProcessGuardrail(throwing)]) {
      const { runner, store } = runnerWith(guardrails);
      const result = await runner.run({ agentId: AGENT, input: 'hi' });
      expect(result.guardrail_decisions).toEqual([
        { action_type: 'AGENT_INPUT', decision: 'BLOCK', reason_code: 'GUARDRAIL_ENGINE_ERROR', agent_id: AGENT },
      ]);
      const [audit] = (await store.listAudit(result.thread_id)).filter((a) => a.kind === 'guardrail_decision');
      expect(audit?.data).toMatchObject({ decision: 'BLOCK', reason_code: 'GUARDRAIL_ENGINE_ERROR', failure: 'GUARDRAIL_ENGINE_ERROR' });
    }
  });

  it('a wrong answer over HTTP is GUARDRAIL_BAD_RESPONSE / GUARDRAIL_HTTP_ERROR, never fails open, and is recorded once', async () => {
    const garbage = await answering(200, '{"decision":"MAYBE"}');
    const down = await answering(503, '{"error":{"code":"overloaded","message":"busy"}}');
    const cases: Array<[string, string, 'BLOCK' | 'ALLOW']> = [
      [garbage, 'GUARDRAIL_BAD_RESPONSE', 'BLOCK'],
      [down, 'GUARDRAIL_HTTP_ERROR', 'BLOCK'],
    ];
    for (const [url, code, decision] of cases) {
      const { runner } = runnerWith(createGuardrailClient({ url }));
      const result = await runner.run({ agentId: AGENT, input: 'hi' });
      expect(result.guardrail_decisions).toEqual([{ action_type: 'AGENT_INPUT', decision, reason_code: code, agent_id: AGENT }]);
    }
  });
});

describe('handoff gates check what crosses through the runner', () => {
  const TRIAGE = 'io.baton.test.triage';
  const REFUNDS = 'io.baton.test.refunds';
  const YML = `
agents:
  ${TRIAGE}:
    handoffs: [${REFUNDS}]
`;
  function gated(
    gate: NonNullable<ConstructorParameters<typeof Runner>[0]['handoffGate']>,
    decide: Parameters<typeof scriptedGuardrail>[0] = () => undefined,
  ) {
    const models = createScriptedProvider({
      scripts: {
        triage: [
          {
            toolCalls: [
              { name: 'system__handoff', arguments: { target_agent_id: REFUNDS, input: 'model prose', state: { order_id: '1' } } },
            ],
          },
        ],
        refunds: [{ message: 'done' }],
      },
    });
    const guard = scriptedGuardrail(decide);
    const runner = new Runner({
      registry: registry([manifest(TRIAGE), manifest(REFUNDS)], YML),
      guardrails: guard.validator,
      modelProvider: models.provider,
      handoffGate: gate,
      limits: { guardrailTimeoutMs: 60_000 },
    });
    return { runner, models, guard };
  }

  it('a gate that rewrites the input without calling checkHandoff has its result checked (and blocked) by the runner', async () => {
    const { runner, models, guard } = gated({ prepare: async () => ({ input: 'gate-built input' }) }, (r) =>
      r.action_type === 'AGENT_HANDOFF' && r.payload.input === 'gate-built input'
        ? { decision: 'BLOCK', reason_code: 'TEST_CROSSING' }
        : undefined,
    );
    const result = await runner.run({ agentId: TRIAGE, input: 'hi' });
    expect(models.requests['refunds']).toBeUndefined();
    expect(
      result.guardrail_decisions.filter((d) => d.action_type === 'AGENT_HANDOFF').map((d) => `${d.decision}:${d.reason_code}`),
    ).toEqual(['ALLOW:OK', 'BLOCK:TEST_CROSSING']);
    const crossing = guard.requests.filter((r) => r.action_type === 'AGENT_HANDOFF')[1]!;
    expect(crossing.trace.trace_id).toBe(result.trace_id);
  });

  it('a gate that asks to check something that is not a handoff payload gets a BLOCK, recorded, and never reaches the guardrail', async () => {
    const { runner, models, guard } = gated({
      async prepare(request) {
        const outcome = await request.checkHandoff!({ nonsense: true } as never);
        if (outcome.decision !== 'ALLOW') throw Object.assign(new Error(`blocked ${outcome.reasonCode}`), { code: 'TEST_GATE_BLOCKED' });
        return { input: 'x' };
      },
    });
    const result = await runner.run({ agentId: TRIAGE, input: 'hi' });
    expect(models.requests['refunds']).toBeUndefined();
    expect(result.guardrail_decisions.at(-1)).toMatchObject({
      action_type: 'AGENT_HANDOFF',
      decision: 'BLOCK',
      reason_code: 'HANDOFF_CROSSING_INVALID',
    });
    expect(guard.requests.filter((r) => r.action_type === 'AGENT_HANDOFF')).toHaveLength(1);
  });
});
