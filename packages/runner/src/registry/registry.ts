import { RESERVED_TOOL_NAMES } from '@baton/manifest';
import { manifestToolNameProblem, systemToolNameProblem } from '../runner/tool-names.js';
import { RegistryError, type RegistryProblem } from '../errors.js';
import { defaultAgentDeployment, type DeploymentConfigFile } from './deployment-config.js';
import { compareSemver } from './semver.js';
import type { AgentManifestLike, AgentRegistry, RegisteredAgent, RegistryLimits } from './types.js';

/** Options for {@link createAgentRegistry}. */
export interface CreateAgentRegistryOptions {
  /** Validated manifests and where each came from. */
  agents: Array<{ manifest: AgentManifestLike; source: string }>;
  /** The parsed baton.yml, if there is one. */
  deployment?: DeploymentConfigFile;
}

/**
 * Builds a registry from already-validated manifests and checks them as a set: id+version
 * unique, every baton.yml entry and handoff target known. Throws {@link RegistryError} listing
 * every problem.
 */
export function createAgentRegistry(options: CreateAgentRegistryOptions): AgentRegistry {
  const problems: RegistryProblem[] = [];
  const byId = new Map<string, RegisteredAgent[]>();
  const deployment = options.deployment;
  const entries = deployment?.config.agents ?? {};

  for (const { manifest, source } of options.agents) {
    const versions = byId.get(manifest.id) ?? [];
    const dup = versions.find((a) => a.manifest.version === manifest.version);
    if (dup) {
      problems.push({
        file: source,
        line: 1,
        col: 1,
        message: `agent ${manifest.id}@${manifest.version} is already defined in ${dup.source}; id+version must be unique`,
      });
      continue;
    }
    // Manifests given here may not have come through the manifest loader: every name is checked
    // again, since it goes to the model as is.
    const firstIndex = new Map<string, number>();
    for (const [i, t] of manifest.tools.entries()) {
      const at = { file: source, line: 1, col: 1, pointer: `/tools/${i}/function/name` };
      const name: unknown = t.function.name;
      const problem = manifestToolNameProblem(name);
      if (problem) {
        problems.push({ ...at, message: `agent ${manifest.id}: tools[${i}].function.name: ${problem}` });
        continue;
      }
      if (RESERVED_TOOL_NAMES.includes(t.function.name)) {
        problems.push({ ...at, message: `tools[${i}].function.name: '${t.function.name}' is reserved for the runner` });
      }
      const first = firstIndex.get(t.function.name);
      if (first !== undefined)
        problems.push({
          ...at,
          message: `agent ${manifest.id}: tools[${i}].function.name: '${t.function.name}' is already tools[${first}]; tool names must be unique`,
        });
      else firstIndex.set(t.function.name, i);
    }
    versions.push({
      manifest,
      source,
      deployment: entries[manifest.id] ?? defaultAgentDeployment(),
      baseDir: deployment?.dir,
    });
    byId.set(manifest.id, versions);
  }

  if (deployment) {
    for (const [agentId, entry] of Object.entries(entries)) {
      if (!byId.has(agentId)) {
        const pos = deployment.locateAgent(agentId);
        problems.push({ file: deployment.file, ...pos, message: `agents.${agentId}: no agent with this id is loaded` });
        continue;
      }
      const manifestTools = new Set(byId.get(agentId)!.flatMap((a) => a.manifest.tools.map((t) => t.function.name)));
      entry.system_tools.forEach((name, i) => {
        const pos = deployment.locateAgent(agentId, ['system_tools', i]);
        const problem = systemToolNameProblem(name);
        if (problem) problems.push({ file: deployment.file, ...pos, message: `agents.${agentId}.system_tools[${i}]: ${problem}` });
        else if (manifestTools.has(name))
          problems.push({
            file: deployment.file,
            ...pos,
            message: `agents.${agentId}.system_tools[${i}]: '${name}' is also a tool in the agent's manifest; a system tool may not replace it`,
          });
        else if (entry.system_tools.indexOf(name) !== i)
          problems.push({ file: deployment.file, ...pos, message: `agents.${agentId}.system_tools[${i}]: '${name}' is listed twice` });
      });
      entry.handoffs.forEach((target, i) => {
        const pos = deployment.locateAgent(agentId, ['handoffs', i]);
        if (target === agentId)
          problems.push({ file: deployment.file, ...pos, message: `agents.${agentId}.handoffs[${i}]: an agent cannot hand off to itself` });
        else if (!byId.has(target))
          problems.push({ file: deployment.file, ...pos, message: `agents.${agentId}.handoffs[${i}]: unknown handoff target '${target}'` });
      });
    }
  }

  if (problems.length > 0) throw new RegistryError(problems);

  for (const versions of byId.values()) versions.sort((a, b) => compareSemver(a.manifest.version, b.manifest.version));
  const limitsConfig = deployment?.config.limits;
  const limits: RegistryLimits = {};
  if (limitsConfig?.max_turns !== undefined) limits.maxTurns = limitsConfig.max_turns;
  if (limitsConfig?.max_handoffs !== undefined) limits.maxHandoffs = limitsConfig.max_handoffs;
  if (limitsConfig?.run_timeout_ms !== undefined) limits.runTimeoutMs = limitsConfig.run_timeout_ms;
  if (limitsConfig?.guardrail_timeout_ms !== undefined) limits.guardrailTimeoutMs = limitsConfig.guardrail_timeout_ms;
  if (limitsConfig?.approval_timeout_ms !== undefined) limits.approvalTimeoutMs = limitsConfig.approval_timeout_ms;

  return {
    limits,
    get(id, version) {
      const versions = byId.get(id);
      if (!versions || versions.length === 0) return undefined;
      if (version === undefined) return versions[versions.length - 1];
      return versions.find((a) => a.manifest.version === version);
    },
    list() {
      return [...byId.keys()].sort().flatMap((id) => byId.get(id) ?? []);
    },
  };
}
