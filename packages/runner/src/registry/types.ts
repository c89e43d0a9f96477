import type { AgentManifest } from '@baton/manifest';
import type { AgentDeployment } from './deployment-config.js';

/** An `agent.yml` manifest as validated by @baton/manifest (the source of truth). */
export type AgentManifestLike = AgentManifest;

/** One registered agent: its manifest, where it came from and how it is deployed. */
export interface RegisteredAgent {
  manifest: AgentManifestLike;
  /** File path or URL the manifest was loaded from. */
  source: string;
  deployment: AgentDeployment;
  /** Directory relative subprocess paths resolve against (the baton.yml directory). */
  baseDir: string | undefined;
}

/** Limits declared in baton.yml (`limits`), already in RunnerLimits shape. */
export interface RegistryLimits {
  maxTurns?: number;
  maxHandoffs?: number;
  runTimeoutMs?: number;
  guardrailTimeoutMs?: number;
  /** baton.yml `limits.approval_timeout_ms`: how long a run paused for approval waits. */
  approvalTimeoutMs?: number;
}

/** Every agent a runner may run, by id and version. */
export interface AgentRegistry {
  /** The agent with this id: the pinned `version`, or the highest semver. Undefined if absent. */
  get(id: string, version?: string): RegisteredAgent | undefined;
  /** Every registered agent version, sorted by id then ascending version. */
  list(): RegisteredAgent[];
  /** Limits from the deployment config, if any. */
  readonly limits: RegistryLimits;
}
