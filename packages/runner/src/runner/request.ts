import { InvalidRunRequestError, ToolNameError } from '../errors.js';
import type { RegisteredAgent } from '../registry/types.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from './approvals.js';
import { systemToolNameProblem } from './tool-names.js';
import type { RunnerLimits, RunRequest, SystemTool } from './types.js';

/** Limit defaults, in one place. */
export const DEFAULT_LIMITS: Required<Omit<RunnerLimits, 'lockLeaseMs'>> & Pick<RunnerLimits, 'lockLeaseMs'> = {
  maxTurns: 10,
  maxHandoffs: 5,
  runTimeoutMs: 120_000,
  guardrailTimeoutMs: 2_000,
  approvalTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
  /** Unset: `runTimeoutMs` + 10000. */
  lockLeaseMs: undefined,
};

/** Added to `runTimeoutMs` for the default thread-lock lease. */
export const LOCK_LEASE_MARGIN_MS = 10_000;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,119}$/;

const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;

/** Defaults, then baton.yml `limits`, then the Runner's own: the later set value wins. */
export function resolveLimits(fromRegistry: RunnerLimits, fromOptions: RunnerLimits | undefined): typeof DEFAULT_LIMITS {
  return { ...DEFAULT_LIMITS, ...definedOnly(fromRegistry), ...definedOnly(fromOptions ?? {}) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function validateRequest(request: RunRequest): void {
  if (!request || typeof request !== 'object') throw new InvalidRunRequestError('run(request): request object is required');
  if (typeof request.agentId !== 'string' || request.agentId === '')
    throw new InvalidRunRequestError('run(request): agentId must be a non-empty string');
  if (typeof request.input !== 'string') throw new InvalidRunRequestError('run(request): input must be a string');
  if (request.threadId !== undefined && (typeof request.threadId !== 'string' || !THREAD_ID.test(request.threadId))) {
    throw new InvalidRunRequestError('run(request): threadId must be 1-200 characters of letters, digits, _ . : -');
  }
  if (request.depth !== undefined && (!Number.isInteger(request.depth) || request.depth < 0)) {
    throw new InvalidRunRequestError('run(request): depth must be a non-negative integer');
  }
  if (request.maxTurns !== undefined && (!Number.isInteger(request.maxTurns) || request.maxTurns < 1)) {
    throw new InvalidRunRequestError('run(request): maxTurns must be a positive integer');
  }
  if (request.agentVersion !== undefined && typeof request.agentVersion !== 'string')
    throw new InvalidRunRequestError('run(request): agentVersion must be a string');
  if (request.systemTools !== undefined) {
    if (!Array.isArray(request.systemTools)) throw new InvalidRunRequestError('run(request): systemTools must be an array of system tools');
    const names = new Set<string>();
    for (const [i, st] of request.systemTools.entries()) {
      checkSystemToolShape(st, `run(request): systemTools[${i}]`);
      if (names.has(st.name))
        throw new ToolNameError(
          st.name,
          `run(request): systemTools[${i}]: a system tool named '${st.name}' is already given; names must be unique`,
          { code: 'TOOL_NAME_CONFLICT' },
        );
      names.add(st.name);
    }
  }
  if (
    request.inputBoundary !== undefined &&
    (typeof request.inputBoundary !== 'object' || request.inputBoundary === null || Array.isArray(request.inputBoundary))
  ) {
    throw new InvalidRunRequestError('run(request): inputBoundary must be an object');
  }
  if (request.onEvent !== undefined && typeof request.onEvent !== 'function')
    throw new InvalidRunRequestError('run(request): onEvent must be a function');
  if (request.stream !== undefined && typeof request.stream !== 'boolean')
    throw new InvalidRunRequestError('run(request): stream must be a boolean');
  if (
    request.idempotencyKey !== undefined &&
    (typeof request.idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(request.idempotencyKey))
  ) {
    throw new InvalidRunRequestError(
      'run(request): idempotencyKey must be 1-120 characters of letters, digits, _ . : - /, starting with a letter or digit',
    );
  }
}

/** A system tool's name and shape, checked before it can reach the model; `where` locates it in messages. */
export function checkSystemToolShape(st: SystemTool, where: string): void {
  if (!st || typeof st !== 'object') throw new InvalidRunRequestError(`${where}: must be a system tool object`);
  const problem = systemToolNameProblem(st.name);
  if (problem) throw new ToolNameError(String(st.name), `${where}: ${problem}`);
  if (typeof st.execute !== 'function') throw new InvalidRunRequestError(`${where} ('${st.name}'): execute must be a function`);
}

/**
 * `RunRequest.systemTools` must not take the name of a tool the first agent already has (a
 * manifest tool or another configured system tool): a caller mistake, refused before any run.
 * Agents reached by handoff are checked when they start (`TOOL_NAME_CONFLICT`).
 */
export function checkRequestToolsFor(
  agent: RegisteredAgent,
  requested: readonly SystemTool[],
  configured: ReadonlyMap<string, SystemTool>,
): void {
  for (const [i, st] of requested.entries()) {
    if (agent.manifest.tools.some((t) => t.function.name === st.name)) {
      throw new ToolNameError(
        st.name,
        `run(request): systemTools[${i}]: '${st.name}' is also a tool in ${agent.manifest.id}'s manifest; a system tool may not replace it`,
        { code: 'TOOL_NAME_CONFLICT' },
      );
    }
    const other = agent.deployment.system_tools.includes(st.name) ? configured.get(st.name) : undefined;
    if (other && other !== st) {
      throw new ToolNameError(
        st.name,
        `run(request): systemTools[${i}]: ${agent.manifest.id} already has the system tool '${st.name}' (baton.yml system_tools); a system tool may not replace another`,
        { code: 'TOOL_NAME_CONFLICT' },
      );
    }
  }
}
