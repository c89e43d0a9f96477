import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunnerLimits, SystemTool, ThreadStore, ToolImplementation } from '@baton/runner';
import { UsageError } from '../errors.js';

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
  /** Recipient contract; discovered as `<agents>/../contracts/*.contract.yml` when absent. */
  contractFile?: string;
  /** Case data (JSON array of cases, or `{ cases: [...] }`); `<agents>/../data/cases.json` when absent. */
  casesFile?: string;
  /** False turns the packet gate off (`--no-packets`): a handoff target then sees only the handoff's input. */
  packets?: boolean;
  env: NodeJS.ProcessEnv;
  /** A store to use instead of the SQLite file (e.g. the Redis store of `baton worker`); closed by `close()`. */
  store?: ThreadStore;
  /** Runtime tools for agents whose baton.yml `system_tools` name them (e.g. `delegate_task`). */
  systemTools?: SystemTool[];
  /** Limits that override baton.yml's. */
  limits?: RunnerLimits;
}

/** A usage mistake (exit code 2): the one declaration is in `../errors.ts`. */
export { UsageError };

async function listFiles(dir: string, test: (name: string) => boolean): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(test).sort().map((f) => join(dir, f));
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
export async function discoverPacketFiles(agentsDir: string, options: Pick<RunnerSetupOptions, 'contractFile' | 'casesFile' | 'packets'>): Promise<PacketFiles | undefined> {
  if (options.packets === false) {
    if (options.contractFile !== undefined || options.casesFile !== undefined) throw new UsageError('--no-packets cannot be combined with --contract or --cases');
    return undefined;
  }
  let contractFile: string | undefined;
  if (options.contractFile !== undefined) {
    contractFile = resolve(options.contractFile);
    if (!(await isFile(contractFile))) throw new UsageError(`--contract ${options.contractFile}: no such file`);
  } else {
    const contractsDir = resolve(agentsDir, '..', 'contracts');
    const found = await listFiles(contractsDir, (f) => f.endsWith('.contract.yml'));
    if (found.length > 1) throw new UsageError(`${contractsDir} holds ${found.length} recipient contracts; choose one with --contract <file> (or pass --no-packets)`);
    contractFile = found[0];
  }
  if (contractFile === undefined) {
    if (options.casesFile !== undefined) throw new UsageError('--cases needs a recipient contract: pass --contract <file> or add <agents>/../contracts/<name>.contract.yml');
    return undefined;
  }
  let casesFile: string;
  if (options.casesFile !== undefined) {
    casesFile = resolve(options.casesFile);
    if (!(await isFile(casesFile))) throw new UsageError(`--cases ${options.casesFile}: no such file`);
  } else {
    casesFile = resolve(agentsDir, '..', 'data', 'cases.json');
    if (!(await isFile(casesFile))) throw new UsageError(`${contractFile}: the packet gate needs case data; pass --cases <file> or add ${casesFile} (or pass --no-packets)`);
  }
  return { contractFile, casesFile };
}

/** Loads @baton/packets, checks the contract parses and reads the keys. */
async function loadPacketSupport(files: PacketFiles, env: NodeJS.ProcessEnv) {
  const module = await import('@baton/packets');
  await module.loadRecipientContract(files.contractFile);
  // Ephemeral keys keep `baton run` working out of the box, but their digests reconcile only
  // inside this process: set BATON_PACKET_REFERENCE_KEY and BATON_PACKET_AUDIT_KEY for audit
  // records that must be checked later. A short or reused key is always refused.
  const keys = module.packetKeysFromEnv({ env, allowEphemeral: true });
  return { ...files, module, keys };
}

/**
 * The case data's canary markers, for the guardrail: from the packet gate's case file, or (with
 * `--no-packets`) the conventional `<agents>/../data/cases.json` when it exists. Turning packets
 * off must not also turn off the check that catches case notes leaking across a handoff.
 */
async function loadCaseCanaries(agentsDir: string, packetFiles: PacketFiles | undefined): Promise<{ file: string; markers: string[] } | undefined> {
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

type ToolRecord = Record<string, ToolImplementation>;

/** Imports tool modules; each must export `tools`, a record of functions. */
export async function loadToolModules(paths: string[]): Promise<ToolRecord> {
  const tools: ToolRecord = {};
  for (const p of paths) {
    let mod: { tools?: unknown };
    try {
      mod = (await import(pathToFileURL(resolve(p)).href)) as { tools?: unknown };
    } catch (err) {
      throw new UsageError(`--tools ${p}: cannot import module: ${(err as Error).message}`);
    }
    if (!mod.tools || typeof mod.tools !== 'object') throw new UsageError(`--tools ${p}: the module must export \`tools\`, a record of functions`);
    for (const [name, fn] of Object.entries(mod.tools as Record<string, unknown>)) {
      if (typeof fn !== 'function') throw new UsageError(`--tools ${p}: tools.${name} is not a function`);
      if (tools[name]) throw new UsageError(`--tools ${p}: tool '${name}' is defined by two modules`);
      tools[name] = fn as ToolRecord[string];
    }
  }
  return tools;
}

/** Serialises a model request for a capture file (an AbortSignal is not data). */
export function captureJson(request: unknown): string {
  return JSON.stringify(request, (key, value: unknown) => (key === 'signal' || value instanceof AbortSignal ? undefined : value), 2) + '\n';
}

export async function setupRunner(options: RunnerSetupOptions) {
  const agentsDir = resolve(options.agentsDir);
  const isDir = await stat(agentsDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`--agents ${options.agentsDir}: not a directory`);

  // Packet files and keys first: a bad flag, a broken contract or a bad key stops start-up rather
  // than the first handoff (the policy store still re-reads the contract at every handoff).
  const packetFiles = await discoverPacketFiles(agentsDir, options);
  const packets = packetFiles ? await loadPacketSupport(packetFiles, options.env) : undefined;
  const canaries = await loadCaseCanaries(agentsDir, packetFiles);

  const [{ Runner, loadAgentRegistry, createSqliteThreadStore, resolveModelProvider }, { createGuardrailClient, createInProcessGuardrail }] = await Promise.all([
    import('@baton/runner'),
    import('@baton/guardrail-client'),
  ]);

  // OpenTelemetry export only when asked for: OTLP endpoint or a JSONL file of spans.
  const env = options.env;
  const wantsTracing = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.BATON_TRACE_FILE);
  const tracing = wantsTracing
    ? (await import('@baton/tracing')).setupTracing({ serviceName: env.OTEL_SERVICE_NAME || 'baton', env, ...(env.BATON_TRACE_FILE ? { jsonlFile: env.BATON_TRACE_FILE } : {}) })
    : undefined;

  const registry = await loadAgentRegistry({ dir: agentsDir });
  const scenarioFile = options.scenarioFile ?? (await discoverScenario(agentsDir));
  const toolModules = options.toolModules ?? (await listFiles(resolve(agentsDir, '..', 'tools'), (f) => f.endsWith('.mjs')));
  const tools = await loadToolModules(toolModules);

  // Capture the HTTP body too when a real OpenAI model class is in use.
  let current: { sequence: number; agentId: string } | undefined;
  const captureDir = options.captureDir ? resolve(options.captureDir) : undefined;
  // Captures hold whole model requests (customer data): owner-only directories and files.
  if (captureDir) await mkdir(captureDir, { recursive: true, mode: 0o700 });
  const name = (seq: number, agentId: string, suffix = '') => join(captureDir as string, `${String(seq).padStart(4, '0')}-${agentId}${suffix}.json`);
  const capturingFetch: typeof fetch = async (input, init) => {
    if (captureDir && current && typeof init?.body === 'string') await writeFile(name(current.sequence, current.agentId, '.http'), init.body, { mode: 0o600 });
    return fetch(input, init);
  };
  const model = await resolveModelProvider({ env: options.env, ...(scenarioFile ? { scenarioFile } : {}), ...(captureDir ? { fetch: capturingFetch } : {}) });

  let store: ThreadStore;
  if (options.store) {
    store = options.store;
  } else {
    await mkdir(dirname(resolve(options.storeFile)), { recursive: true, mode: 0o700 });
    store = createSqliteThreadStore({ file: resolve(options.storeFile), recoverOnOpen: true });
  }
  // The in-process engine is loaded only when no service URL is given.
  // The in-process engine blocks the case canaries in every handoff, tool call and response (as
  // the demo does); a guardrail service must list them in its own policy (`leakage.canaries`).
  const validator = options.guardrailUrl
    ? createGuardrailClient({ url: options.guardrailUrl, ...(options.guardrailToken ? { token: options.guardrailToken } : {}) })
    : createInProcessGuardrail((await import('@baton/guardrail-server')).createGuardrailEngine({ canaries: canaries?.markers ?? [] }));

  // The purpose-bound transfer gate: a handoff target's whole input is a packet of the fields its
  // purpose permits, read from the case data under the authenticated caller (RunRequest.auth),
  // never the coordinator's history. Decisions and boundary proofs go to the same SQLite store.
  const handoffGate = packets?.module.createPacketHandoffGate({
    policyStore: packets.module.createFilePolicyStore({ file: packets.contractFile }),
    caseData: packets.module.createFileCaseDataSource({ file: packets.casesFile }),
    keys: packets.keys,
    audit: store,
    guardrail: validator,
  });

  const runner = new Runner({
    registry,
    tools,
    guardrails: validator,
    store,
    modelProvider: model.provider,
    modelLabel: model.label,
    ...(handoffGate ? { handoffGate } : {}),
    ...(options.systemTools ? { systemTools: options.systemTools } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(captureDir
      ? {
          onModelRequest: async (event: { sequence: number; agentId: string; request: unknown }) => {
            current = { sequence: event.sequence, agentId: event.agentId };
            await writeFile(name(event.sequence, event.agentId), captureJson(event.request), { mode: 0o600 });
          },
        }
      : {}),
  });
  return {
    runner,
    store,
    label: model.label,
    scenarioFile,
    /** The guardrail every boundary is checked with (for delegation set up beside the runner). */
    validator,
    /** The packet gate's files and whether its keys are ephemeral; undefined when handoffs are ungated. */
    packets: packets ? { contractFile: packets.contractFile, casesFile: packets.casesFile, ephemeralKeys: packets.keys.ephemeral } : undefined,
    /** Canary markers read from the case data, and whether the guardrail in use was given them (only the in-process engine is). */
    canaries: canaries ? { file: canaries.file, count: canaries.markers.length, loaded: !options.guardrailUrl } : undefined,
    async close() {
      await store.close();
      await tracing?.shutdown();
    },
  };
}
