import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolImplementation } from '@baton/runner';

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
  env: NodeJS.ProcessEnv;
}

/** A usage mistake (exit code 2): the message says which flag is wrong. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

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
  const { stat } = await import('node:fs/promises');
  const agentsDir = resolve(options.agentsDir);
  const isDir = await stat(agentsDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`--agents ${options.agentsDir}: not a directory`);

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
  if (captureDir) await mkdir(captureDir, { recursive: true });
  const name = (seq: number, agentId: string, suffix = '') => join(captureDir as string, `${String(seq).padStart(4, '0')}-${agentId}${suffix}.json`);
  const capturingFetch: typeof fetch = async (input, init) => {
    if (captureDir && current && typeof init?.body === 'string') await writeFile(name(current.sequence, current.agentId, '.http'), init.body);
    return fetch(input, init);
  };
  const model = await resolveModelProvider({ env: options.env, ...(scenarioFile ? { scenarioFile } : {}), ...(captureDir ? { fetch: capturingFetch } : {}) });

  await mkdir(dirname(resolve(options.storeFile)), { recursive: true });
  const store = createSqliteThreadStore({ file: resolve(options.storeFile), recoverOnOpen: true });
  // The in-process engine is loaded only when no service URL is given.
  const validator = options.guardrailUrl
    ? createGuardrailClient({ url: options.guardrailUrl, ...(options.guardrailToken ? { token: options.guardrailToken } : {}) })
    : createInProcessGuardrail((await import('@baton/guardrail-server')).createGuardrailEngine());

  const runner = new Runner({
    registry,
    tools,
    guardrails: validator,
    store,
    modelProvider: model.provider,
    modelLabel: model.label,
    ...(captureDir
      ? {
          onModelRequest: async (event: { sequence: number; agentId: string; request: unknown }) => {
            current = { sequence: event.sequence, agentId: event.agentId };
            await writeFile(name(event.sequence, event.agentId), captureJson(event.request));
          },
        }
      : {}),
  });
  return {
    runner,
    store,
    label: model.label,
    scenarioFile,
    async close() {
      await store.close();
      await tracing?.shutdown();
    },
  };
}
