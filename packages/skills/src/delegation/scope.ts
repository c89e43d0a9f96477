import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResponsePackage } from '@baton/manifest';
import { failure } from './outcome.js';
import { DEFAULTS } from './runtime.js';
import type { DelegationRuntime } from './runtime.js';
import type { DelegationContext } from './types.js';

/** Environment variables that carry delegation limits into subprocess skills. */
export const DELEGATION_ENV = {
  depth: 'BATON_DELEGATION_DEPTH',
  maxDepth: 'BATON_DELEGATION_MAX_DEPTH',
  lineage: 'BATON_DELEGATION_LINEAGE',
  taskId: 'BATON_TASK_ID',
  workspace: 'BATON_WORKSPACE',
  /** The skill's private, writable scratch directory (also its TMPDIR and HOME). */
  scratch: 'BATON_SCRATCH',
  /** The confinement mechanism the skill runs under (bubblewrap, unshare, none). */
  confinement: 'BATON_CONFINEMENT',
} as const;

/** Where a delegating agent stands: its depth, the limit and who delegated to whom. */
export interface Scope {
  depth: number;
  maxDepth: number;
  lineage: string[];
}

/** In-process subagents inherit their scope through the async context of the runner's run. */
export const scopeStorage = new AsyncLocalStorage<Scope>();

function scopeFromEnv(env: NodeJS.ProcessEnv): Scope | undefined {
  const depth = env[DELEGATION_ENV.depth];
  if (depth === undefined) return undefined;
  const d = Number(depth);
  const m = Number(env[DELEGATION_ENV.maxDepth] ?? DEFAULTS.maxDepth);
  let lineage: string[] = [];
  try {
    const parsed: unknown = JSON.parse(env[DELEGATION_ENV.lineage] ?? '[]');
    if (Array.isArray(parsed)) lineage = parsed.filter((x): x is string => typeof x === 'string');
  } catch {
    // A garbled lineage still keeps the depth limit; fail towards the stricter side.
  }
  // Unparseable numbers mean someone tampered with the channel: treat as already at the limit.
  if (!Number.isInteger(d) || d < 0 || !Number.isInteger(m) || m < 1) return { depth: Number.MAX_SAFE_INTEGER, maxDepth: 1, lineage };
  return { depth: d, maxDepth: m, lineage };
}

/** The caller's scope: an enclosing run's, else the environment's (a skill process), else top level. */
export function currentScope(rt: DelegationRuntime, ctx: DelegationContext): Scope {
  const base = scopeStorage.getStore() ?? scopeFromEnv(rt.options.env ?? process.env) ?? { depth: 0, maxDepth: rt.maxDepth, lineage: [] };
  const lineage = [...base.lineage];
  if (ctx.agentId && lineage[lineage.length - 1] !== ctx.agentId) lineage.push(ctx.agentId);
  return { depth: Math.max(base.depth, ctx.depth ?? 0), maxDepth: Math.min(base.maxDepth, rt.maxDepth), lineage };
}

/** Depth and loop limits: the same FAILURE packages wherever the task is about to go. */
export function limitViolation(scope: Scope, target: string): ResponsePackage | undefined {
  const childDepth = scope.depth + 1;
  if (childDepth > scope.maxDepth) {
    return failure('ERR_CONSTRAINT_VIOLATION', `delegation depth ${childDepth} would exceed the maximum of ${scope.maxDepth}`, {
      depth: childDepth,
      max_depth: scope.maxDepth,
      lineage: scope.lineage,
    });
  }
  if (scope.lineage.includes(target)) {
    return failure('ERR_CONSTRAINT_VIOLATION', `delegation loop refused: ${[...scope.lineage, target].join(' → ')}`, {
      lineage: scope.lineage,
    });
  }
  return undefined;
}
