import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunnerLimits, SystemTool, ThreadStore } from '@baton/runner';
import type { StackDelegationConfig } from '../stack/index.js';
import { UsageError } from '../errors.js';
import { positiveIntFlag } from './queue-options.js';

/**
 * Builds a Baton runner from CLI options. Shared by `baton run` and `baton serve`; every heavy
 * module is imported lazily so `baton --help` never loads the Agents SDK.
 */
export interface RunnerSetupOptions {
  /** Directory of `*.agent.yml` files (and `baton.yml`). */
  agentsDir: string;
  /** SQLite file for threads; its directory is created. */
  storeFile: string;
  /** Guardrail service URL; the in-process engine when absent. */
  guardrailUrl?: string;
  /** Bearer token for the guardrail service. */
  guardrailToken?: string;
  /** Offline-model scenario; discovered next to the agents when absent. */
  scenarioFile?: string;
  /** Modules exporting a `tools` record; discovered in `<agents>/../tools/*.mjs` when absent. */
  toolModules?: string[];
  /** Directory to write every model request into. */
  captureDir?: string;
  /** `flat` (default, `baton run`): the call's requests directly in `captureDir`; `per-call` (`baton serve`): one directory per call. */
  captureLayout?: 'flat' | 'per-call';
  /** Recipient contract; discovered as `<agents>/../contracts/*.contract.yml` when absent. */
  contractFile?: string;
  /** Case data (JSON array of cases, or `{ cases: [...] }`); `<agents>/../data/cases.json` when absent. */
  casesFile?: string;
  /** False turns the packet gate off (`--no-packets`): a handoff target then sees only the handoff's input. */
  packets?: boolean;
  env: NodeJS.ProcessEnv;
  /** A store to use instead of the SQLite file (e.g. the Redis store of `baton worker`); closed by `close()`. */
  store?: ThreadStore;
  /** Runtime tools for agents whose baton.yml `system_tools` name them. */
  systemTools?: SystemTool[];
  /** Delegation (`delegate_task`), built by the stack beside the runner. */
  delegation?: StackDelegationConfig;
  /** Limits that override baton.yml's. */
  limits?: RunnerLimits;
}

/** A usage mistake (exit code 2): the one declaration is in `../errors.ts`. */
export { UsageError };

/** A positive integer flag's value; a bad one is a UsageError naming the flag. */
export function positiveIntOption(flag: string, value: string): number {
  try {
    return positiveIntFlag(flag, value) as number;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function listFiles(dir: string, test: (name: string) => boolean): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter(test)
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** `<agents>/../scenarios/*.scenario.yml`, the first in name order. */
export async function discoverScenario(agentsDir: string): Promise<string | undefined> {
  return (await listFiles(resolve(agentsDir, '..', 'scenarios'), (f) => f.endsWith('.scenario.yml')))[0];
}

/** Where the packet gate's contract and case data come from. */
export interface PacketFiles {
  contractFile: string;
  casesFile: string;
}

const isFile = (file: string) =>
  stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * Finds the packet gate's files: explicit flags first, else by convention next to the agents
 * (`<agents>/../contracts/*.contract.yml`, `<agents>/../data/cases.json`), like scenarios and
 * tools. `undefined` means no gate. Anything ambiguous or half-configured is a usage error rather
 * than a silent fallback to the ungated handoff, which would forward more than the contract allows.
 */
export async function discoverPacketFiles(
  agentsDir: string,
  options: Pick<RunnerSetupOptions, 'contractFile' | 'casesFile' | 'packets'>,
): Promise<PacketFiles | undefined> {
  if (options.packets === false) {
    if (options.contractFile !== undefined || options.casesFile !== undefined)
      throw new UsageError('--no-packets cannot be combined with --contract or --cases');
    return undefined;
  }
  let contractFile: string | undefined;
  if (options.contractFile !== undefined) {
    contractFile = resolve(options.contractFile);
    if (!(await isFile(contractFile))) throw new UsageError(`--contract ${options.contractFile}: no such file`);
  } else {
    const contractsDir = resolve(agentsDir, '..', 'contracts');
    const found = await listFiles(contractsDir, (f) => f.endsWith('.contract.yml'));
    if (found.length > 1)
      throw new UsageError(
        `${contractsDir} holds ${found.length} recipient contracts; choose one with --contract <file> (or pass --no-packets)`,
      );
    contractFile = found[0];
  }
  if (contractFile === undefined) {
    if (options.casesFile !== undefined)
      throw new UsageError('--cases needs a recipient contract: pass --contract <file> or add <agents>/../contracts/<name>.contract.yml');
    return undefined;
  }
  let casesFile: string;
  if (options.casesFile !== undefined) {
    casesFile = resolve(options.casesFile);
    if (!(await isFile(casesFile))) throw new UsageError(`--cases ${options.casesFile}: no such file`);
  } else {
    casesFile = resolve(agentsDir, '..', 'data', 'cases.json');
    if (!(await isFile(casesFile)))
      throw new UsageError(
        `${contractFile}: the packet gate needs case data; pass --cases <file> or add ${casesFile} (or pass --no-packets)`,
      );
  }
  return { contractFile, casesFile };
}

/**
 * The case data's canary markers, for the guardrail: from the packet gate's case file, or (with
 * `--no-packets`) the conventional `<agents>/../data/cases.json` when it exists. Turning packets
 * off must not also turn off the check that catches case notes leaking across a handoff.
 */
async function loadCaseCanaries(
  agentsDir: string,
  packetFiles: PacketFiles | undefined,
): Promise<{ file: string; markers: string[] } | undefined> {
  const conventional = resolve(agentsDir, '..', 'data', 'cases.json');
  const file = packetFiles?.casesFile ?? ((await isFile(conventional)) ? conventional : undefined);
  if (file === undefined) return undefined;
  const { readCaseCanaries } = await import('@baton/packets');
  try {
    return { file, markers: await readCaseCanaries(file) };
  } catch (err) {
    throw new UsageError(`${file}: cannot read the case canaries: ${(err as Error).message}`);
  }
}

/**
 * Builds the stack for `baton run`, `baton serve` and `baton worker` from their flags: the
 * conventions (scenario, tools, contract and cases next to the agents), the guardrail (service or
 * in-process engine with the case canaries) and tracing from the environment, then
 * {@link createBatonStack}. A stack configuration error becomes a usage error (exit code 2).
 */
export async function setupRunner(options: RunnerSetupOptions) {
  const agentsDir = resolve(options.agentsDir);
  const isDir = await stat(agentsDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`--agents ${options.agentsDir}: not a directory`);

  const packetFiles = await discoverPacketFiles(agentsDir, options);
  const canaries = await loadCaseCanaries(agentsDir, packetFiles);
  const scenarioFile = options.scenarioFile ?? (await discoverScenario(agentsDir));
  const toolModules = options.toolModules ?? (await listFiles(resolve(agentsDir, '..', 'tools'), (f) => f.endsWith('.mjs')));

  // OpenTelemetry export only when asked for: OTLP endpoint or a JSONL file of spans.
  const env = options.env;
  const wantsTracing = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.BATON_TRACE_FILE);

  const { createBatonStack, StackConfigError } = await import('../stack/index.js');
  let stack: Awaited<ReturnType<typeof createBatonStack>>;
  try {
    stack = await createBatonStack({
      agentsDir,
      env,
      store: options.store ? { store: options.store } : { file: options.storeFile, recoverOnOpen: true },
      // The in-process engine blocks the case canaries in every handoff, tool call and response (as
      // the demo does); a guardrail service must list them in its own policy (`leakage.canaries`).
      guardrail: options.guardrailUrl
        ? { client: { url: options.guardrailUrl, ...(options.guardrailToken ? { token: options.guardrailToken } : {}) } }
        : { engine: { canaries: canaries?.markers ?? [] } },
      ...(scenarioFile ? { scenarioFile } : {}),
      toolModules,
      ...(packetFiles ? { packets: packetFiles } : {}),
      ...(options.delegation ? { delegation: options.delegation } : {}),
      ...(options.systemTools ? { systemTools: options.systemTools } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(wantsTracing
        ? {
            tracing: {
              serviceName: env.OTEL_SERVICE_NAME || 'baton',
              env,
              ...(env.BATON_TRACE_FILE ? { jsonlFile: env.BATON_TRACE_FILE } : {}),
            },
          }
        : {}),
      ...(options.captureDir ? { capture: { dir: options.captureDir, layout: options.captureLayout ?? 'flat' } } : {}),
    });
  } catch (err) {
    if (err instanceof StackConfigError) throw new UsageError(err.message);
    throw err;
  }
  return {
    runner: stack.runner,
    store: stack.store,
    label: stack.model.label,
    scenarioFile,
    /** The guardrail every boundary is checked with. */
    validator: stack.validator,
    /** The delegation runtime, when `delegation` was given. */
    delegation: stack.delegation,
    /** The packet gate's files and whether its keys are ephemeral; undefined when handoffs are ungated. */
    packets: stack.packets
      ? { contractFile: stack.packets.contractFile, casesFile: stack.packets.casesFile, ephemeralKeys: stack.packets.ephemeralKeys }
      : undefined,
    /** Canary markers read from the case data, and whether the guardrail in use was given them (only the in-process engine is). */
    canaries: canaries ? { file: canaries.file, count: canaries.markers.length, loaded: !options.guardrailUrl } : undefined,
    close: () => stack.close(),
  };
}
