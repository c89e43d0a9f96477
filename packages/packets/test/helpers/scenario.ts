// The triage → refunds scenario on the REAL @openai/agents Runner, with the one public scripted
// model (@baton/manifest/testing; a labelled offline stand-in for a model).
import { Agent, Runner, tool, user } from '@openai/agents';
import type { AgentInputItem, Handoff, Model, ModelRequest, Tool } from '@openai/agents';
import { createScriptedModel, type ModelScript } from '@baton/manifest/testing';
import { z } from 'zod';
import { parsePacketInput, userTextOf } from '../../src/index.js';
import { CANARY } from './fixtures.js';

/** An agent's scripted model: the Model the agent runs with, every request it got, and all of it as one string. */
export type RecordingModel = Model & { readonly requests: ModelRequest[]; seen(): string };

function recordingModel(script: ModelScript): RecordingModel {
  const scripted = createScriptedModel({ script });
  // The agent holds this very object, so a test may wrap its getResponse (the gate's proof hook).
  return Object.assign(scripted.model, { requests: scripted.requests, seen: () => JSON.stringify(scripted.requests) });
}

/** get_case as the coordinator sees it: the whole case, free text included (the tool result canary). */
export const getCaseTool = tool({
  name: 'get_case',
  description: 'Read a support case.',
  parameters: z.object({ case_id: z.string() }),
  execute: async ({ case_id }) => JSON.stringify({ case_id, order_id: 'O-5521', notes: `Customer wrote: ${CANARY.tool}` }),
});

/** History before the run: a nested summary message (canary) and the user's request. */
export function priorHistory(): AgentInputItem[] {
  return [
    {
      role: 'system',
      content: `Summary of the earlier conversation: ${JSON.stringify({ summary: { turns: [{ who: 'customer', said: CANARY.summary }] } })}`,
    },
    user('Please refund my kettle, case C-1001.'),
  ];
}

/** The specialist: reads ONLY the packet, checks the refund window with a read-only tool, answers. */
export function refundsSpecialist(): { agent: Agent; model: RecordingModel } {
  const model = recordingModel((req: ModelRequest, index: number) => {
    if (index === 0) {
      const packet = parsePacketInput(userTextOf(req.input) ?? '');
      const fields = packet?.fields ?? {};
      return {
        toolCalls: [
          {
            name: 'check_refund_window',
            arguments: { order_id: String(fields.order_id ?? 'unknown'), purchase_date: String(fields.purchase_date ?? 'unknown') },
          },
        ],
      };
    }
    if (index > 1) throw new Error(`refunds: the scripted model has no reply ${index + 1}`);
    const first = Array.isArray(req.input) ? req.input[0] : undefined;
    const packet = parsePacketInput(userTextOf(first ? [first] : []) ?? '');
    const fields = packet?.fields ?? {};
    return { message: `Order ${String(fields.order_id ?? '?')} is eligible for a refund of ${String(fields.refund_amount ?? '?')}.` };
  });
  const checkWindow = tool({
    name: 'check_refund_window',
    description: 'Read-only: is the purchase inside the 30-day refund window?',
    parameters: z.object({ order_id: z.string(), purchase_date: z.string() }),
    execute: async ({ purchase_date }) => (purchase_date.startsWith('2026-11') ? 'inside the refund window' : 'outside the refund window'),
  });
  const agent = new Agent({ name: 'refunds', instructions: 'You review refund eligibility.', model, tools: [checkWindow] });
  return { agent, model };
}

export interface TriageOptions {
  /** The handoff to the specialist (packetHandoff, or the SDK default for control tests). */
  handoff?: Handoff<any, any> | Agent<any, any>;
  /** A tool wrapper for the specialist (packetAgentTool). */
  specialistTool?: Tool<any>;
  /** The case id the coordinator's model names. */
  caseId?: string;
}

/** The coordinator: reads the case (tool result), quotes it in an ordinary message, then routes. */
export function triageCoordinator(options: TriageOptions): { agent: Agent; model: RecordingModel } {
  const caseId = options.caseId ?? 'C-1001';
  const route = options.specialistTool ? 'refunds_review' : 'transfer_to_refunds';
  const model = recordingModel([
    { toolCalls: [{ name: 'get_case', arguments: { case_id: caseId }, id: 'call_get_case' }] },
    {
      message: `The notes quote the customer: "${CANARY.quote}". Routing to refunds.`,
      toolCalls: [{ name: route, arguments: { case_id: caseId, purpose: null }, id: 'call_route' }],
    },
    ...(options.specialistTool ? [{ message: 'The refunds team has answered.' }] : []),
  ]);
  const agent = new Agent({
    name: 'triage',
    instructions: 'You triage support cases.',
    model,
    tools: [getCaseTool, ...(options.specialistTool ? [options.specialistTool] : [])],
    handoffs: options.handoff ? [options.handoff] : [],
  });
  return { agent, model };
}

export function newRunner(): Runner {
  return new Runner({ tracingDisabled: true });
}

/** The PacketError code on an error or anywhere along its cause chain. */
export function codeIn(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e && i < 8; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}
