// bench/validate: how long validating one agent.yml takes, and how long the CLI takes to start,
// each next to a baseline measured in the same process (JSON.parse of the same data; bare node).
// Targets (issue #2): a manifest under 1 ms, CLI start-up under 300 ms.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measure, measureSpawn, printTable, REPO_ROOT, round, writeResult } from '../lib.mjs';

export default async function run() {
  const manifest = await import(pathToFileURL(join(REPO_ROOT, 'packages/manifest/dist/index.js')).href);
  const { parse: parseYaml } = await import('yaml');
  const file = join(REPO_ROOT, 'examples/agents/triage.agent.yml');
  const text = await readFile(file, 'utf8');
  const asJson = JSON.stringify(parseYaml(text));
  if (!manifest.parseAgentManifest(text, { file }).ok) throw new Error(`${file} does not validate`);

  const iterations = 500;
  // Repeat: the same file again (tool parameter schemas already compiled once).
  const repeat = await measure(() => manifest.parseAgentManifest(text, { file }), { warmup: 50, iterations });
  // First sight: every iteration has different parameter schemas, so Ajv compiles them.
  const first = await measure(
    (i) =>
      manifest.parseAgentManifest(
        text.replaceAll('The subject line.', `The subject line ${i}.`).replaceAll("e.g. 'CASE-1001'", `e.g. 'CASE-${i}'`),
        { file },
      ),
    {
      warmup: 20,
      iterations: 200,
    },
  );
  const jsonParse = await measure(() => JSON.parse(asJson), { warmup: 200, iterations: 2000 });
  const yamlOnly = await measure(() => parseYaml(text), { warmup: 50, iterations });

  const cli = join(REPO_ROOT, 'packages/cli/dist/bin.js');
  const startup = await measureSpawn(process.execPath, [cli, '--version']);
  const validateOne = await measureSpawn(process.execPath, [cli, 'validate', file]);
  const bareNode = await measureSpawn(process.execPath, ['-e', '0']);

  const us = (ms) => ms * 1000;
  const rows = [
    {
      metric: 'validate triage.agent.yml, repeat (µs)',
      median: us(repeat.median),
      p99: us(repeat.p99),
      baseline: us(jsonParse.median),
      ratio: repeat.median / jsonParse.median,
      target: '< 1000',
      met: us(repeat.median) < 1000 ? 'yes' : 'no',
    },
    {
      metric: 'validate triage.agent.yml, first sight (µs)',
      median: us(first.median),
      p99: us(first.p99),
      baseline: us(jsonParse.median),
      ratio: first.median / jsonParse.median,
      target: '< 1000',
      met: us(first.median) < 1000 ? 'yes' : 'no',
    },
    {
      metric: 'yaml parse only (µs)',
      median: us(yamlOnly.median),
      p99: us(yamlOnly.p99),
      baseline: us(jsonParse.median),
      ratio: yamlOnly.median / jsonParse.median,
      target: '',
      met: '',
    },
    {
      metric: 'baton --version start-up (ms)',
      median: startup.median,
      p99: startup.p99,
      baseline: bareNode.median,
      ratio: startup.median / bareNode.median,
      target: '< 300',
      met: startup.median < 300 ? 'yes' : 'no',
    },
    {
      metric: 'baton validate triage.agent.yml (ms)',
      median: validateOne.median,
      p99: validateOne.p99,
      baseline: bareNode.median,
      ratio: validateOne.median / bareNode.median,
      target: '',
      met: '',
    },
  ];
  printTable(rows, { title: 'validation speed (baseline: JSON.parse of the same data / bare `node -e 0`)' });
  const path = await writeResult('validate', {
    unit: { manifest: 'microseconds', cli: 'milliseconds' },
    manifest_repeat_us: mapValues(repeat, us),
    manifest_first_sight_us: mapValues(first, us),
    yaml_parse_only_us: mapValues(yamlOnly, us),
    json_parse_baseline_us: mapValues(jsonParse, us),
    cli_version_startup_ms: mapValues(startup, (v) => v),
    cli_validate_one_file_ms: mapValues(validateOne, (v) => v),
    bare_node_startup_ms: mapValues(bareNode, (v) => v),
    ratios: {
      manifest_repeat_vs_json_parse: round(repeat.median / jsonParse.median),
      manifest_first_sight_vs_json_parse: round(first.median / jsonParse.median),
      cli_startup_vs_bare_node: round(startup.median / bareNode.median),
    },
    targets: { manifest_us: 1000, cli_startup_ms: 300 },
  });
  process.stdout.write(`wrote ${path}\n`);
}

function mapValues(stats, convert) {
  return Object.fromEntries(Object.entries(stats).map(([k, v]) => [k, k === 'n' ? v : round(convert(v))]));
}
