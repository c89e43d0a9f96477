import { randomBytes } from 'node:crypto';
import { handoff, user } from '@openai/agents';
import type { Agent, AgentOutputType, Handoff, HandoffInputData, RunContext } from '@openai/agents';
import { z } from 'zod';
import type { AuditSink } from '../audit/records.js';
import type { PacketAuth } from '../auth.js';
import type { CaseDataSource } from '../case-data.js';
import type { RecipientContract } from '../contract/schema.js';
import { PacketMissingError } from '../errors.js';
import { createPacketHandoffGate } from '../gate.js';
import type { PacketGateRequest, PreparedPacketHandoff, ResolvedCase } from '../gate.js';
import type { GuardrailValidator } from '@baton/manifest';
import type { PolicyStore } from '../policy-store.js';

/** The model-facing handoff arguments: metadata only, never the recipient's input. */
export const PacketHandoffArgsSchema = z.object({
  case_id: z.string().describe('The id of the case the specialist should work on.'),
  purpose: z.string().nullable().describe('The purpose of the handoff, or null for the default.'),
});
export type PacketHandoffArgs = z.infer<typeof PacketHandoffArgsSchema>;

export interface PacketHandoffOptions<TContext = unknown> {
  /** A fixed contract; or give `policyStore`. */
  contract?: RecipientContract;
  /** Contract and approvals source. */
  policyStore?: PolicyStore;
  /** Where permitted case fields are read. */
  caseData: CaseDataSource;
  /** Reference key, and the audit key when `audit` is given. */
  keys: { referenceKey: string | Uint8Array; auditKey?: string | Uint8Array };
  /** The authenticated caller, fixed or read from the app's run context (never from the model). */
  auth: PacketAuth | ((context: RunContext<TContext>) => PacketAuth | undefined);
  /** The recipient's id in the contract (default: the agent's name). */
  recipient?: string;
  /** The coordinator's id, for audit and guardrail requests (default `sdk.coordinator`). */
  sourceAgentId?: string;
  /** Thread id recorded with audit records (default: a random one per handoff). */
  threadId?: string;
  /** Picks the case and purpose; default: the handoff arguments `case_id` / `purpose`. */
  resolveCase?(args: { context: RunContext<TContext>; args: PacketHandoffArgs }): ResolvedCase | Promise<ResolvedCase>;
  /** Audit sink for decision and boundary records. */
  audit?: AuditSink;
  /** Guardrail consulted with an AGENT_HANDOFF request for each packet. */
  guardrail?: GuardrailValidator;
  /** Called with each prepared crossing, e.g. to record the boundary from a model wrapper. */
  onPrepared?(prepared: PreparedPacketHandoff): void;
  /** Tool name (default: the SDK's `transfer_to_<agent>`). */
  toolNameOverride?: string;
  toolDescriptionOverride?: string;
}

const discardAudit: AuditSink = { appendAudit: async () => undefined };

/**
 * An `@openai/agents` handoff whose target receives ONLY a purpose-bound packet. `onHandoff`
 * (async) builds the packet and runs every policy check, throwing to refuse; the synchronous
 * `inputFilter` then replaces the input history, earlier items and new items with the packet.
 * The SDK refuses filtered handoffs on server-managed history (conversationId /
 * previousResponseId); start a separate client-managed run with the packet there instead.
 */
export function packetHandoff<TContext = unknown, TOutput extends AgentOutputType = AgentOutputType>(
  agent: Agent<TContext, TOutput>,
  options: PacketHandoffOptions<TContext>,
): Handoff<TContext, TOutput> {
  const gate = createPacketHandoffGate({
    ...(options.contract ? { contract: options.contract } : {}),
    ...(options.policyStore ? { policyStore: options.policyStore } : {}),
    caseData: options.caseData,
    keys: { referenceKey: options.keys.referenceKey, auditKey: options.keys.auditKey ?? randomBytes(32) },
    audit: options.audit ?? discardAudit,
    ...(options.guardrail ? { guardrail: options.guardrail } : {}),
    resolveCase: (request) => {
      const pending = resolving.get(request);
      if (!pending) throw new PacketMissingError('packet handoff: no handoff arguments to resolve');
      return options.resolveCase
        ? options.resolveCase(pending)
        : { caseRef: pending.args.case_id, ...(pending.args.purpose ? { purpose: pending.args.purpose } : {}) };
    },
  });
  const resolving = new WeakMap<PacketGateRequest, { context: RunContext<TContext>; args: PacketHandoffArgs }>();
  // The filter is synchronous and gets no call id; the run context is the object both calls share.
  const prepared = new WeakMap<object, PreparedPacketHandoff>();
  const recipient = options.recipient ?? agent.name;

  const inputFilter = (data: HandoffInputData): HandoffInputData => {
    const ctx = data.runContext;
    const crossing = ctx ? prepared.get(ctx) : undefined;
    if (!ctx || !crossing)
      throw new PacketMissingError('packet handoff: the input filter ran without a packet from onHandoff (refusing to forward history)');
    prepared.delete(ctx);
    return { inputHistory: [user(crossing.input)], preHandoffItems: [], newItems: [], runContext: ctx };
  };

  return handoff(agent, {
    inputType: PacketHandoffArgsSchema,
    ...(options.toolNameOverride ? { toolNameOverride: options.toolNameOverride } : {}),
    ...(options.toolDescriptionOverride ? { toolDescriptionOverride: options.toolDescriptionOverride } : {}),
    inputFilter,
    onHandoff: async (context: RunContext<TContext>, args?: PacketHandoffArgs) => {
      if (!args) throw new PacketMissingError('packet handoff: the handoff call carried no arguments');
      const auth = typeof options.auth === 'function' ? options.auth(context) : options.auth;
      const request: PacketGateRequest = {
        threadId: options.threadId ?? `sdk_${randomBytes(9).toString('base64url')}`,
        runId: 'sdk-run',
        sourceAgentId: options.sourceAgentId ?? 'sdk.coordinator',
        targetAgentId: recipient,
        input: '',
        state: {},
        threadState: {},
        auth: auth ?? {},
      };
      resolving.set(request, { context, args });
      const crossing = await gate.prepare(request);
      prepared.set(context, crossing);
      options.onPrepared?.(crossing);
    },
  });
}
