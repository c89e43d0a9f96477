import { randomUUID } from 'node:crypto';
import type { GuardrailValidator, HandoffPacket } from '@baton/manifest';
import type {
  HandoffGate,
  HandoffGateRequest,
  HandoffGateToolResult,
  HandoffGuardrailCheck,
  PreparedHandoff,
} from '@baton/manifest/contracts';
import { inputDigest, inputIsPacket, viewModelRequest, type BoundaryTransport, type BoundaryView } from './audit/boundary.js';
import type { AuditSink, HandoffDecisionData, PacketBoundaryData } from './audit/records.js';
import { HANDOFF_DECISION_KIND, PACKET_BOUNDARY_KIND } from './audit/records.js';
import type { PacketAuth } from './auth.js';
import { buildPacketDetailed } from './builder.js';
import type { BuiltPacket } from './builder.js';
import type { CaseDataSource } from './case-data.js';
import type { RecipientContract } from './contract/schema.js';
import { AuditUnavailableError, BoundaryViolationError, CaseNotBoundError, PacketError } from './errors.js';
import type { PacketKeys } from './keys.js';
import type { PolicyStore } from './policy-store.js';
import { renderPacketInput } from './render.js';
import { packetStateView, stateIsPacketView } from './state-view.js';

/** A tool call that succeeded earlier on the thread: the one contract, `@baton/manifest/contracts`' `HandoffGateToolResult`. */
export type PacketGateToolResult = HandoffGateToolResult;

/** What the runner knows when a handoff is requested: the one contract, `HandoffGateRequest` (its `auth` is `PacketAuth`). */
export type PacketGateRequest = HandoffGateRequest;

/** What crosses: the contract's `PreparedHandoff` with every part present (a packet gate always builds a packet). */
export interface PreparedPacketHandoff extends PreparedHandoff {
  /** The recipient's whole input: the rendered packet. */
  input: string;
  packetId: string;
  /** The `state` a subprocess recipient receives on stdin: only the packet's contract-approved fields. */
  state: Record<string, unknown>;
  /** Records the `packet_boundary` proof; throws `BoundaryViolationError` if anything but the packet is sent. */
  onRecipientModelRequest(request: unknown): Promise<void>;
  /**
   * The same proof for a subprocess recipient, with the exact object about to be written to its
   * stdin (digest over all of it); throws `BoundaryViolationError` if its `input_message` is not
   * the packet or its `state` is not exactly `state`, so the process is never started.
   */
  onRecipientProcessInput(stdin: unknown): Promise<void>;
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
  /**
   * Picks the case and purpose. The deployment's resolver is trusted to bind the case to the
   * authenticated caller. Default: {@link defaultResolveCase} (the caller's allowed cases, or a
   * model-named case the source agent read in this thread).
   */
  resolveCase?(request: PacketGateRequest): ResolvedCase | Promise<ResolvedCase>;
  /**
   * Tools whose successful calls prove an agent read a case: tool name → the argument holding the
   * case id. Default `{ get_case: 'case_id' }`.
   */
  caseReadTools?: Record<string, string>;
  /** The task statement; default: the purpose's `task` from the contract (never the model's prose). */
  task?(request: PacketGateRequest, purpose: string | undefined): string | undefined;
  /**
   * Requires a guardrail check of every packet. The check itself is the caller's
   * (`request.checkHandoff`, which the Baton runner supplies and records); a request without one
   * is refused (`TASK_BLOCKED`, fail closed). With a `checkHandoff` the packet is checked whether
   * or not this is set. The validator given here is not called: requests are built in one place.
   */
  guardrail?: GuardrailValidator | boolean;
  /** How the packet becomes the recipient's input (default `renderPacketInput`). */
  renderInput?(packet: HandoffPacket): string;
  /** Packet id generator (default: crypto random). */
  idGenerator?: () => string;
  /** Audit record id generator (default: crypto random). */
  auditIdGenerator?: () => string;
}

/** A gate the Baton runner calls at every handoff: the contract's `HandoffGate`, returning a packet every time. */
export type PacketHandoffGate = HandoffGate<PreparedPacketHandoff>;

/** Options of {@link defaultResolveCase}. */
export interface DefaultResolveCaseOptions {
  /** Tool name → argument holding the case id (default `{ get_case: 'case_id' }`). */
  caseReadTools?: Record<string, string>;
}

const DEFAULT_CASE_READ_TOOLS: Readonly<Record<string, string>> = { get_case: 'case_id' };

/**
 * Default case resolution, bound to the caller. The case comes from the authenticated request
 * (`auth.allowedCases`); a case id the model wrote (`case_id` in the handoff state, else the
 * thread state) is accepted only if the caller may see it (listed in `allowedCases` when the
 * identity has that list; the case data checks the tenant either way) and it is the caller's one
 * allowed case or the source agent read it in this thread through a case-read tool. Anything else
 * is `CaseNotBoundError` (`CASE_NOT_BOUND`). `purpose` and `fields` come from the handoff state.
 */
export function defaultResolveCase(request: PacketGateRequest, options: DefaultResolveCaseOptions = {}): ResolvedCase {
  const pick = (key: string): unknown =>
    Object.hasOwn(request.state, key) ? request.state[key] : Object.hasOwn(request.threadState, key) ? request.threadState[key] : undefined;
  const named = pick('case_id');
  const purpose = pick('purpose');
  const fields = request.state.fields;
  const rest = {
    ...(typeof purpose === 'string' ? { purpose } : {}),
    ...(Array.isArray(fields) ? { fields: fields.map(String) } : {}),
  };
  const allowed = allowedCasesOf(request.auth);
  if (named === undefined || named === null || named === '') {
    if (allowed?.length === 1) return { caseRef: allowed[0]!, ...rest };
    throw new CaseNotBoundError(
      allowed === undefined
        ? "case not bound: the handoff names no case and the caller's identity has no allowed cases"
        : `case not bound: the handoff names no case and the caller is allowed ${allowed.length} cases`,
    );
  }
  if (typeof named !== 'string') throw new CaseNotBoundError('case not bound: case_id in the handoff state is not a string');
  if (allowed !== undefined && !allowed.includes(named)) {
    throw new CaseNotBoundError("case not bound: the case named in the handoff is not among the caller's allowed cases");
  }
  if (allowed?.length === 1) return { caseRef: named, ...rest };
  const readTools = options.caseReadTools ?? DEFAULT_CASE_READ_TOOLS;
  const read = (request.toolResults ?? []).some(
    (r) => r.agentId === request.sourceAgentId && Object.hasOwn(readTools, r.name) && r.arguments[readTools[r.name]!] === named,
  );
  if (!read) {
    throw new CaseNotBoundError(`case not bound: the case named in the handoff was not read by ${request.sourceAgentId} in this thread`);
  }
  return { caseRef: named, ...rest };
}

function allowedCasesOf(auth: PacketAuth | undefined): string[] | undefined {
  const list = auth?.allowedCases;
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || !list.every((c) => typeof c === 'string' && c !== '')) {
    throw new CaseNotBoundError("case not bound: the caller's allowedCases is not a list of case ids");
  }
  return list;
}

/**
 * The transfer gate: builds a packet from the authenticated caller and the contract, records the
 * decision, and returns the packet as the recipient's only input. Any stop is recorded as a deny
 * and thrown, so the recipient is never invoked.
 */
export function createPacketHandoffGate(options: PacketHandoffGateOptions): PacketHandoffGate {
  const newAuditId = options.auditIdGenerator ?? (() => `aud_${randomUUID().replaceAll('-', '')}`);
  const render = options.renderInput ?? renderPacketInput;
  /** The caller's check of what crosses; a gate that requires one and got none blocks (fail closed). */
  const guardrailCheck = (request: PacketGateRequest): HandoffGuardrailCheck | undefined => {
    if (typeof request.checkHandoff === 'function') return request.checkHandoff;
    if (!options.guardrail) return undefined;
    return async () => ({
      decision: 'BLOCK',
      reasonCode: 'GUARDRAIL_CHECK_MISSING',
      reasonMessage: 'the gate requires a guardrail check but the request carries no checkHandoff (the Baton runner supplies it)',
    });
  };
  const resolve =
    options.resolveCase ??
    ((request: PacketGateRequest) => defaultResolveCase(request, options.caseReadTools ? { caseReadTools: options.caseReadTools } : {}));

  const append = async (record: {
    id: string;
    threadId: string;
    runId: string;
    kind: string;
    data: HandoffDecisionData | PacketBoundaryData;
  }): Promise<string> => {
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
        const check = guardrailCheck(request);
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
          ...(check ? { guardrail: { check, renderInput: render } } : {}),
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
      const state = packetStateView(packet);
      let recorded = false;
      // One proof per packet, whichever way the recipient is reached: the first request wins.
      const prove = async (view: BoundaryView, transport: BoundaryTransport): Promise<void> => {
        if (recorded) return;
        recorded = true;
        const isPacket = inputIsPacket(view, input) && (transport === 'model_request' || stateIsPacketView(view.state, packet));
        const data: PacketBoundaryData = {
          schema: 'baton.packets.packet_boundary/1',
          packet_id: packet.packet_id,
          destination: packet.recipient,
          contract_version: packet.contract_version,
          fields: built.fieldClasses,
          transport,
          digest: inputDigest(options.keys.auditKey, view),
          canonicalization: 'RFC8785',
          decision_record_id: decisionRecordId,
          input_is_packet: isPacket,
          input_items: view.inputItems,
          previous_response_id_present: view.previousResponseIdPresent,
          conversation_id_present: view.conversationIdPresent,
        };
        await append({ ...base, id: newAuditId(), kind: PACKET_BOUNDARY_KIND, data });
        if (!data.input_is_packet)
          throw new BoundaryViolationError('boundary violation: the recipient request carries more than the packet');
        if (data.previous_response_id_present || data.conversation_id_present) {
          throw new BoundaryViolationError('boundary violation: the recipient request continues server-managed history');
        }
      };
      return {
        input,
        packetId: packet.packet_id,
        state,
        async onRecipientModelRequest(modelRequest: unknown) {
          await prove(viewModelRequest(modelRequest), 'model_request');
        },
        async onRecipientProcessInput(stdin: unknown) {
          const view = viewModelRequest(stdin);
          if (view.transport !== 'process_stdin') {
            recorded = true;
            throw new BoundaryViolationError('boundary violation: the agent process input is not a stdin object with input_message');
          }
          await prove(view, 'process_stdin');
        },
      };
    },
  };
}
