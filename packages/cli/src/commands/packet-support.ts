import type { RunAuth, RunResult, ThreadStore } from '@baton/runner';
import { AuthInputError } from '../errors.js';

/**
 * Pieces shared by `baton run` and `baton serve` for purpose-bound packets: the authenticated
 * caller (from flags or trusted request headers) and the packet summary added to a run result.
 * Type-only imports keep this module cheap to load.
 */

/** Tenant and subject ids: printable, no spaces, bounded (they end up in audit records). */
const ID = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,255}$/;
/** Role names as the recipient contract's approvals spell them. */
const ROLE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const MAX_ROLES = 32;

/** The three parts of an authenticated caller, as given (flags or headers). */
export interface AuthParts {
  tenant?: string | undefined;
  subject?: string | undefined;
  /** Comma-separated role names. */
  roles?: string | undefined;
}

/** Names to use in messages for each part (`--tenant` or `X-Baton-Tenant`). */
export interface AuthPartNames {
  tenant: string;
  subject: string;
  roles: string;
}

/**
 * Parses an authenticated caller. Returns `undefined` when no part is given (the packet gate then
 * stops a handoff with MISSING_AUTHORIZATION). A partial or malformed caller is refused with a
 * message naming the part, never echoing the value: half an identity is a mistake, not a request
 * for fewer rights.
 */
export function parseAuth(parts: AuthParts, names: AuthPartNames): RunAuth | undefined {
  const given = (v: string | undefined) => v !== undefined && v !== '';
  if (!given(parts.tenant) && !given(parts.subject) && !given(parts.roles)) return undefined;
  const missing = (['tenant', 'subject', 'roles'] as const).filter((k) => !given(parts[k])).map((k) => names[k]);
  if (missing.length > 0)
    throw new AuthInputError(`${names.tenant}, ${names.subject} and ${names.roles} go together; missing ${missing.join(', ')}`);
  const tenant = parts.tenant as string;
  const subject = parts.subject as string;
  if (!ID.test(tenant))
    throw new AuthInputError(
      `${names.tenant} must be 1-256 characters of letters, digits and _ . : @ / - (starting with a letter or digit)`,
    );
  if (!ID.test(subject))
    throw new AuthInputError(
      `${names.subject} must be 1-256 characters of letters, digits and _ . : @ / - (starting with a letter or digit)`,
    );
  const roles = [
    ...new Set(
      (parts.roles as string)
        .split(',')
        .map((r) => r.trim())
        .filter((r) => r !== ''),
    ),
  ];
  if (roles.length === 0) throw new AuthInputError(`${names.roles} must list at least one role, comma-separated`);
  if (roles.length > MAX_ROLES) throw new AuthInputError(`${names.roles} lists more than ${MAX_ROLES} roles`);
  const bad = roles.findIndex((r) => !ROLE.test(r));
  if (bad >= 0) throw new AuthInputError(`${names.roles}: role ${bad + 1} must be 1-64 characters of letters, digits and _ . : -`);
  return { tenant, subject, roles };
}

/** A malformed caller identity (a usage error for `baton run`, a 400 for `baton serve`): declared in `../errors.ts`. */
export { AuthInputError };

export const FLAG_NAMES: AuthPartNames = { tenant: '--tenant', subject: '--subject', roles: '--roles' };
export const HEADER_NAMES: AuthPartNames = { tenant: 'X-Baton-Tenant', subject: 'X-Baton-Subject', roles: 'X-Baton-Roles' };

type PacketSummary = NonNullable<RunResult['packets']>[number];

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The packets allowed during this call, read back from the audit records the gate wrote to the
 * store (the runner core does not report them): only records of this call's runs, so an earlier
 * call on the same thread (`--thread`) is not repeated. Ids, classes and digests only.
 */
export async function packetSummaries(store: Pick<ThreadStore, 'listAudit'>, result: RunResult): Promise<PacketSummary[]> {
  if (!result.thread_id) return [];
  const runIds = new Set(result.runs.map((r) => r.run_id));
  const records = (await store.listAudit(result.thread_id)).filter((r) => r.runId !== null && runIds.has(r.runId));
  const boundaries = new Map<string, { id: string; digest: string | null }>();
  for (const r of records) {
    const decisionId = str(r.data.decision_record_id);
    if (r.kind === 'packet_boundary' && decisionId && !boundaries.has(decisionId))
      boundaries.set(decisionId, { id: r.id, digest: str(r.data.digest) ?? null });
  }
  const out: PacketSummary[] = [];
  for (const r of records) {
    if (r.kind !== 'handoff_decision' || r.data.decision !== 'allow') continue;
    const packetId = str(r.data.packet_id);
    if (!packetId) continue;
    const boundary = boundaries.get(r.id);
    out.push({
      packet_id: packetId,
      source: str(r.data.source) ?? '',
      destination: str(r.data.destination) ?? '',
      purpose: str(r.data.purpose) ?? '',
      contract_version: str(r.data.contract_version) ?? '',
      digest: boundary?.digest ?? null,
      decision_record_id: r.id,
      boundary_record_id: boundary?.id ?? null,
    });
  }
  return out;
}

/** The result with `packets` filled in; unchanged if the audit records cannot be read. */
export async function withPacketSummaries(store: Pick<ThreadStore, 'listAudit'>, result: RunResult): Promise<RunResult> {
  try {
    return { ...result, packets: await packetSummaries(store, result) };
  } catch {
    // The run already happened and its result stands; the summary is a convenience over the store.
    return result;
  }
}
