import { describe, expect, it } from 'vitest';
import {
  ManifestUsageError,
  SKILL_CAPABILITIES,
  entryPointProblem,
  parseSkillManifest,
  skillIoSchemaToJsonSchema,
  compileJsonSchema,
} from '../src/index.js';
import { lineOf, problemsOf, replaceOnce, VALID_SKILL } from './fixtures.js';

const file = 'manifest.json';
const parse = (source: string) => parseSkillManifest(source, { file });

describe('parseSkillManifest', () => {
  it('loads the seed example', () => {
    const result = parse(VALID_SKILL);
    expect(result.problems).toEqual([]);
    expect(result.ok && result.value.capabilities).toEqual(['fs_read', 'ast_parsing', 'subprocess_exec']);
  });

  it('documents the capability vocabulary', () => {
    expect([...SKILL_CAPABILITIES].sort()).toEqual(
      ['ast_parsing', 'file_delete', 'financial_tx', 'fs_read', 'fs_write', 'network_outbound', 'subprocess_exec'].sort(),
    );
  });

  it.each(['skill_name', 'version', 'entry_point', 'input_schema', 'output_schema', 'capabilities'])('requires %s', (key) => {
    const data = JSON.parse(VALID_SKILL) as Record<string, unknown>;
    delete data[key];
    const problems = problemsOf(parse(JSON.stringify(data, null, 2)));
    expect(problems.map((p) => p.message)).toEqual([`document: missing required property '${key}'`]);
  });

  it('refuses an unknown capability and names the known ones', () => {
    const source = replaceOnce(VALID_SKILL, '"subprocess_exec"]', '"teleport"]');
    const [problem, ...rest] = problemsOf(parse(source));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ line: lineOf(source, 'teleport'), pointer: '/capabilities/2' });
    expect(problem!.message).toContain('unknown capability "teleport"; known: fs_read, fs_write');
  });

  it.each([
    ['../analyze.py', 'escapes'],
    ['tools/../../analyze.py', 'escapes'],
    ['/usr/bin/python3', 'absolute'],
    ['C:\\\\tools\\\\a.exe', 'absolute'],
    ['..\\\\evil.js', 'escapes'],
    ['.', 'must name a file'],
  ])('refuses the entry_point %s', (entry, expected) => {
    const source = replaceOnce(VALID_SKILL, '"analyze.py"', JSON.stringify(JSON.parse(`"${entry}"`)));
    const [problem, ...rest] = problemsOf(parse(source));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ line: 4, col: 18, pointer: '/entry_point' });
    expect(problem!.message).toContain(expected);
  });

  it('accepts an entry_point in a subdirectory', () => {
    expect(entryPointProblem('bin/run.mjs')).toBeUndefined();
    expect(entryPointProblem('./bin/../run.mjs')).toBeUndefined();
  });

  it('refuses unknown keys and duplicate keys', () => {
    const source = replaceOnce(VALID_SKILL, '"version": "1.2.0",', '"version": "1.2.0",\n  "author": "x",\n  "version": "1.2.1",');
    const messages = problemsOf(parse(source)).map((p) => `${p.line}:${p.message}`);
    expect(messages).toEqual([`4:author: unknown key 'author'`, `5:duplicate key 'version'`]);
  });

  it('refuses a bad shorthand type and a full schema that does not compile', () => {
    let source = replaceOnce(VALID_SKILL, '"strict_mode": "boolean"', '"strict_mode": "bool"');
    source = replaceOnce(
      source,
      '{ "vulnerabilities": "array", "sloc": "number" }',
      '{ "type": "object", "properties": { "sloc": { "type": "numbr" } } }',
    );
    const messages = problemsOf(parse(source)).map((p) => p.message);
    expect(messages[0]).toContain('input_schema.strict_mode: unknown type "bool"');
    expect(messages[1]).toMatch(/^output_schema: is not a valid JSON Schema/);
  });

  it('requires a full io schema to describe an object', () => {
    const source = replaceOnce(VALID_SKILL, '{ "vulnerabilities": "array", "sloc": "number" }', '{ "type": "array" }');
    expect(problemsOf(parse(source)).map((p) => p.message)).toEqual([
      'output_schema: a JSON Schema here must describe an object (type: "object")',
    ]);
  });

  it('reports JSON syntax errors with a position', () => {
    const source = replaceOnce(VALID_SKILL, '"version": "1.2.0",', '"version": "1.2.0",,');
    const [problem] = problemsOf(parse(source));
    expect(problem!.line).toBe(3);
    expect(problem!.message).toMatch(/^JSON syntax error: /);
  });

  it('refuses YAML that is not JSON, and an empty file', () => {
    expect(problemsOf(parse('skill_name: x\n'))[0]!.message).toMatch(/^JSON syntax error/);
    expect(problemsOf(parse('  \n'))[0]!.message).toBe('file is empty: expected a JSON object');
  });

  it('refuses bad semver and a bad skill_name', () => {
    let source = replaceOnce(VALID_SKILL, '"1.2.0"', '"1.2"');
    source = replaceOnce(source, '"SourceCodeAnalyzer"', '"Source Code"');
    expect(problemsOf(parse(source)).map((p) => p.pointer)).toEqual(['/skill_name', '/version']);
  });
});

describe('skillIoSchemaToJsonSchema', () => {
  it('turns shorthand into an object schema; ? marks optional fields', () => {
    const schema = skillIoSchemaToJsonSchema({ repo_path: 'string', strict_mode: 'boolean?' });
    expect(schema).toEqual({
      type: 'object',
      properties: { repo_path: { type: 'string' }, strict_mode: { type: 'boolean' } },
      required: ['repo_path'],
    });
    const check = compileJsonSchema(schema);
    expect(check({ repo_path: '/src' }).valid).toBe(true);
    expect(check({ strict_mode: true }).valid).toBe(false);
    expect(check({ repo_path: 1 }).errors[0]).toContain('/repo_path');
  });

  it('returns a full JSON Schema as a copy', () => {
    const full = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const out = skillIoSchemaToJsonSchema(full);
    expect(out).toEqual(full);
    expect(out).not.toBe(full);
  });

  it('throws ManifestUsageError for anything else', () => {
    expect(() => skillIoSchemaToJsonSchema('string')).toThrow(ManifestUsageError);
    expect(() => skillIoSchemaToJsonSchema({ a: 'text' })).toThrow(/field 'a': unknown type "text"/);
  });
});
