import { parseAgentManifest } from '@baton/manifest';
import type { RegistryProblem } from '../errors.js';
import type { AgentManifestLike } from './types.js';

/** Parses one agent manifest text; `source` is the file path or URL used in messages. */
export type ManifestParser = (text: string, source: string) => Promise<ManifestParseResult> | ManifestParseResult;
export type ManifestParseResult = { ok: true; value: AgentManifestLike } | { ok: false; problems: RegistryProblem[] };

/** @baton/manifest's loader: every problem of the file, located, in one pass. */
export const defaultManifestParser: ManifestParser = (text, source) => {
  const result = parseAgentManifest(text, { file: source });
  return result.ok ? { ok: true, value: result.value } : { ok: false, problems: result.problems };
};
