import { AgentIdSchema } from '@baton/manifest';
import { z } from 'zod';
import type { RegistryProblem } from '../errors.js';
import { locate, parseLocatedYaml } from './yaml-location.js';

/** How a subprocess agent is launched (baton.yml `process`). */
export const AgentProcessConfigSchema = z
  .object({
    /** Executable, resolved by the OS (no shell). */
    command: z.string().min(1),
    /** Arguments; relative paths are relative to the directory holding baton.yml (the process's cwd). */
    args: z.array(z.string()).default([]),
    /** Hard timeout for one invocation. */
    timeout_ms: z.number().int().positive().max(3_600_000).default(30_000),
  })
  .strict();

/** baton.yml `agents.<id>.history`: the window of earlier turns an agent run is sent (see runner/history.ts). */
export const HistoryWindowSchema = z
  .object({
    /** Earlier turns (this agent's runs) replayed, newest kept; 0 sends none. */
    max_turns: z.number().int().min(0).max(1000).optional(),
    /** Approximate token budget of the replayed turns (4 characters ≈ 1 token); oldest whole turns are dropped first. */
    max_tokens: z.number().int().min(1).max(10_000_000).optional(),
  })
  .strict();

/** Per-agent deployment settings (never part of the agent's manifest or prompt). */
export const AgentDeploymentSchema = z
  .object({
    /** Agent ids this agent may hand off to; offered to the model as an enum. */
    handoffs: z.array(AgentIdSchema).default([]),
    /** Where the agent runs. */
    mode: z.enum(['in_process', 'subprocess']).default('in_process'),
    process: AgentProcessConfigSchema.optional(),
    /** `racing` starts the model call while the AGENT_INPUT check runs; `blocking` waits for it. */
    input_guardrail: z.enum(['blocking', 'racing']).default('blocking'),
    /** Runtime-owned tools (e.g. delegate_task) this agent is offered. */
    system_tools: z.array(z.string().min(1)).default([]),
    /** Read-only configuration handed to subprocess agents. */
    config: z.record(z.string(), z.unknown()).default({}),
    /** Earlier turns replayed to the model on a thread (in-process agents); unset: 20 turns, no token budget. */
    history: HistoryWindowSchema.optional(),
    /**
     * Tools (manifest tools or system tools, by protocol name) whose every call waits for a human
     * decision: the run pauses in `requires_action` (see README "Approvals"). In-process agents only.
     */
    approval_required_tools: z.array(z.string().min(1).max(200)).max(200).optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.mode === 'subprocess' && !value.process) {
      ctx.addIssue({
        code: 'custom',
        path: ['process'],
        message: 'mode: subprocess needs a `process: { command, args, timeout_ms }` entry',
      });
    }
    if (value.mode === 'in_process' && value.process) {
      ctx.addIssue({ code: 'custom', path: ['process'], message: '`process` is only allowed with mode: subprocess' });
    }
    if (value.mode === 'subprocess' && value.approval_required_tools && value.approval_required_tools.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['approval_required_tools'],
        message: 'approval_required_tools needs mode: in_process (a subprocess agent calls its tools itself)',
      });
    }
    const seen = new Set<string>();
    value.handoffs.forEach((target, i) => {
      if (seen.has(target)) ctx.addIssue({ code: 'custom', path: ['handoffs', i], message: `handoff target '${target}' is listed twice` });
      seen.add(target);
    });
  });

export const RunnerLimitsConfigSchema = z
  .object({
    max_turns: z.number().int().min(1).max(1000).optional(),
    max_handoffs: z.number().int().min(0).max(100).optional(),
    run_timeout_ms: z.number().int().positive().max(86_400_000).optional(),
    guardrail_timeout_ms: z.number().int().positive().max(600_000).optional(),
    /** How long a run paused for approval (`requires_action`) waits for a decision before it expires (max 30 days). */
    approval_timeout_ms: z.number().int().positive().max(2_592_000_000).optional(),
  })
  .strict();

/** The deployment config `baton.yml` that sits beside the agent manifests. */
export const DeploymentConfigSchema = z
  .object({
    limits: RunnerLimitsConfigSchema.optional(),
    agents: z.record(AgentIdSchema, AgentDeploymentSchema).default({}),
  })
  .strict();

export type AgentDeployment = z.infer<typeof AgentDeploymentSchema>;
export type DeploymentConfig = z.infer<typeof DeploymentConfigSchema>;

/** Where each agent's entry sits in baton.yml, for cross-check messages. */
export interface DeploymentConfigFile {
  config: DeploymentConfig;
  file: string;
  /** The directory relative process paths are resolved against. */
  dir: string;
  locateAgent(agentId: string, path?: ReadonlyArray<string | number>): { line: number; col: number };
}

export type DeploymentParseResult = { ok: true; value: DeploymentConfigFile } | { ok: false; problems: RegistryProblem[] };

/** Parses and validates a baton.yml text; every problem is reported with its line and column. */
export function parseDeploymentConfig(file: string, dir: string, text: string): DeploymentParseResult {
  const located = parseLocatedYaml(file, text);
  if (located.problems.length > 0) return { ok: false, problems: located.problems };
  const raw: unknown = located.doc.toJS({ maxAliasCount: 100 }) ?? {};
  const parsed = DeploymentConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
      const pos = locate(located, path, unknownKey);
      const where = path.length > 0 ? `${path.join('.')}: ` : '';
      return { file, line: pos.line, col: pos.col, pointer: '/' + path.join('/'), message: `${where}${issue.message}` };
    });
    return { ok: false, problems };
  }
  return {
    ok: true,
    value: {
      config: parsed.data,
      file,
      dir,
      locateAgent: (agentId, path = []) => locate(located, ['agents', agentId, ...path]),
    },
  };
}

/** The deployment used when an agent has no entry in baton.yml. */
export function defaultAgentDeployment(): AgentDeployment {
  return { handoffs: [], mode: 'in_process', input_guardrail: 'blocking', system_tools: [], config: {} };
}
