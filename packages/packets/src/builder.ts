import { randomUUID } from 'node:crypto';
import type { HandoffPacket } from '@baton/manifest';
import { requireAuth } from './auth.js';
import type { PacketAuth } from './auth.js';
import type { CaseDataSource } from './case-data.js';
import { canonicalJson } from './canonical-json.js';
import { approvalsFor } from './contract/schema.js';
import type { CaseApprovals, Purpose, Recipient, RecipientContract } from './contract/schema.js';
import {
  CaseDataUnavailableError,
  CaseNotFoundError,
  MissingAuthorizationError,
  PacketError,
  PolicyStoreUnavailableError,
  TaskTooLongError,
  UnexpectedFieldError,
  UnknownPurposeError,
  UnknownRecipientError,
} from './errors.js';
import { checkPacketWithGuardrail } from './guardrail.js';
import type { PacketGuardrailOptions } from './guardrail.js';
import { deriveReference } from './keys.js';
import type { PolicyStore } from './policy-store.js';

/** Default longest task statement, in characters, when a purpose does not say. */
export const DEFAULT_TASK_MAX_CHARS = 500;

export interface BuildPacketOptions {
  /** The contract to use; when absent it is read from `policyStore`. */
  contract?: RecipientContract;
  /** Source of the contract (if `contract` is absent) and of the case owner's approvals. */
  policyStore?: PolicyStore;
  /** Where the permitted case fields are read from. */
  caseData: CaseDataSource;
  /** The authenticated caller; never derived from model output. */
  auth: PacketAuth | undefined;
  /** The case id (checked against the authenticated tenant by `caseData`). */
  caseRef: string;
  /** The specialist agent id. */
  recipient: string;
  /** The purpose; defaults to the recipient's only purpose. */
  purpose?: string;
  /** The task statement; defaults to the purpose's `task` from the contract. */
  task?: string;
  /** Fields to send (each must be permitted and approved); default: the purpose's approved fields. */
  fields?: string[];
  /** Key for scoped opaque references. */
  keys: { referenceKey: string | Uint8Array };
  /** Packet id generator (default: `pkt_` + 128 random bits). */
  idGenerator?: () => string;
  /** Guardrail check of what crosses (AGENT_HANDOFF on the rendered packet); skipped when absent. */
  guardrail?: PacketGuardrailOptions;
}

/** A packet and the facts about it that audit records carry (no content). */
export interface BuiltPacket {
  packet: HandoffPacket;
  /** The case reference as the recipient sees it. */
  caseReference: string;
  /** Every field that crossed (as a value or a reference), with its data class, sorted by name. */
  fieldClasses: Array<{ name: string; class: string; as: 'value' | 'reference' }>;
  /** The recipient's provider and retention boundary from the contract. */
  provider: Recipient['provider'];
}

/** Default packet id: `pkt_` and 32 hex characters of a random UUID (122 random bits, CSPRNG). */
export function defaultPacketId(): string {
  return `pkt_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Builds a purpose-bound packet from authenticated ids and the contract, outside model prose.
 * Each stop throws its own `PacketError` before anything reaches the recipient.
 */
export async function buildPacketDetailed(options: BuildPacketOptions): Promise<BuiltPacket> {
  const auth = requireAuth(options.auth);
  if (!options.contract && !options.policyStore)
    throw new PolicyStoreUnavailableError('policy store unavailable: neither a contract nor a policy store was given');
  const contract = options.contract ?? (await fromPolicyStore(() => options.policyStore!.getContract()));

  const recipient = Object.hasOwn(contract.recipients, options.recipient) ? contract.recipients[options.recipient] : undefined;
  if (!recipient)
    throw new UnknownRecipientError(`unknown recipient '${options.recipient}': not declared in contract ${contract.contract_version}`);
  const [purposeName, purpose] = pickPurpose(recipient, options.recipient, options.purpose);

  if (typeof options.caseRef !== 'string' || options.caseRef.length === 0 || options.caseRef.length > 256) {
    throw new CaseNotFoundError('case reference missing or malformed');
  }

  const approvals: CaseApprovals = options.policyStore
    ? await fromPolicyStore(() => options.policyStore!.getApprovals(auth.tenant, options.caseRef))
    : approvalsFor(contract, auth.tenant, options.caseRef);
  const approved = (name: string): boolean =>
    auth.roles.some((role) => Object.hasOwn(approvals.roles, role) && approvals.roles[role]!.includes(name));
  // Explicitly requested fields must each be permitted and approved; by default the packet carries
  // exactly the purpose's fields the case owner approved for the caller's roles.
  const requested = options.fields ?? Object.keys(purpose.fields).filter(approved);
  if (options.fields === undefined && requested.length === 0) {
    throw new MissingAuthorizationError(
      `missing authorization: the case owner approved no field of purpose '${purposeName}' for the caller's roles (${auth.roles.join(', ')})`,
    );
  }
  for (const name of requested) {
    if (!Object.hasOwn(purpose.fields, name)) {
      throw new UnexpectedFieldError(
        name,
        `unexpected field '${name}': not permitted for purpose '${purposeName}' of ${options.recipient}`,
      );
    }
    if (!approved(name)) {
      throw new UnexpectedFieldError(
        name,
        `unexpected field '${name}': the case owner has not approved it for the caller's roles (${auth.roles.join(', ')})`,
      );
    }
  }

  const task = options.task ?? purpose.task;
  const maxChars = purpose.task_max_chars ?? DEFAULT_TASK_MAX_CHARS;
  if (task.length > maxChars)
    throw new TaskTooLongError(`task statement is ${task.length} characters; purpose '${purposeName}' allows at most ${maxChars}`);

  const paths: Record<string, string> = {};
  for (const name of requested) paths[name] = purpose.fields[name]!.path ?? name;
  let returned: Record<string, unknown>;
  try {
    returned = await options.caseData.getCaseFields({ tenant: auth.tenant, caseId: options.caseRef, fields: paths });
  } catch (err) {
    if (err instanceof PacketError) throw err;
    throw new CaseDataUnavailableError('case data unavailable: the case-data source failed', { cause: err });
  }
  for (const name of Object.keys(returned)) {
    if (!Object.hasOwn(paths, name))
      throw new UnexpectedFieldError(name, `unexpected field '${name}': the case-data source returned a field that was not requested`);
  }

  const scope = { key: options.keys.referenceKey, recipient: options.recipient, purpose: purposeName, tenant: auth.tenant };
  const caseReference = deriveReference({ ...scope, kind: 'case', value: options.caseRef });
  const references: Record<string, string> = { case: caseReference };
  const fields: Record<string, unknown> = {};
  const field_classes: Record<string, string> = {};
  const fieldClasses: BuiltPacket['fieldClasses'] = [];
  for (const name of [...requested].sort()) {
    if (!Object.hasOwn(returned, name)) continue;
    const rule = purpose.fields[name]!;
    const value = returned[name];
    try {
      canonicalJson(value);
    } catch (err) {
      throw new CaseDataUnavailableError(`case data unavailable: field '${name}' is not JSON data`, { cause: err });
    }
    if (rule.as === 'reference') {
      references[name] = deriveReference({ ...scope, kind: name, value: typeof value === 'string' ? value : canonicalJson(value) });
    } else {
      fields[name] = value;
    }
    field_classes[name] = rule.class;
    fieldClasses.push({ name, class: rule.class, as: rule.as });
  }

  const packetId = (options.idGenerator ?? defaultPacketId)();
  if (typeof packetId !== 'string' || packetId.length === 0) throw new TypeError('idGenerator must return a non-empty string');
  // Built field by field to HandoffPacketSchema's shape (a test holds it to the schema); parsing
  // it again here would be the most expensive step of the build.
  const packet: HandoffPacket = {
    packet_id: packetId,
    contract_version: contract.contract_version,
    tenant: auth.tenant,
    recipient: options.recipient,
    purpose: purposeName,
    task,
    references,
    fields,
    field_classes,
  };

  if (options.guardrail) await checkPacketWithGuardrail(options.guardrail, packet);
  return { packet, caseReference, fieldClasses, provider: recipient.provider };
}

/** Builds a purpose-bound packet (see `buildPacketDetailed` for the audit facts). */
export async function buildPacket(options: BuildPacketOptions): Promise<HandoffPacket> {
  return (await buildPacketDetailed(options)).packet;
}

function pickPurpose(recipient: Recipient, recipientId: string, requested: string | undefined): [string, Purpose] {
  const names = Object.keys(recipient.purposes);
  if (requested === undefined) {
    if (names.length === 1) return [names[0]!, recipient.purposes[names[0]!]!];
    throw new UnknownPurposeError(`no purpose given and ${recipientId} has several (${names.join(', ')})`);
  }
  const purpose = Object.hasOwn(recipient.purposes, requested) ? recipient.purposes[requested] : undefined;
  if (!purpose) throw new UnknownPurposeError(`unknown purpose '${requested}' for ${recipientId} (declared: ${names.join(', ')})`);
  return [requested, purpose];
}

async function fromPolicyStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof PolicyStoreUnavailableError) throw err;
    throw new PolicyStoreUnavailableError('policy store unavailable: it did not answer', { cause: err });
  }
}
