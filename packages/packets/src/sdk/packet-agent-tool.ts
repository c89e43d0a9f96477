import { randomBytes } from 'node:crypto';
import { Runner, tool } from '@openai/agents';
import type { Agent, AgentOutputType, FunctionTool, RunContext } from '@openai/agents';
import type { GuardrailValidator } from '@baton/manifest';
import type { AuditSink } from '../audit/records.js';
import type { PacketAuth } from '../auth.js';
import type { CaseDataSource } from '../case-data.js';
import type { RecipientContract } from '../contract/schema.js';
import { createPacketHandoffGate } from '../gate.js';
import type { ResolvedCase } from '../gate.js';
import type { PolicyStore } from '../policy-store.js';
import { PacketHandoffArgsSchema } from './packet-handoff.js';
import type { PacketHandoffArgs } from './packet-handoff.js';

export interface PacketAgentToolOptions<TContext = unknown> {
  /** Tool name the coordinator calls (`^[a-zA-Z0-9_-]{1,64}$`). */
  toolName: string;
  /** Tool description for the coordinator's model. */
  toolDescription: string;
  contract?: RecipientContract;
  policyStore?: PolicyStore;
  caseData: CaseDataSource;
  keys: { referenceKey: string | Uint8Array; auditKey?: string | Uint8Array };
  /** The authenticated caller, fixed or read from the app's run context. */
  auth: PacketAuth | ((context: RunContext<TContext>) => PacketAuth | undefined);
  /** The recipient's id in the contract (default: the agent's name). */
  recipient?: string;
  sourceAgentId?: string;
  threadId?: string;
  resolveCase?(args: { args: PacketHandoffArgs }): ResolvedCase | Promise<ResolvedCase>;
  audit?: AuditSink;
  guardrail?: GuardrailValidator;
  /** Runner for the separate specialist run (default: a new `Runner()`). */
  runner?: Runner;
  /** Turn limit of the specialist run (default 6). */
  maxTurns?: number;
}

const discardAudit: AuditSink = { appendAudit: async () => undefined };

/**
 * A subagent-as-tool wrapper that sends only the packet: each call builds a packet from the
 * authenticated caller and starts a SEPARATE run of `agent` whose whole input is the packet — no
 * parent history, no conversation id, no previous-response id — and returns its final output.
 * This is also how a coordinator on server-managed history reaches a specialist.
 */
export function packetAgentTool<TContext = unknown, TAgentContext = unknown, TOutput extends AgentOutputType = AgentOutputType>(
  agent: Agent<TAgentContext, TOutput>,
  options: PacketAgentToolOptions<TContext>,
): FunctionTool<TContext, typeof PacketHandoffArgsSchema, string> {
  const gate = createPacketHandoffGate({
    ...(options.contract ? { contract: options.contract } : {}),
    ...(options.policyStore ? { policyStore: options.policyStore } : {}),
    caseData: options.caseData,
    keys: { referenceKey: options.keys.referenceKey, auditKey: options.keys.auditKey ?? randomBytes(32) },
    audit: options.audit ?? discardAudit,
    ...(options.guardrail ? { guardrail: options.guardrail } : {}),
    resolveCase: (request) => {
      const args = request.state as unknown as PacketHandoffArgs;
      return options.resolveCase
        ? options.resolveCase({ args })
        : { caseRef: args.case_id, ...(args.purpose ? { purpose: args.purpose } : {}) };
    },
  });
  const recipient = options.recipient ?? agent.name;
  return tool({
    name: options.toolName,
    description: options.toolDescription,
    parameters: PacketHandoffArgsSchema,
    // A refused packet must surface as a failure of the coordinator's run, not as text the model reads.
    errorFunction: null,
    execute: async (args: PacketHandoffArgs, context?: RunContext<TContext>) => {
      const auth = typeof options.auth === 'function' ? (context ? options.auth(context) : undefined) : options.auth;
      const prepared = await gate.prepare({
        threadId: options.threadId ?? `sdk_${randomBytes(9).toString('base64url')}`,
        runId: 'sdk-run',
        sourceAgentId: options.sourceAgentId ?? 'sdk.coordinator',
        targetAgentId: recipient,
        input: '',
        state: { ...args },
        threadState: {},
        auth: auth ?? {},
      });
      let first = true;
      const runner = options.runner ?? new Runner();
      const result = await runner.run(agent, prepared.input, {
        maxTurns: options.maxTurns ?? 6,
        callModelInputFilter: async ({ modelData }) => {
          if (first) {
            first = false;
            await prepared.onRecipientModelRequest({ input: modelData.input });
          }
          return modelData;
        },
      });
      return String(result.finalOutput ?? '');
    },
  });
}
