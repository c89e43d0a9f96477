/**
 * The seed's falsification test on every recipient path of the Baton runner: the refunds
 * specialist in-process (its first model request is the boundary) and as a subprocess agent
 * (the object written to its stdin is the boundary). The coordinator (offline scenario, a
 * labelled stand-in) reads CASE-1001 through get_case and then hands off with canaries from the
 * case notes and prior messages in the handoff `input` and in a nested `state.history_summary`.
 * Real SQLite audit, real subprocess; the allow-all guardrail keeps the packet gate the only
 * thing that can stop the canaries.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GuardrailValidator } from '@baton/manifest';
import {
  createFileCaseDataSource,
  createFilePolicyStore,
  createPacketHandoffGate,
  HANDOFF_DECISION_KIND,
  PACKET_BOUNDARY_KIND,
  packetStateView,
  parsePacketInput,
  reconcilePacketAudit,
  userTextOf,
} from '@baton/packets';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createSqliteThreadStore, loadAgentRegistry, Runner } from '../../src/index.js';
import type { RunAuth, ToolImplementation } from '../../src/index.js';
import { createOfflineModelProvider } from '../../src/testing/index.js';
import { allowAllGuardrail } from '@baton/manifest/testing';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const RECIPIENT = fileURLToPath(new URL('../fixtures/packet-recipient.mjs', import.meta.url));
const TRIAGE = 'io.baton.examples.triage';
const REFUNDS = 'io.baton.examples.refunds';
const KEYS = { referenceKey: 'paths-reference-key-0123456789abcdef', auditKey: 'paths-audit-key-0123456789abcdef0123' };
const AUTH: RunAuth = { tenant: 'acme-retail', subject: 'support-user-1', roles: ['support_agent'] };
const CANARIES = ['CANARY-NOTES-7f3a', 'CANARY-MSG-1c5d'];
const PII = ['Ana Garcia', 'ana.garcia@example.com', '555 0142', 'Market Street', 'CASE-1001'];

type Mode = 'in_process' | 'subprocess';

describe('falsification on every path: canaries never reach the specialist', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-packet-paths-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The example agents with refunds in `mode`, and a triage scenario that hands off with canaries. */
  async function setup(mode: Mode, handoffCase = '{{last_tool_output.json.case_id}}') {
    const agents = join(dir, 'agents');
    await cp(join(EXAMPLES, 'agents'), agents, { recursive: true });
    const yml = parse(await readFile(join(agents, 'baton.yml'), 'utf8')) as { agents: Record<string, Record<string, unknown>> };
    if (mode === 'subprocess') {
      yml.agents[REFUNDS] = {
        mode: 'subprocess',
        process: { command: process.execPath, args: [RECIPIENT], timeout_ms: 30_000 },
        config: { capture_file: join(dir, 'stdin.json') },
      };
    }
    await writeFile(join(agents, 'baton.yml'), stringify(yml));
    const scenario = parse(await readFile(join(EXAMPLES, 'scenarios/support.scenario.yml'), 'utf8')) as {
      agents: Record<string, { rules: unknown[] }>;
    };
    scenario.agents[TRIAGE] = {
      rules: [
        {
          name: 'load the case',
          when: { turn: 1, input_matches: '(CASE-\\d+)' },
          call: { name: 'get_case', arguments: { case_id: '{{input_match.1}}' } },
        },
        {
          name: 'hand off with everything it read',
          when: { tool: 'get_case' },
          handoff: {
            target: 'refund',
            input: 'Refund for order {{last_tool_output.json.order_id}}. Notes: {{last_tool_output.json.notes}}',
            state: {
              case_id: handoffCase,
              order_id: '{{last_tool_output.json.order_id}}',
              history_summary: { notes: '{{last_tool_output.json.notes}}', messages: '{{last_tool_output.json.prior_messages}}' },
            },
          },
        },
      ],
    };
    const scenarioFile = join(dir, 'canaries.scenario.yml');
    await writeFile(scenarioFile, stringify(scenario));
    return { agents, scenarioFile };
  }

  async function run(mode: Mode, options: { gate?: boolean; auth?: RunAuth; handoffCase?: string; guardrails?: GuardrailValidator } = {}) {
    const { agents, scenarioFile } = await setup(mode, options.handoffCase);
    const store = createSqliteThreadStore({ file: join(dir, 'baton.db') });
    const tools = (
      (await import(pathToFileURL(join(EXAMPLES, 'tools/support-tools.mjs')).href)) as { tools: Record<string, ToolImplementation> }
    ).tools;
    const captured: Array<{ agentId: string; request: { input: unknown } }> = [];
    const gate =
      options.gate === false
        ? undefined
        : createPacketHandoffGate({
            policyStore: createFilePolicyStore({ file: join(EXAMPLES, 'contracts/refunds.contract.yml') }),
            caseData: createFileCaseDataSource({ file: join(EXAMPLES, 'data/cases.json') }),
            keys: KEYS,
            audit: store,
          });
    const runner = new Runner({
      registry: await loadAgentRegistry({ dir: agents }),
      tools,
      guardrails: options.guardrails ?? allowAllGuardrail(),
      store,
      modelProvider: await createOfflineModelProvider({ scenario: scenarioFile }),
      ...(gate ? { handoffGate: gate } : {}),
      onModelRequest: (event) => {
        captured.push({ agentId: event.agentId, request: structuredClone(event.request) as { input: unknown } });
      },
    });
    const result = await runner.run({
      agentId: TRIAGE,
      input: 'Please refund CASE-1001, the headphones arrived broken.',
      auth: options.auth ?? AUTH,
    });
    const audit = await store.listAudit(result.thread_id);
    await store.close();
    const stdinText = await readFile(join(dir, 'stdin.json'), 'utf8').catch(() => undefined);
    const toTriage = JSON.stringify(captured.filter((c) => c.agentId === TRIAGE));
    const toRefunds = captured.filter((c) => c.agentId === REFUNDS);
    // Everything that reached the specialist, whichever the path.
    const seenByRefunds = mode === 'subprocess' ? (stdinText ?? '') : JSON.stringify(toRefunds);
    return { result, audit, stdinText, toTriage, toRefunds, seenByRefunds };
  }

  for (const mode of ['in_process', 'subprocess'] as const) {
    it(`${mode}: only the packet crosses; the boundary proof is recorded and reconciles`, async () => {
      const { result, audit, stdinText, toTriage, toRefunds, seenByRefunds } = await run(mode);
      // The coordinator really read every canary.
      for (const c of CANARIES) expect(toTriage).toContain(c);
      expect(result.status).toBe('completed');
      expect(result.agent_id).toBe(REFUNDS);
      expect(result.response).toContain('ORD-73914');
      expect(seenByRefunds.length).toBeGreaterThan(0);
      for (const c of [...CANARIES, ...PII]) expect(seenByRefunds).not.toContain(c);

      const decision = audit.find((a) => a.kind === HANDOFF_DECISION_KIND)!;
      const boundary = audit.find((a) => a.kind === PACKET_BOUNDARY_KIND)!;
      expect(decision.data).toMatchObject({ decision: 'allow', destination: REFUNDS });
      let captured: unknown;
      if (mode === 'subprocess') {
        expect(toRefunds).toHaveLength(0);
        const stdin = JSON.parse(stdinText!) as { input_message: { content: string }; state: Record<string, unknown> };
        const packet = parsePacketInput(stdin.input_message.content)!;
        expect(packet.recipient).toBe(REFUNDS);
        // Only contract-approved fields in the state; nothing the model wrote in the handoff.
        expect(stdin.state).toEqual(packetStateView(packet));
        expect(Object.keys(stdin.state).every((k) => Object.hasOwn(packet.field_classes, k))).toBe(true);
        expect(stdin.state).not.toHaveProperty('history_summary');
        expect(boundary.data).toMatchObject({
          transport: 'process_stdin',
          input_is_packet: true,
          packet_id: packet.packet_id,
          decision_record_id: decision.id,
        });
        captured = stdin;
      } else {
        captured = toRefunds[0]!.request;
        expect(parsePacketInput(userTextOf(toRefunds[0]!.request.input) ?? '')).toBeDefined();
        expect(boundary.data).toMatchObject({ transport: 'model_request', input_is_packet: true, decision_record_id: decision.id });
      }
      expect(reconcilePacketAudit({ captured, boundaryRecord: boundary, decisionRecord: decision, auditKey: KEYS.auditKey })).toEqual({
        ok: true,
        problems: [],
      });
      // The specialist's returned state (its packet view, unchanged) does not overwrite the thread.
      expect(result.state).toMatchObject({ case_id: 'CASE-1001', order_id: 'ORD-73914' });
    }, 120_000);

    it(`${mode}: a case the coordinator did not read is refused before the specialist runs (CASE_NOT_BOUND)`, async () => {
      const { result, audit, stdinText, toRefunds } = await run(mode, { handoffCase: 'CASE-1002' });
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('CASE_NOT_BOUND');
      expect(result.runs.map((r) => r.agent_id)).toEqual([TRIAGE]);
      expect(stdinText).toBeUndefined();
      expect(toRefunds).toHaveLength(0);
      expect(audit.find((a) => a.kind === HANDOFF_DECISION_KIND)?.data).toMatchObject({ decision: 'deny', code: 'CASE_NOT_BOUND' });
      expect(audit.find((a) => a.kind === PACKET_BOUNDARY_KIND)).toBeUndefined();

      // A read whose output the TOOL_OUTPUT guardrail withheld is no evidence.
      const withheld = await run(mode, {
        guardrails: {
          validate: async (request) =>
            request.action_type === 'TOOL_OUTPUT'
              ? { action_id: request.action_id, decision: 'BLOCK', reason_code: 'TEST_BLOCK', reason_message: 'withheld' }
              : { action_id: request.action_id, decision: 'ALLOW', reason_code: 'TEST_ALLOW', reason_message: 'test guardrail' },
        },
        handoffCase: 'CASE-1001',
      });
      expect(withheld.result.error?.code).toBe('CASE_NOT_BOUND');
      expect(withheld.stdinText).toBeUndefined();

      // The caller's allowed cases decide too: CASE-1001 read but not allowed to this caller.
      const other = await run(mode, { auth: { ...AUTH, allowedCases: ['CASE-1002'] } });
      expect(other.result.error?.code).toBe('CASE_NOT_BOUND');
      expect(other.stdinText).toBeUndefined();
    }, 120_000);
  }

  it('CONTROL: without the gate, the subprocess specialist receives the canaries (so the test above can fail)', async () => {
    const { seenByRefunds } = await run('subprocess', { gate: false });
    expect(CANARIES.filter((c) => seenByRefunds.includes(c)).sort()).toEqual([...CANARIES].sort());
  }, 120_000);
});
