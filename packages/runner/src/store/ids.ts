import { randomUUID } from 'node:crypto';

/** What an id is for; a generator may use it as a prefix. */
export type StoreIdKind = 'thread' | 'run' | 'audit' | 'lock';

/** Default ids: `thread_…`, `run_…`, `audit_…` with 32 random hex characters. */
export function defaultIdGenerator(kind: StoreIdKind): string {
  return `${kind}_${randomUUID().replace(/-/g, '')}`;
}
