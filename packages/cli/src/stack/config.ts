import type { GuardrailClientOptions } from '@baton/guardrail-client';
import type { GuardrailEngineOptions } from '@baton/guardrail-server';
import type { ActionType, GuardrailValidator } from '@baton/manifest';
import type { PacketKeys } from '@baton/packets';
import type {
  AgentRegistry,
  RunnerEventListener,
  ModelRequestListener,
  RunnerLimits,
  RunRequest,
  RunResult,
  SubmitApprovalsRequest,
  SystemTool,
  ThreadStore,
  ToolImplementation,
} from '@baton/runner';
import type { CreateDelegationOptions, Delegation } from '@baton/skills';
import type { SetupTracingOptions } from '@baton/tracing';
import type { CaptureOptions } from './captures.js';

/** Where threads, runs and audit records live. */
export type StackStoreConfig =
  | {
      /** SQLite file; its directory is created owner-only. */
      file: string;
      /** Mark runs a killed process left `in_progress` as failed while opening (default true). */
      recoverOnOpen?: boolean;
    }
  | {
      /** An open store (e.g. the Redis store every `baton worker` shares); `close()` closes it. */
      store: ThreadStore;
    };

/** Which guardrail checks every boundary. */
export type StackGuardrailConfig =
  | {
      /** The guardrail service over HTTP (`createGuardrailClient` options: url, token, timeout). */
      client: GuardrailClientOptions;
    }
  | {
      /** The in-process engine (`createGuardrailEngine` options: policy, canaries, budget). */
      engine: GuardrailEngineOptions;
    }
  | {
      /** A validator built by the caller (e.g. the client of a service the caller started). */
      validator: GuardrailValidator;
      /** Releases it; the stack owns it from the start (released by `close()`, or when start-up fails). */
      close?: () => Promise<void>;
    };

/** The purpose-bound transfer gate for handoffs (@baton/packets). */
export interface StackPacketsConfig {
  /** Recipient contract (`*.contract.yml`); parsed at start-up, re-read at every handoff. */
  contractFile: string;
  /** Case data packets are built from (JSON array of cases, or `{ cases: [...] }`). */
  casesFile: string;
  /** Reference and audit keys; default from the environment, ephemeral when unset. */
  keys?: PacketKeys;
}

/**
 * Delegation (`delegate_task`) through @baton/skills: every `createDelegation` option except the
 * runner and the guardrail, which the stack supplies (its own runner and validator).
 */
export type StackDelegationConfig = Omit<CreateDelegationOptions, 'runner' | 'guardrails'>;

/** Everything {@link createBatonStack} builds a runner from. */
export interface BatonStackConfig {
  /** Directory of `*.agent.yml` manifests (and `baton.yml`); needed unless `registry` is given. */
  agentsDir?: string;
  /** An already-loaded registry, instead of loading `agentsDir`. */
  registry?: AgentRegistry;
  /** Extra system tools per agent id, on top of baton.yml's `system_tools`. */
  extraSystemTools?: Readonly<Record<string, readonly string[]>>;
  /** Model choice (`OPENAI_*`) and packet keys (`BATON_PACKET_*_KEY`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Thread store. */
  store: StackStoreConfig;
  /** The guardrail every boundary is checked with (runner, packet gate and delegation alike). */
  guardrail: StackGuardrailConfig;
  /** Offline-model scenario, used when the environment selects the offline model. */
  scenarioFile?: string;
  /** Modules exporting `tools`, a record of functions. */
  toolModules?: readonly string[];
  /** Tool implementations given directly (a name also in `toolModules` is refused). */
  tools?: Record<string, ToolImplementation>;
  /** Purpose-bound packets for handoffs; absent means handoffs are ungated. */
  packets?: StackPacketsConfig;
  /** Delegation; absent means no `delegate_task` (an agent whose baton.yml names it is refused). */
  delegation?: StackDelegationConfig;
  /** Runtime tools besides `delegate_task`. */
  systemTools?: readonly SystemTool[];
  /** OpenTelemetry export (`setupTracing` options); absent means none is set up. */
  tracing?: SetupTracingOptions;
  /** Write every model request (and, for real model classes, its HTTP body) to disk. */
  capture?: CaptureOptions;
  /** Limits that override baton.yml's (`guardrailTimeoutMs` bounds the runner's checks and delegation's alike). */
  limits?: RunnerLimits;
  /** Action types allowed through when the guardrail fails (never on BLOCK), for the runner and delegation alike; default none (fail closed). */
  guardrailFailOpen?: readonly ActionType[];
  /** Sees every model request as sent (after the capture is written). */
  onModelRequest?: ModelRequestListener;
  /** Every run's events (the runner's `RunnerOptions.onEvent`; README "Runner events" of @baton/runner). */
  onEvent?: RunnerEventListener;
}

/** The runner a stack hands out: `run()` with per-call capture correlation. */
export interface StackRunner {
  run(request: RunRequest): Promise<RunResult>;
  /** Decides the pending approvals of a run paused in `requires_action` and resumes it (the runner's `submitApprovals`). */
  submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult>;
}

/** What {@link createBatonStack} returns. */
export interface BatonStack {
  /** Runs agents; every call has its own capture context. */
  runner: StackRunner;
  /** The registry the runner uses (with any extra system tools). */
  registry: AgentRegistry;
  /** The thread store (threads, runs, audit records). */
  store: ThreadStore;
  /** The guardrail every boundary goes through. */
  validator: GuardrailValidator;
  /** The model in use: its label (`offline model`, `openai`, …) and API. */
  model: { label: string; api: string };
  /** The offline scenario file, when one was given. */
  scenarioFile: string | undefined;
  /** The packet gate's files and keys; undefined when handoffs are ungated. */
  packets: { contractFile: string; casesFile: string; keys: PacketKeys; ephemeralKeys: boolean } | undefined;
  /** The delegation runtime, when configured. */
  delegation: Delegation | undefined;
  /**
   * Releases everything in reverse order of construction (delegation, guardrail, store, tracing).
   * Every part is released even if another fails; failures are thrown together as a
   * `StackCloseError`. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}
