import type { IncomingHttpHeaders } from 'node:http';
import { RunnerError } from '../errors.js';
import type { RunAuth } from '../runner/types.js';

/**
 * Who is calling the runner service, as a verified credential (or a trusted proxy) says. The
 * tenant owns every thread the caller creates; the caller sees no other tenant's threads.
 */
export interface CallerIdentity {
  /** Tenant the caller acts for (1-200 characters of letters, digits and `_ . : @ / -`). */
  tenant: string;
  /** The authenticated principal. */
  subject: string;
  /** Roles the principal holds (handed to the packet gate as `RunAuth.roles`). */
  roles: string[];
  /** Case ids the caller may act on (`RunAuth.allowedCases`); absent: no restriction named. */
  cases?: string[];
}

/**
 * The role that lets a caller name a new thread's id (`thread_id` of an unknown thread on
 * `POST /v1/runs`). Without it a caller continues only threads it already has; new threads get
 * a generated, unguessable id.
 */
export const CHOOSE_THREAD_ID_ROLE = 'baton:choose-thread-id';

/** Turns request headers into a caller identity; throws {@link AuthenticationError} (401) or {@link IdentityInputError} (400). */
export interface Authenticator {
  /** Short name for messages and logs (`tokens`, `jwt`, `trusted-headers`). */
  readonly kind: string;
  /**
   * True when the authenticator checks a credential itself (a token, a signed JWT): the service
   * may then listen off loopback without a shared `token`. Trusted headers are not a credential.
   */
  readonly verifiesCredential: boolean;
  authenticate(headers: IncomingHttpHeaders): Promise<CallerIdentity>;
}

/** The request carried no valid credential: 401. The message never echoes what was sent. */
export class AuthenticationError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unauthorized', message, options);
    this.name = 'AuthenticationError';
  }
}

/** An identity was asserted in a malformed or refused way (e.g. identity headers that are not trusted): 400. */
export class IdentityInputError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_auth', message, options);
    this.name = 'IdentityInputError';
  }
}

/** The identity headers `--trust-identity-headers` reads; refused (400) on any other service. */
export const IDENTITY_HEADERS = {
  tenant: 'x-baton-tenant',
  subject: 'x-baton-subject',
  roles: 'x-baton-roles',
  cases: 'x-baton-cases',
} as const;

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,199}$/;
const ROLE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const CASE = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,199}$/;
export const IDENTITY_LIMITS = { maxRoles: 32, maxCases: 1024 } as const;

/**
 * Checks one identity's parts (from a tokens file, a JWT's claims or trusted headers); `where`
 * names the source in messages. Values are never echoed: they may be secrets pasted by mistake.
 */
export function checkIdentity(
  value: { tenant?: unknown; subject?: unknown; roles?: unknown; cases?: unknown },
  where: string,
): CallerIdentity {
  const { tenant, subject, roles, cases } = value;
  if (typeof tenant !== 'string' || !ID.test(tenant))
    throw new IdentityInputError(
      `${where}: tenant must be 1-200 characters of letters, digits and _ . : @ / - (starting with a letter or digit)`,
    );
  if (typeof subject !== 'string' || !ID.test(subject))
    throw new IdentityInputError(
      `${where}: subject must be 1-200 characters of letters, digits and _ . : @ / - (starting with a letter or digit)`,
    );
  if (!Array.isArray(roles)) throw new IdentityInputError(`${where}: roles must be a list of role names`);
  if (roles.length > IDENTITY_LIMITS.maxRoles) throw new IdentityInputError(`${where}: more than ${IDENTITY_LIMITS.maxRoles} roles`);
  const badRole = roles.findIndex((r) => typeof r !== 'string' || !ROLE.test(r));
  if (badRole >= 0) throw new IdentityInputError(`${where}: role ${badRole + 1} must be 1-64 characters of letters, digits and _ . : -`);
  const identity: CallerIdentity = { tenant, subject, roles: [...new Set(roles as string[])] };
  if (cases !== undefined) {
    if (!Array.isArray(cases)) throw new IdentityInputError(`${where}: cases must be a list of case ids`);
    if (cases.length > IDENTITY_LIMITS.maxCases) throw new IdentityInputError(`${where}: more than ${IDENTITY_LIMITS.maxCases} cases`);
    const badCase = cases.findIndex((c) => typeof c !== 'string' || !CASE.test(c));
    if (badCase >= 0)
      throw new IdentityInputError(`${where}: case ${badCase + 1} must be 1-200 characters of letters, digits and _ . : @ / -`);
    identity.cases = [...new Set(cases as string[])];
  }
  return identity;
}

/** The `RunAuth` a run gets for this caller (`cases` becomes `allowedCases`). */
export function runAuthFor(identity: CallerIdentity): RunAuth {
  return {
    tenant: identity.tenant,
    subject: identity.subject,
    roles: [...identity.roles],
    ...(identity.cases ? { allowedCases: [...identity.cases] } : {}),
  };
}

/** True when the caller may give a new thread its id. */
export function mayChooseThreadId(identity: CallerIdentity | undefined): boolean {
  // The anonymous caller exists only in single-tenant mode (no identity source configured):
  // there is no other tenant whose ids it could squat on or guess.
  return identity === undefined || identity.roles.includes(CHOOSE_THREAD_ID_ROLE);
}

/** True when any identity header is present (refused unless headers are trusted). */
export function hasIdentityHeaders(headers: IncomingHttpHeaders): boolean {
  return Object.values(IDENTITY_HEADERS).some((h) => headers[h] !== undefined);
}

/**
 * Identity from `X-Baton-Tenant`, `X-Baton-Subject`, `X-Baton-Roles` (comma-separated) and
 * optional `X-Baton-Cases` (comma-separated), for a service behind a proxy that authenticated
 * the caller and sets these headers itself (`baton serve --trust-identity-headers`). Anyone who
 * can reach the service can claim any tenant, so it listens off loopback only with a token that
 * only the proxy holds.
 */
export function createTrustedHeaderAuthenticator(): Authenticator {
  return {
    kind: 'trusted-headers',
    verifiesCredential: false,
    async authenticate(headers) {
      const read = (name: string, label: string): string | undefined => {
        const v = headers[name];
        // A repeated header is ambiguous about who is asking.
        if (Array.isArray(v)) throw new IdentityInputError(`${label} is repeated; send it once`);
        return v === undefined || v === '' ? undefined : v;
      };
      const tenant = read(IDENTITY_HEADERS.tenant, 'X-Baton-Tenant');
      const subject = read(IDENTITY_HEADERS.subject, 'X-Baton-Subject');
      const roles = read(IDENTITY_HEADERS.roles, 'X-Baton-Roles');
      const cases = read(IDENTITY_HEADERS.cases, 'X-Baton-Cases');
      const missing = [
        ['X-Baton-Tenant', tenant],
        ['X-Baton-Subject', subject],
        ['X-Baton-Roles', roles],
      ].filter(([, v]) => v === undefined);
      if (missing.length === 3)
        throw new AuthenticationError('no caller identity: the proxy must set X-Baton-Tenant, X-Baton-Subject and X-Baton-Roles');
      if (missing.length > 0)
        throw new IdentityInputError(
          `X-Baton-Tenant, X-Baton-Subject and X-Baton-Roles go together; missing ${missing.map(([n]) => n).join(', ')}`,
        );
      const list = (v: string) =>
        v
          .split(',')
          .map((r) => r.trim())
          .filter((r) => r !== '');
      const roleList = list(roles as string);
      if (roleList.length === 0) throw new IdentityInputError('X-Baton-Roles must list at least one role, comma-separated');
      return checkIdentity(
        { tenant, subject, roles: roleList, ...(cases !== undefined ? { cases: list(cases) } : {}) },
        'identity headers',
      );
    },
  };
}
