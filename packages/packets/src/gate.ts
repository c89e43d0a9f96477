import { randomUUID } from 'node:crypto';
import type { GuardrailValidator, HandoffPacket } from '@baton/manifest';
import { inputDigest, inputIsPacket, viewModelRequest } from './audit/boundary.js';
import type { AuditSink, HandoffDecisionData, PacketBoundaryData } from './audit/records.js';
import { HANDOFF_DECISION_KIND, PACKET_BOUNDARY_KIND } from './audit/records.js';
import type { PacketAuth } from './auth.js';
import { buildPacketDetailed } from './builder.js';
import type { BuiltPacket } from './builder.js';
import type { CaseDataSource } from './case-data.js';
import type { RecipientContract } from './contract/schema.js';
import { AuditUnavailableError, BoundaryViolationError, PacketError } from './errors.js';
import type { PacketKeys } from './keys.js';
import type { PolicyStore } from './policy-store.js';
import { renderPacketInput } from './render.js';

/** What the runner knows when a handoff is requested (structurally `@baton/runner`'s `HandoffGateRequest`). */
export interface PacketGateRequest {
  threadId: string;
  runId: string;
  sourceAgentId: string;
  targetAgentId: string;
  /** The handoff's model-generated `input`; never copied into the packet. */
  input: string;
  /** The handoff's model-generated `state`. */
  state: Record<string, unknown>;
  /** The thread's state after the merge. */
  threadState: Record<string, unknown>;
  /** The authenticated caller. */
  auth: PacketAuth;
  traceId?: string;
}

/** What crosses (structurally `@baton/runner`'s `PreparedHandoff`). */
export interface PreparedPacketHandoff {
  /** The recipient's whole input: the rendered packet. */
  input: string;
  packetId: string;
  /** Records the `packet_boundary` proof; throws `BoundaryViolationError` if anything but the packet is sent. */
  onRecipientModelRequest(request: unknown): Promise<void>;
}

/** Which case and purpose a handoff is about. */
export interface ResolvedCase {
  /** The case id; checked against the authenticated tenant. */
  caseRef: string;
  /** The purpose; the recipient's only purpose when absent. */
  purpose?: string;
  /** A subset of the purpose's fields; all of them when absent. */
  fields?: string[];
}

export interface PacketHandoffGateOptions {
  /** A fixed contract; when absent, read from `policyStore` at every handoff. */
  contract?: RecipientContract;
  /** The policy store (contract and approvals). One of `contract` / `policyStore` is required. */
  policyStore?: PolicyStore;
  /** Where permitted case fields are read. */
  caseData: CaseDataSource;
  /** Reference and audit keys. */
  keys: PacketKeys;
  /** Where decision and boundary records go (the runner's ThreadStore fits). */
  audit: AuditSink;
  /** Picks the case and purpose; default: `case_id`/`purpose`/`fields` from the handoff state, then the thread state. */
  resolveCase?(request: PacketGateRequest): ResolvedCase | Promise<ResolvedCase>;
  /** The task statement; default: the purpose's `task` from the contract (never the model's prose). */
  task?(request: PacketGateRequest, purpose: string | undefined): string | undefined;
  /** Guardrail consulted with an AGENT_HANDOFF request for every packet. */
  guardrail?: GuardrailValidator;
  /** How the packet becomes the recipient's input (default `renderPacketInput`). */
  renderInput?(packet: HandoffPacket): string;
  /** Packet id generator (default: crypto random). */
  idGenerator?: () => string;
  /** Audit record id generator (default: crypto random). */
  auditIdGenerator?: () => string;
}

/** A gate the Baton runner calls at every handoff (structurally its `HandoffGate`). */
export interface PacketHandoffGate {
  prepare(request: PacketGateRequest): Promise<PreparedPacketHandoff>;
}

/** Default case resolution: `case_id`, `purpose`, `fields` from the handoff state, else the thread state. */
export function defaultResolveCase(request: PacketGateRequest): ResolvedCase {
  const pick = (key: string): unknown => request.state[key] ?? request.threadState[key];
  const caseRef = pick('case_id');
  const purpose = pick('purpose');
  const fields = request.state.fields;
  return {
    caseRef: typeof caseRef === 'string' ? caseRef : '',
    ...(typeof purpose === 'string' ? { purpose } : {}),
    ...(Array.isArray(fields) ? { fields: fields.map(String) } : {}),
  };
}

/**
 * The transfer gate: builds a packet from the authenticated caller and the contract, records the
 * decision, and returns the packet as the recipient's only input. Any stop is recorded as a deny
 * and thrown, so the recipient is never invoked.
 */
export function createPacketHandoffGate(options: PacketHandoffGateOptions): PacketHandoffGate {
  const newAuditId = options.auditIdGenerator ?? (() => `aud_${randomUUID().replaceAll('-', '')}`);
  const render = options.renderInput ?? renderPacketInput;
  const resolve = options.resolveCase ?? defaultResolveCase;

  const append = async (record: { id: string; threadId: string; runId: string; kind: string; data: HandoffDecisionData | PacketBoundaryData }): Promise<string> => {
    let stored: unknown;
    try {
      stored = await options.audit.appendAudit({ ...record, data: record.data as unknown as Record<string, unknown> });
    } catch (err) {
      throw new AuditUnavailableError(`audit unavailable: could not record ${record.kind}`, { cause: err });
    }
    const storedId = (stored as { id?: unknown } | undefined)?.id;
    return typeof storedId === 'string' ? storedId : record.id;
  };

  return {
    async prepare(request) {
      const base = { threadId: request.threadId, runId: request.runId };
      let built: BuiltPacket;
      let resolved: ResolvedCase | undefined;
      try {
        resolved = await resolve(request);
        const task = options.task?.(request, resolved.purpose);
        built = await buildPacketDetailed({
          ...(options.contract ? { contract: options.contract } : {}),
          ...(options.policyStore ? { policyStore: options.policyStore } : {}),
          caseData: options.caseData,
          auth: request.auth,
          caseRef: resolved.caseRef,
          recipient: request.targetAgentId,
          ...(resolved.purpose !== undefined ? { purpose: resolved.purpose } : {}),
          ...(resolved.fields !== undefined ? { fields: resolved.fields } : {}),
          ...(task !== undefined ? { task } : {}),
          keys: options.keys,
          ...(options.idGenerator ? { idGenerator: options.idGenerator } : {}),
          ...(options.guardrail
            ? { guardrail: { validator: options.guardrail, sourceAgentId: request.sourceAgentId, threadId: request.threadId, ...(request.traceId ? { traceId: request.traceId } : {}) } }
            : {}),
        });
      } catch (err) {
        const code = err instanceof PacketError ? err.code : 'INTERNAL';
        try {
          await append({
            ...base,
            id: newAuditId(),
            kind: HANDOFF_DECISION_KIND,
            data: {
              schema: 'baton.packets.handoff_decision/1',
              decision: 'deny',
              code,
              packet_id: null,
              source: request.sourceAgentId,
              destination: request.targetAgentId,
              purpose: resolved?.purpose ?? null,
              contract_version: null,
              tenant: typeof request.auth?.tenant === 'string' ? request.auth.tenant : null,
              case_reference: null,
              fields: [],
              provider: null,
            },
          });
        } catch {
          // The handoff is refused either way; the original stop is the error that matters.
        }
        throw err;
      }

      const { packet } = built;
      const decisionRecordId = await append({
        ...base,
        id: newAuditId(),
        kind: HANDOFF_DECISION_KIND,
        data: {
          schema: 'baton.packets.handoff_decision/1',
          decision: 'allow',
          code: 'ALLOWED',
          packet_id: packet.packet_id,
          source: request.sourceAgentId,
          destination: packet.recipient,
          purpose: packet.purpose,
          contract_version: packet.contract_version,
          tenant: packet.tenant,
          case_reference: built.caseReference,
          fields: built.fieldClasses,
          provider: built.provider,
        },
      });

      const input = render(packet);
      let recorded = false;
      return {
        input,
        packetId: packet.packet_id,
        async onRecipientModelRequest(modelRequest: unknown) {
          if (recorded) return;
          recorded = true;
          const view = viewModelRequest(modelRequest);
          const data: PacketBoundaryData = {
            schema: 'baton.packets.packet_boundary/1',
            packet_id: packet.packet_id,
            destination: packet.recipient,
            contract_version: packet.contract_version,
            fields: built.fieldClasses,
            digest: inputDigest(options.keys.auditKey, view),
            canonicalization: 'RFC8785',
            decision_record_id: decisionRecordId,
            input_is_packet: inputIsPacket(view, input),
            input_items: view.inputItems,
            previous_response_id_present: view.previousResponseIdPresent,
            conversation_id_present: view.conversationIdPresent,
          };
          await append({ ...base, id: newAuditId(), kind: PACKET_BOUNDARY_KIND, data });
          if (!data.input_is_packet) throw new BoundaryViolationError('boundary violation: the recipient request carries more than the packet');
          if (data.previous_response_id_present || data.conversation_id_present) {
            throw new BoundaryViolationError('boundary violation: the recipient request continues server-managed history');
          }
        },
      };
    },
  };
}
