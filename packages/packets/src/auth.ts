import type { RunAuth } from '@baton/manifest';
import { MissingAuthorizationError } from './errors.js';

/** Who is asking, as authenticated by the application: `@baton/manifest`'s `RunAuth`, the one contract. */
export type PacketAuth = RunAuth;

/** `PacketAuth` with every part present. */
export interface VerifiedAuth {
  tenant: string;
  subject: string;
  roles: string[];
}

/** Checks that tenant, subject and at least one role are present; `MissingAuthorizationError` otherwise. */
export function requireAuth(auth: PacketAuth | undefined): VerifiedAuth {
  if (!auth) throw new MissingAuthorizationError('missing authorization: no authenticated caller for this handoff');
  const { tenant, subject, roles } = auth;
  if (typeof tenant !== 'string' || tenant.length === 0)
    throw new MissingAuthorizationError('missing authorization: no authenticated tenant');
  if (typeof subject !== 'string' || subject.length === 0)
    throw new MissingAuthorizationError('missing authorization: no authenticated subject');
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => typeof r === 'string' && r.length > 0)) {
    throw new MissingAuthorizationError('missing authorization: the caller holds no roles');
  }
  return { tenant, subject, roles: [...roles] };
}
