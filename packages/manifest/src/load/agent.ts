import type { LoadResult } from '../problems.js';
import { AgentManifestSchema, type AgentManifest } from '../schema/agent-manifest.js';
import { checkAgentManifestData } from '../validate/agent-checks.js';
import {
  loadManifestFile,
  parseManifestText,
  type LoadManifestFileOptions,
  type ManifestKind,
  type ParseManifestOptions,
} from './manifest-loader.js';

const AGENT_KIND: ManifestKind<AgentManifest> = {
  format: 'yaml',
  schema: AgentManifestSchema,
  check: checkAgentManifestData,
};

/** Parses and validates `agent.yml` text, reporting every problem with its line and column. */
export function parseAgentManifest(source: string, options: ParseManifestOptions): LoadResult<AgentManifest> {
  return parseManifestText(AGENT_KIND, source, options);
}

/** Reads and validates an `agent.yml` file. Never throws for a bad or unreadable file. */
export function loadAgentManifestFile(file: string, options?: LoadManifestFileOptions): Promise<LoadResult<AgentManifest>> {
  return loadManifestFile(AGENT_KIND, file, options);
}
