/**
 * The packet gate on the wire: the example agents through the real Baton runner, the REAL OpenAI
 * model classes over HTTP against a local scripted server (a labelled stand-in for the API), and
 * the real in-process guardrail engine. Asserts on the exact bytes each model request carried.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGuardrailEngine } from '@baton/guardrail-server';
import {
  createFileCaseDataSource,
  createFilePolicyStore,
  createPacketHandoffGate,
  HANDOFF_DECISION_KIND,
  PACKET_BOUNDARY_KIND,
  parsePacketInput,
  reconcilePacketAudit,
} from '@baton/packets';
import { OpenAIProvider } from '@openai/agents-openai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import type { ToolImplementation } from '../../src/index.js';
import { startScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';
import type { RecordedRequest, ScriptedOpenAIServer, ScriptedTurn } from '../../src/testing/scripted-openai-server.js';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const REFUNDS = 'io.baton.examples.refunds';
const KEYS = { referenceKey: 'wire-reference-key-0123456789abcdef', auditKey: 'wire-audit-key-0123456789abcdef0123' };
const CANARY = /CANARY-[A-Z]+-[0-9a-f]+/;

type Api = 'chat' | 'responses';

function toolNames(req: RecordedRequest): string[] {
  const tools = (req.body.tools ?? []) as Array<Record<string, unknown>>;
  return tools.map((t) => String(req.api === 'chat' ? (t.function as { name: string }).name : t.name));
}
function conversation(req: RecordedRequest): string {
  return JSON.stringify(req.api === 'chat' ? req.body.messages : req.body.input);
}
function handoffTarget(req: RecordedRequest): string {
  const tools = (req.body.tools ?? []) as Array<Record<string, unknown>>;
  const t = tools
    .map(
      (x) =>
        (req.api === 'chat' ? x.function : x) as { name: string; parameters: { properties: { target_agent_id?: { enum?: string[] } } } },
    )
    .find((x) => x.name === 'system__handoff');
  return t?.parameters.properties.target_agent_id?.enum?.[0] ?? 'missing';
}

/**
 * What a model might do: triage loads the case, then hands off and — carelessly — quotes the case
 * notes in its handoff input. Refunds reads the order id out of whatever it was given.
 */
function script(req: RecordedRequest): ScriptedTurn {
  const names = toolNames(req);
  const text = conversation(req);
  if (names.includes('get_case')) {
    if (!text.includes('order_id')) return { toolCalls: [{ name: 'get_case', arguments: { case_id: 'CASE-1001' } }] };
    const quoted = /CANARY-NOTES-[0-9a-f]+/.exec(text)?.[0] ?? 'no canary seen';
    return {
      toolCalls: [
        {
          name: 'system__handoff',
          arguments: {
            target_agent_id: handoffTarget(req),
            input: `Refund for CASE-1001; notes say ${quoted}`,
            state: { case_id: 'CASE-1001' },
          },
        },
      ],
    };
  }
  if (!/"role":"tool"|function_call_output/.test(text)) {
    const order = /ORD-\d+/.exec(text)?.[0] ?? 'ORD-missing';
    return { toolCalls: [{ name: 'get_order', arguments: { order_id: order } }] };
  }
  return { message: 'Recommendation: approve the refund for ORD-73914 under clause R-2.1.' };
}

describe.each<Api>(['chat', 'responses'])('packet gate over the wire (%s)', (api) => {
  let server: ScriptedOpenAIServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the bytes sent to the refunds model hold the packet and nothing from the case notes or history', async () => {
    server = await startScriptedOpenAIServer({ script, api });
    dir = await mkdtemp(join(tmpdir(), 'baton-packets-wire-'));
    const store = createSqliteThreadStore({ file: join(dir, 'baton.db') });
    const engine = createGuardrailEngine();
    const tools = (
      (await import(pathToFileURL(join(EXAMPLES, 'tools/support-tools.mjs')).href)) as { tools: Record<string, ToolImplementation> }
    ).tools;
    const captured: Array<{ agentId: string; request: unknown }> = [];
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: join(EXAMPLES, 'agents') }),
      tools,
      guardrails: engine,
      store,
      modelProvider: new OpenAIProvider({
        openAIClient: new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 }),
        useResponses: api === 'responses',
      }),
      modelLabel: 'scripted openai-compatible server',
      handoffGate: createPacketHandoffGate({
        policyStore: createFilePolicyStore({ file: join(EXAMPLES, 'contracts/refunds.contract.yml') }),
        caseData: createFileCaseDataSource({ file: join(EXAMPLES, 'data/cases.json') }),
        keys: KEYS,
        audit: store,
        guardrail: engine,
      }),
      onModelRequest: (e) => void captured.push({ agentId: e.agentId, request: structuredClone(e.request) }),
    });

    const result = await runner.run({
      agentId: 'io.baton.examples.triage',
      input: 'I want a refund for CASE-1001, my headphones arrived broken.',
      auth: { tenant: 'acme-retail', subject: 'support-user-1', roles: ['support_agent'] },
    });
    const audit = await store.listAudit(result.thread_id);
    await store.close();

    expect(result.guardrail_decisions.filter((d) => d.decision === 'BLOCK')).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.agent_id).toBe(REFUNDS);
    expect(result.response).toContain('ORD-73914');

    const toTriage = server.requests.filter((r) => toolNames(r).includes('get_case'));
    const toRefunds = server.requests.filter((r) => toolNames(r).includes('get_order'));
    expect(toTriage.some((r) => CANARY.test(r.raw))).toBe(true);
    expect(toRefunds.length).toBe(2);
    for (const r of toRefunds) {
      expect(r.raw).not.toMatch(CANARY);
      for (const pii of ['Ana Garcia', 'ana.garcia@example.com', '555 0142', 'Market Street', 'CASE-1001'])
        expect(r.raw).not.toContain(pii);
      expect(r.body.previous_response_id).toBeUndefined();
      expect(r.body.conversation).toBeUndefined();
    }
    const first = captured.find((c) => c.agentId === REFUNDS)!.request;
    const packetInput = String((first as { input: Array<{ content: string }> }).input[0]!.content);
    // The packet, byte for byte, is what went over the wire as the user's message.
    expect(toRefunds[0]!.raw).toContain(JSON.stringify(packetInput).slice(1, -1));
    const decision = audit.find((a) => a.kind === HANDOFF_DECISION_KIND)!;
    const boundary = audit.find((a) => a.kind === PACKET_BOUNDARY_KIND)!;
    expect(reconcilePacketAudit({ captured: first, boundaryRecord: boundary, decisionRecord: decision, auditKey: KEYS.auditKey })).toEqual({
      ok: true,
      problems: [],
    });
    expect(parsePacketInput(packetInput)?.fields.order_id).toBe('ORD-73914');
  }, 60_000);
});
