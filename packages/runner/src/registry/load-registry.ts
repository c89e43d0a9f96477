import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { RegistryError, type RegistryProblem } from '../errors.js';
import { parseDeploymentConfig, type DeploymentConfigFile } from './deployment-config.js';
import { defaultManifestParser, type ManifestParser } from './manifest-parser.js';
import { createAgentRegistry } from './registry.js';
import type { AgentManifestLike, AgentRegistry } from './types.js';

/** Load every `*.agent.yml` / `agent.yml` under a directory, plus its `baton.yml`. */
export interface LoadRegistryFromDirOptions {
  /** Directory holding manifests (searched up to 3 levels deep) and an optional `baton.yml`. */
  dir: string;
  /** Parser for one manifest; defaults to @baton/manifest's loader. */
  parseManifest?: ManifestParser;
}

/** Load manifests from URLs (and optionally a deployment config from a URL). */
export interface LoadRegistryFromUrlsOptions {
  /** Manifest URLs (http, https). */
  urls: string[];
  /** URL of a baton.yml deployment config. */
  deploymentUrl?: string;
  /** `fetch` to use; defaults to the global one. */
  fetch?: typeof fetch;
  /** Largest accepted body, bytes (default 256 KiB). */
  maxBytes?: number;
  /** Timeout per request, ms (default 10000). */
  timeoutMs?: number;
  parseManifest?: ManifestParser;
}

export type LoadAgentRegistryOptions = LoadRegistryFromDirOptions | LoadRegistryFromUrlsOptions;

const DEFAULT_MAX_BYTES = 256 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_DEPTH = 3;

/**
 * Loads an agent registry. Throws {@link RegistryError} listing every problem as
 * `file:line:col: message` when any manifest or the deployment config is invalid.
 */
export async function loadAgentRegistry(options: LoadAgentRegistryOptions): Promise<AgentRegistry> {
  if ('dir' in options) return loadFromDir(options);
  if ('urls' in options) return loadFromUrls(options);
  throw new RegistryError([{ file: '<options>', line: 1, col: 1, message: 'loadAgentRegistry needs { dir } or { urls }' }]);
}

function isManifestFile(name: string): boolean {
  return name === 'agent.yml' || name === 'agent.yaml' || name.endsWith('.agent.yml') || name.endsWith('.agent.yaml');
}

async function findManifestFiles(dir: string, depth: number, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && depth < MAX_DEPTH) await findManifestFiles(full, depth + 1, out);
    else if (entry.isFile() && isManifestFile(entry.name)) out.push(full);
  }
}

async function loadFromDir(options: LoadRegistryFromDirOptions): Promise<AgentRegistry> {
  const dir = path.resolve(options.dir);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RegistryError([{ file: options.dir, line: 1, col: 1, message: 'agent directory does not exist or is not a directory' }]);
  }
  const parse = options.parseManifest ?? defaultManifestParser;
  const files: string[] = [];
  await findManifestFiles(dir, 0, files);
  const problems: RegistryProblem[] = [];
  const agents: Array<{ manifest: AgentManifestLike; source: string }> = [];
  for (const file of files) {
    const result = await parse(await readFile(file, 'utf8'), file);
    if (result.ok) agents.push({ manifest: result.value, source: file });
    else problems.push(...result.problems);
  }
  if (files.length === 0) problems.push({ file: dir, line: 1, col: 1, message: 'no agent manifests (agent.yml or *.agent.yml) found' });

  let deployment: DeploymentConfigFile | undefined;
  const configFile = path.join(dir, 'baton.yml');
  const configText = await readFile(configFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (configText !== undefined) {
    const parsed = parseDeploymentConfig(configFile, dir, configText);
    if (parsed.ok) deployment = parsed.value;
    else problems.push(...parsed.problems);
  }
  if (problems.length > 0) throw new RegistryError(problems);
  return createAgentRegistry({ agents, ...(deployment ? { deployment } : {}) });
}

async function fetchText(
  url: string,
  options: LoadRegistryFromUrlsOptions,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    return { ok: false, message: 'not a valid URL' };
  }
  if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')
    return { ok: false, message: `unsupported URL scheme '${parsedUrl.protocol}'` };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await doFetch(parsedUrl, { signal: controller.signal, redirect: 'error' });
    if (!response.ok) return { ok: false, message: `HTTP ${response.status} fetching manifest` };
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes)
      return { ok: false, message: `manifest is ${declared} bytes; the limit is ${maxBytes}` };
    if (!response.body) return { ok: true, text: '' };
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, message: `manifest is larger than the limit of ${maxBytes} bytes` };
      }
      chunks.push(value);
    }
    return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, message: `timed out after ${timeoutMs} ms fetching manifest` };
    return { ok: false, message: `could not fetch manifest: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

async function loadFromUrls(options: LoadRegistryFromUrlsOptions): Promise<AgentRegistry> {
  const parse = options.parseManifest ?? defaultManifestParser;
  const problems: RegistryProblem[] = [];
  const agents: Array<{ manifest: AgentManifestLike; source: string }> = [];
  if (options.urls.length === 0) problems.push({ file: '<urls>', line: 1, col: 1, message: 'no manifest URLs given' });
  for (const url of options.urls) {
    const fetched = await fetchText(url, options);
    if (!fetched.ok) {
      problems.push({ file: url, line: 1, col: 1, message: fetched.message });
      continue;
    }
    const result = await parse(fetched.text, url);
    if (result.ok) agents.push({ manifest: result.value, source: url });
    else problems.push(...result.problems);
  }
  let deployment: DeploymentConfigFile | undefined;
  if (options.deploymentUrl !== undefined) {
    const fetched = await fetchText(options.deploymentUrl, options);
    if (!fetched.ok) problems.push({ file: options.deploymentUrl, line: 1, col: 1, message: fetched.message });
    else {
      const parsed = parseDeploymentConfig(options.deploymentUrl, process.cwd(), fetched.text);
      if (!parsed.ok) problems.push(...parsed.problems);
      else {
        deployment = parsed.value;
        // A remote config must not be able to start local processes.
        for (const [agentId, entry] of Object.entries(parsed.value.config.agents)) {
          if (entry.mode === 'subprocess') {
            const pos = parsed.value.locateAgent(agentId, ['mode']);
            problems.push({
              file: options.deploymentUrl,
              ...pos,
              message: `agents.${agentId}.mode: subprocess agents cannot be configured from a URL`,
            });
          }
        }
      }
    }
  }
  if (problems.length > 0) throw new RegistryError(problems);
  return createAgentRegistry({ agents, ...(deployment ? { deployment } : {}) });
}
