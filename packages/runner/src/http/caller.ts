import type { FastifyRequest } from 'fastify';
import type { ThreadRecord } from '../store/types.js';
import { AuthenticationError, IdentityInputError, hasIdentityHeaders, type Authenticator, type CallerIdentity } from './identity.js';

/** Why a request was refused before its handler ran. */
export interface CallerRefusal {
  status: 400 | 401;
  code: string;
  message: string;
}

/** Resolves and remembers the caller of each request (kept off the request object). */
export interface CallerResolver {
  /** Authenticates `request`; a refusal to send, or undefined when the caller is known. */
  resolve(request: FastifyRequest): Promise<CallerRefusal | undefined>;
  /** The caller of a resolved request; undefined is the single-tenant anonymous caller. */
  of(request: FastifyRequest): CallerIdentity | undefined;
}

export function createCallerResolver(authenticator: Authenticator | undefined): CallerResolver {
  const identities = new WeakMap<FastifyRequest, CallerIdentity>();
  return {
    async resolve(request) {
      if (!authenticator) {
        // Single-tenant mode: nobody may pick a tenant by saying so.
        if (hasIdentityHeaders(request.headers)) {
          return {
            status: 400,
            code: 'invalid_auth',
            message:
              'X-Baton-* identity headers are not accepted: this service takes the caller identity from its credential (start it with --trust-identity-headers only behind a proxy that sets them)',
          };
        }
        return undefined;
      }
      try {
        identities.set(request, await authenticator.authenticate(request.headers));
        return undefined;
      } catch (error) {
        if (error instanceof AuthenticationError) return { status: 401, code: 'unauthorized', message: error.message };
        if (error instanceof IdentityInputError) return { status: 400, code: 'invalid_auth', message: error.message };
        // An authenticator that fails (JWKS unreachable, bug) refuses the request: fail closed.
        return { status: 401, code: 'unauthorized', message: `the credential could not be verified (${authenticator.kind})` };
      }
    },
    of: (request) => identities.get(request),
  };
}

/** True when `identity` may see `thread`: same tenant, or both without one (single-tenant mode). */
export function threadVisibleTo(thread: ThreadRecord, identity: CallerIdentity | undefined): boolean {
  return thread.tenant === identity?.tenant;
}
