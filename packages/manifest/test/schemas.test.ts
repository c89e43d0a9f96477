import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generateJsonSchemas } from '../src/index.js';
import { readExample, VALID_SKILL } from './fixtures.js';

const schemasDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
const generated = generateJsonSchemas();

function ajv(): Ajv2020 {
  const instance = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(instance);
  return instance;
}

describe('generated JSON Schemas', () => {
  it('are committed and up to date (run `npm run schemas -w @baton/manifest` to refresh)', () => {
    const onDisk = readdirSync(schemasDir)
      .filter((f) => f.endsWith('.schema.json'))
      .sort();
    expect(onDisk).toEqual(Object.keys(generated).sort());
    for (const [name, schema] of Object.entries(generated)) {
      expect(readFileSync(join(schemasDir, name), 'utf8'), `${name} is stale`).toBe(`${JSON.stringify(schema, null, 2)}\n`);
    }
  });

  it('compile with Ajv 2020 in strict mode', () => {
    const instance = ajv();
    for (const [name, schema] of Object.entries(generated)) {
      expect(schema.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => instance.compile(schema), name).not.toThrow();
    }
  });

  it('accept the examples and refuse what zod refuses', () => {
    const instance = ajv();
    const agent = instance.compile(generated['agent.schema.json']!);
    for (const example of ['examples/agents/triage.agent.yml', 'examples/agents/refunds.agent.yml']) {
      expect(agent(parseYaml(readExample(example))), example).toBe(true);
    }
    const triage = parseYaml(readExample('examples/agents/triage.agent.yml')) as {
      tools: Array<{ function: { name: string } }>;
      extra?: number;
    };
    triage.tools[0]!.function.name = 'delegate_task';
    expect(agent(triage)).toBe(false);
    const skill = instance.compile(generated['skill-manifest.schema.json']!);
    expect(skill(JSON.parse(VALID_SKILL))).toBe(true);
    expect(skill({ ...JSON.parse(VALID_SKILL), capabilities: ['teleport'] })).toBe(false);
  });

  it('cover every contract', () => {
    expect(Object.keys(generated).sort()).toEqual(
      [
        'agent-process-input.schema.json',
        'agent-process-output.schema.json',
        'agent.schema.json',
        'delegate-task-args.schema.json',
        'guardrail-request.schema.json',
        'guardrail-response.schema.json',
        'handoff-packet.schema.json',
        'response-package.schema.json',
        'skill-manifest.schema.json',
        'skill-package.schema.json',
      ].sort(),
    );
  });
});
