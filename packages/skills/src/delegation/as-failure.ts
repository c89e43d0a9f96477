import type { ResponsePackage } from '@baton/manifest';
import { SkillsError, SkillsInputError } from '../errors.js';
import { failure } from './outcome.js';
import { messageOf } from './runtime.js';
import type { DelegationLogger } from './types.js';

function errorCodeFor(err: SkillsError): string {
  const code = err.code.startsWith('ERR_') ? err.code : `ERR_${err.code}`;
  return /^ERR_[A-Z0-9_]+$/.test(code) ? code : 'ERR_INVALID_REQUEST';
}

/** What the model (or a remote parent) gets for an error `delegate()` would reject with. */
export function asFailure(log: DelegationLogger, err: unknown): ResponsePackage {
  if (err instanceof SkillsError) {
    const code = err instanceof SkillsInputError ? errorCodeFor(err) : 'ERR_CONFIGURATION';
    return failure(code, err.message);
  }
  log.warn('delegate_task failed unexpectedly', { error: messageOf(err) });
  return failure('ERR_TOOL_FAILURE', `delegate_task failed: ${messageOf(err)}`);
}
