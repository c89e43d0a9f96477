import { DelegateTaskArgsSchema } from '@baton/manifest';
import { SkillsInputError } from '../errors.js';
import type { DelegationRuntime } from './runtime.js';
import { currentScope } from './scope.js';
import type { DelegationCall } from './task.js';
import type { DelegationContext } from './types.js';

/** Step 1: validate the delegate_task arguments and fix the caller's scope. */
export function parseCall(rt: DelegationRuntime, rawArgs: unknown, ctx: DelegationContext): DelegationCall {
  const started = rt.clock();
  const parsed = DelegateTaskArgsSchema.safeParse(rawArgs);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new SkillsInputError('INVALID_ARGUMENTS', `delegate_task arguments are invalid: ${msg}`);
  }
  const args = parsed.data;
  return { args, target: args.subagent_type, scope: currentScope(rt, ctx), ctx, started };
}
