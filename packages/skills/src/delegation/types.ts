import type { GuardrailValidator, ResponsePackage, SkillPackage } from '@baton/manifest';
import type { SpawnJsonProcessOptions, SpawnJsonProcessResult } from '@baton/runner/process';
import type { SkillRegistry } from './skill-registry.js';

/** Runs one JSON-in/JSON-out subprocess: @baton/runner's `spawnJsonProcess` fits. */
export type SpawnJson = (options: SpawnJsonProcessOptions) => Promise<SpawnJsonProcessResult>;

/**
 * The parts of @baton/runner's `ToolContext` delegation reads. A runner's full ToolContext is
 * accepted as is; every field is optional so `delegate()` can be called outside a run.
 */
export interface DelegationContext {
  /** Delegation depth of the calling agent (0 top level). */
  depth?: number;
  /** Cancelling the parent cancels every child. */
  signal?: AbortSignal;
  /** The calling agent (goes into the lineage for loop detection). */
  agentId?: string;
  threadId?: string;
  runId?: string;
  traceparent?: string;
}

/** A runtime tool, structurally the runner's `SystemTool`. */
export interface DelegationSystemTool {
  name: string;
  description: string;
  /** JSON Schema (type object) of the arguments. */
  parameters: Record<string, unknown>;
  execute(args: Record<string, unknown>, ctx: DelegationContext): Promise<string>;
  terminal?: boolean;
}

/** What an in-process subagent run is asked to do (a subset of the runner's `RunRequest`). */
export interface SubagentRunRequest {
  agentId: string;
  input: string;
  systemTools?: DelegationSystemTool[];
  depth?: number;
  maxTurns?: number;
  signal?: AbortSignal;
  traceparent?: string;
}

/** What delegation reads from the runner's `RunResult`. */
export interface SubagentRunResult {
  status: string;
  response: string | null;
  terminal?: { name: string; arguments: Record<string, unknown> };
}

/** Anything that runs an in-process agent: the Baton `Runner` fits. */
export interface SubagentRunner {
  run(request: SubagentRunRequest): Promise<SubagentRunResult>;
}

/** What an approval hook is asked. */
export interface ApprovalRequest {
  /** The skill or agent the task goes to. */
  skill: string;
  /** The capabilities that need approval (network_outbound, file_delete, financial_tx). */
  capabilities: string[];
  task_id: string;
  /** One line saying what the subagent is asked to do. */
  summary: string;
}

/** Says yes or no to a sensitive delegation; anything but `true` is a no. */
export type ApprovalHook = (request: ApprovalRequest) => Promise<boolean>;

/** Decides what crosses to the subagent (e.g. @baton/packets); throw to refuse. */
export interface DelegationPacketGate {
  prepare(request: { skillPackage: SkillPackage; recipient: string; purpose: string }): Promise<{ skillPackage: SkillPackage; packetId?: string }>;
}

/** Minimal structured logger (the @baton/tracing logger fits). */
export interface DelegationLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Limits on what `input_data` may carry. */
export interface PayloadLimits {
  /** Serialised size of `input_data`, bytes (default 64 KiB). */
  maxTotalBytes?: number;
  /** Any one string, bytes (default 32 KiB). */
  maxStringBytes?: number;
  /** A base64-looking string longer than this is refused as binary (default 4 KiB). */
  maxBase64Bytes?: number;
  /** Lines in any one string (default 2000): huge logs belong in a file reference. */
  maxLines?: number;
}

/** Options for `createDelegation`. */
export interface CreateDelegationOptions {
  /** Directory of skills (`<dir>/<name>/manifest.json`); loaded on first use. */
  skillsDir?: string;
  /** Or an already-loaded registry. */
  skills?: SkillRegistry;
  /** Runs in-process agent subagents (the Baton Runner). */
  runner?: SubagentRunner;
  /** Agent ids `subagent_type` may name; default: anything that is not a skill goes to the runner. */
  agents?: readonly string[];
  /** Capabilities of in-process agents, by agent id (for approvals). */
  agentCapabilities?: Record<string, readonly string[]>;
  /** Directory subagents work in; file references resolve inside it. */
  workspace: string;
  /** Says yes/no to sensitive capabilities (default: deny). */
  approvals?: ApprovalHook;
  /** Maximum delegation depth (default 3). */
  maxDepth?: number;
  /** Hard timeout per subagent attempt, ms (default 60000). */
  timeoutMs?: number;
  /** Concurrent subagents per delegation instance (default 4). */
  maxConcurrency?: number;
  /** Guardrail for AGENT_INPUT (subagent input) and AGENT_RESPONSE (its yield). */
  guardrails?: GuardrailValidator;
  /** Packet gate every SkillPackage goes through when set. */
  packetGate?: DelegationPacketGate;
  logger?: DelegationLogger;
  /** Task id generator (default random UUID). */
  idGenerator?: () => string;
  /** Clock for durations (default `performance.now`). */
  clock?: () => number;
  /** Runs subprocess skills (default: `spawnJsonProcess` from `@baton/runner/process`). */
  spawn?: SpawnJson;
  /** argv "Tests pass" runs in the workspace. */
  testCommand?: string[];
  /** Payload bounds. */
  payloadLimits?: PayloadLimits;
  /** Apply a SUCCESS yield's edits (`output_payload.diff` / `.edits`) to the workspace (default false). */
  applyEdits?: boolean;
  /** Environment to inherit delegation depth/lineage from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Extra environment variables for subprocess skills (after scrubbing). */
  skillEnv?: Record<string, string>;
}

/** What `createDelegation` returns. */
export interface Delegation {
  /** `delegate_task` for the parent agent: output is the ResponsePackage as JSON. */
  delegateTaskTool: DelegationSystemTool;
  /** `yield_control` for an in-process subagent (terminal). */
  yieldControlTool: DelegationSystemTool;
  /** Delegates one task; never rejects for subagent failures (they are FAILURE packages). */
  delegate(args: unknown, ctx?: DelegationContext): Promise<ResponsePackage>;
  /** Cancels every running subagent and waits for them to end. */
  shutdown(): Promise<void>;
}
