import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { GuardrailChecker } from '@baton/guardrail-client';
import { spawnJsonProcess } from '@baton/runner/process';
import { detectConfinement } from '../confine/index.js';
import type { ConfinementInfo } from '../confine/index.js';
import { SkillsConfigError } from '../errors.js';
import { delegationChecker } from './guardrail-checks.js';
import { Semaphore } from './semaphore.js';
import { createSkillRegistry, skillRegistryFrom } from './skill-registry.js';
import type { SkillRegistry } from './skill-registry.js';
import { createYieldControlTool } from './system-tools.js';
import { checkSubagentNames } from './resolve-subagent.js';
import type {
  ApprovalHook,
  CreateDelegationOptions,
  DelegationContext,
  DelegationLogger,
  DelegationSystemTool,
  SpawnJson,
} from './types.js';

export const DEFAULTS = { maxDepth: 3, timeoutMs: 60_000, maxConcurrency: 4 } as const;

/**
 * Everything one `createDelegation` instance shares between calls: the validated options and the
 * instance state (semaphore, shutdown signal, in-flight calls, confinement probe). Every pipeline
 * step takes it explicitly instead of closing over it.
 */
export interface DelegationRuntime {
  /** The options as given (read by steps for optional features: dispatch, packetGate, applyEdits…). */
  readonly options: CreateDelegationOptions;
  /** `options.workspace`, resolved. */
  readonly workspace: string;
  readonly guardrails: GuardrailChecker;
  readonly maxDepth: number;
  readonly timeoutMs: number;
  readonly registry: SkillRegistry;
  readonly approvals: ApprovalHook;
  readonly idGenerator: () => string;
  readonly clock: () => number;
  readonly spawn: SpawnJson;
  readonly log: DelegationLogger;
  readonly semaphore: Semaphore;
  /** The `subagent_type` enum (skills and agents), or undefined for any name. */
  readonly subagentNames: string[] | undefined;
  /** The mechanism skill processes run under, detected once (and logged) on first call. */
  readonly confinement: () => Promise<ConfinementInfo>;
  /** Aborted by `shutdown()`: cancels every running subagent. */
  readonly stopAll: AbortController;
  /** Calls `shutdown()` waits for. */
  readonly inflight: Set<Promise<unknown>>;
  /** `yield_control`, handed to in-process subagents. */
  readonly yieldControlTool: DelegationSystemTool;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new SkillsConfigError('INVALID_OPTIONS', `createDelegation: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/** Validates the options and builds the instance state (throws `SkillsConfigError` on bad options). */
export function createRuntime(options: CreateDelegationOptions): DelegationRuntime {
  if (typeof options.workspace !== 'string' || options.workspace.length === 0) {
    throw new SkillsConfigError('INVALID_OPTIONS', 'createDelegation: workspace is required');
  }
  const workspace = path.resolve(options.workspace);
  const guardrails = delegationChecker(options.guardrails);
  const maxDepth = positiveInt('maxDepth', options.maxDepth, DEFAULTS.maxDepth);
  const timeoutMs = positiveInt('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs);
  const maxConcurrency = positiveInt('maxConcurrency', options.maxConcurrency, DEFAULTS.maxConcurrency);
  const registry = options.skills ?? (options.skillsDir ? createSkillRegistry(options.skillsDir) : skillRegistryFrom([]));
  const log = options.logger ?? { info: () => undefined, warn: () => undefined };
  const subagentNames = checkSubagentNames(registry, options.agents);
  // Detected once and reported at start (a log line and `confinement()`), so an operator sees the
  // mechanism before the first skill runs; a dispatch-only parent runs no skill and probes nothing.
  let confinementInfo: Promise<ConfinementInfo> | undefined;
  const confinement = (): Promise<ConfinementInfo> => {
    confinementInfo ??= detectConfinement(options.confinement ?? 'auto').then(
      (info) => {
        (info.mechanism === 'none' ? log.warn : log.info)('skill confinement', {
          mechanism: info.mechanism,
          requested: info.requested,
          enforces: info.enforces,
          detail: info.detail,
        });
        return info;
      },
      (err: unknown) => {
        log.warn('skill confinement unavailable; skills will not run', { requested: options.confinement ?? 'auto', error: messageOf(err) });
        throw err;
      },
    );
    return confinementInfo;
  };
  if (options.skillsDir !== undefined || options.skills !== undefined) confinement().catch(() => undefined);
  return {
    options,
    workspace,
    guardrails,
    maxDepth,
    timeoutMs,
    registry,
    approvals: options.approvals ?? (async () => false),
    idGenerator: options.idGenerator ?? randomUUID,
    clock: options.clock ?? (() => performance.now()),
    spawn: options.spawn ?? spawnJsonProcess,
    log,
    semaphore: new Semaphore(maxConcurrency),
    subagentNames,
    confinement,
    stopAll: new AbortController(),
    inflight: new Set(),
    yieldControlTool: createYieldControlTool(),
  };
}

/** Aborts when the instance shuts down or the calling run is cancelled. */
export function callSignal(rt: DelegationRuntime, ctx: DelegationContext): AbortSignal {
  return AbortSignal.any([rt.stopAll.signal, ...(ctx.signal ? [ctx.signal] : [])]);
}
