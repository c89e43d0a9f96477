import type { DelegateTaskArgs } from '@baton/manifest';
import type { Criterion } from '../criteria/types.js';
import type { Scope } from './scope.js';
import type { SkillDefinition } from './skill-registry.js';
import type { DelegationContext, EditLedger } from './types.js';

/** A validated delegate_task call: what every step after argument parsing starts from. */
export interface DelegationCall {
  args: DelegateTaskArgs;
  /** `args.subagent_type`. */
  target: string;
  /** The caller's scope (depth, limit, lineage). */
  scope: Scope;
  ctx: DelegationContext;
  /** Clock reading when the call started (for the success log line). */
  started: number;
}

/** The ledger and key a keyed local run records its edits under. */
export interface LedgerKey {
  ledger: EditLedger;
  key: string;
}

/** A termination trigger: a checkable criterion, or a literal to look for in the output. */
export type Trigger = { criterion?: Criterion; literal?: string };

/** A call that runs here: resolved subagent, identity, ledger key. */
export interface LocalTask extends DelegationCall {
  taskId: string;
  keyed: LedgerKey | undefined;
  /** The skill, or undefined for an in-process agent. */
  skill: SkillDefinition | undefined;
}

/** What the task is checked against, and what it carries (after file references resolve). */
export interface TaskPlan {
  criteria: Criterion[];
  /** The skill's output_schema, checked on every SUCCESS. */
  contract: Criterion[];
  trigger: Trigger | undefined;
  payload: Record<string, unknown>;
  instructionSet: string;
  capabilities: string[];
}
