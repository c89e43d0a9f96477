import { describe, expect, it } from 'vitest';
import { AgentManifestSchema, parseAgentManifest, parseSkillManifest, unwrapManifest, ManifestValidationError } from '../src/index.js';
import { aliasBomb, lineOf, problemsOf, readExample, replaceOnce, VALID_AGENT } from './fixtures.js';

const file = 'agent.yml';
const parse = (source: string) => parseAgentManifest(source, { file });

describe('parseAgentManifest: valid input', () => {
  it('loads a valid manifest into typed data', () => {
    const result = parse(VALID_AGENT);
    expect(result.ok).toBe(true);
    const manifest = unwrapManifest(result);
    expect(manifest.id).toBe('io.baton.tests.triage');
    expect(manifest.tools[0]!.function.parameters.required).toEqual(['case_id']);
    expect(AgentManifestSchema.parse(manifest)).toEqual(manifest);
  });

  it('loads both examples', () => {
    for (const example of ['examples/agents/triage.agent.yml', 'examples/agents/refunds.agent.yml']) {
      const result = parseAgentManifest(readExample(example), { file: example });
      expect(result.problems).toEqual([]);
      expect(result.ok).toBe(true);
    }
  });

  it('accepts pre-release versions and a leading BOM', () => {
    const source = '\uFEFF' + replaceOnce(VALID_AGENT, 'version: 1.2.3', 'version: 1.2.3-beta.1+build.7');
    expect(parse(source).ok).toBe(true);
  });
});

describe('parseAgentManifest: every problem, located', () => {
  it('refuses an unknown key at its line and column', () => {
    const source = replaceOnce(VALID_AGENT, 'name: Triage\n', 'name: Triage\ncolour: blue\n');
    const [problem, ...rest] = problemsOf(parse(source));
    expect(rest).toEqual([]);
    expect(problem).toEqual({ file, line: lineOf(source, 'colour'), col: 1, pointer: '/colour', message: "colour: unknown key 'colour'" });
  });

  it('refuses an unknown key inside a tool function', () => {
    const source = replaceOnce(
      VALID_AGENT,
      '      description: Loads a support case.\n',
      '      description: Loads a support case.\n      strict: true\n',
    );
    const problems = problemsOf(parse(source));
    expect(problems.map((p) => [p.line, p.col, p.message])).toEqual([
      [lineOf(source, 'strict'), 7, "tools[0].function.strict: unknown key 'strict'"],
    ]);
  });

  it('refuses duplicate keys', () => {
    const source = replaceOnce(VALID_AGENT, 'name: Triage\n', 'name: Triage\nname: Other\n');
    const problems = problemsOf(parse(source));
    expect(problems).toContainEqual(
      expect.objectContaining({ line: lineOf(source, 'name: Other'), col: 1, message: "duplicate key 'name'" }),
    );
  });

  it('names the offending character of a bad tool name', () => {
    const source = replaceOnce(VALID_AGENT, 'name: get_case', 'name: get:case');
    const [problem] = problemsOf(parse(source));
    expect(problem!.line).toBe(lineOf(source, 'get:case'));
    expect(problem!.pointer).toBe('/tools/0/function/name');
    expect(problem!.message).toContain("':' at position 4");
  });

  it('names a non-ASCII character by code point', () => {
    const source = replaceOnce(VALID_AGENT, 'name: get_case', 'name: get_cäse');
    expect(problemsOf(parse(source))[0]!.message).toContain('U+00E4 at position 6');
  });

  it('says when a tool name is too long', () => {
    const source = replaceOnce(VALID_AGENT, 'name: get_case', `name: ${'a'.repeat(65)}`);
    expect(problemsOf(parse(source))[0]!.message).toContain('65 characters long; the limit is 64');
  });

  it.each(['system__handoff', 'delegate_task', 'yield_control'])('refuses the reserved name %s', (name) => {
    const source = replaceOnce(VALID_AGENT, 'name: get_case', `name: ${name}`);
    const problems = problemsOf(parse(source));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toBe(`tools[0].function.name: '${name}' is reserved for the runner; user tools may not use it`);
  });

  it('refuses the protocol name system::handoff, naming the colon', () => {
    const source = replaceOnce(VALID_AGENT, 'name: get_case', "name: 'system::handoff'");
    const messages = problemsOf(parse(source)).map((p) => p.message);
    expect(messages.some((m) => m.includes("':' at position 7"))).toBe(true);
    expect(messages.some((m) => m.includes('reserved for the runner'))).toBe(true);
  });

  it('refuses duplicate tool names', () => {
    const tool = VALID_AGENT.slice(VALID_AGENT.indexOf('  - type: function'));
    const source = VALID_AGENT + tool;
    const problems = problemsOf(parse(source));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toBe("tools[1].function.name: duplicate tool name 'get_case' (also tools[0])");
    expect(problems[0]!.line).toBe(source.split('\n').lastIndexOf('      name: get_case') + 1);
  });

  it('refuses a required entry that is not a declared property', () => {
    const source = replaceOnce(VALID_AGENT, 'required: [case_id]', 'required: [case_id, tenant]');
    const [problem, ...rest] = problemsOf(parse(source));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      line: lineOf(source, 'required: [case_id, tenant]'),
      col: 29,
      pointer: '/tools/0/function/parameters/required/1',
      message: "tools[0].function.parameters.required[1]: 'tenant' is required but not declared in properties",
    });
  });

  it('refuses parameters that do not compile as a JSON Schema', () => {
    const source = replaceOnce(VALID_AGENT, '            type: string\n', '            type: strin\n');
    const problems = problemsOf(parse(source));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.pointer).toBe('/tools/0/function/parameters');
    expect(problems[0]!.message).toMatch(/^tools\[0\]\.function\.parameters: is not a valid JSON Schema: /);
  });

  it('refuses unknown JSON Schema keywords in parameters (Ajv strict mode)', () => {
    const source = replaceOnce(VALID_AGENT, '            type: string\n', '            type: string\n            requird: true\n');
    expect(problemsOf(parse(source))[0]!.message).toContain('unknown keyword: "requird"');
  });

  it.each([
    ['Io.Baton.Triage', 'lower-case reverse-DNS'],
    ['triage', 'at least two labels'],
    ['io..baton', 'reverse-DNS'],
  ])('refuses the id %s', (id, expected) => {
    const source = replaceOnce(VALID_AGENT, 'id: io.baton.tests.triage', `id: ${id}`);
    const [problem] = problemsOf(parse(source));
    expect(problem).toMatchObject({ line: 2, col: 5, pointer: '/id' });
    expect(problem!.message).toContain(expected);
  });

  it.each(['1.2', '01.2.3', 'v1.2.3', '1.2.3.4'])('refuses the version %s', (version) => {
    const source = replaceOnce(VALID_AGENT, 'version: 1.2.3', `version: "${version}"`);
    const [problem] = problemsOf(parse(source));
    expect(problem).toMatchObject({ line: 3, pointer: '/version' });
    expect(problem!.message).toContain('full semantic version');
  });

  it('explains a version YAML read as a number', () => {
    const source = replaceOnce(VALID_AGENT, 'version: 1.2.3', 'version: 1.2');
    expect(problemsOf(parse(source))[0]!.message).toBe(
      'version: expected a string, found number 1.2 (quote the value to make it a string)',
    );
  });

  it.each(['schema_version', 'id', 'version', 'name', 'instructions', 'model', 'tools'])('requires the top-level property %s', (key) => {
    const lines = VALID_AGENT.split('\n');
    const start = lines.findIndex((l) => l.startsWith(`${key}:`));
    let end = start + 1;
    while (end < lines.length && /^\s/.test(lines[end]!)) end++;
    const source = [...lines.slice(0, start), ...lines.slice(end)].join('\n');
    const problems = problemsOf(parse(source));
    expect(problems.map((p) => p.message)).toContain(`document: missing required property '${key}'`);
  });

  it('requires parameters.required', () => {
    const source = replaceOnce(VALID_AGENT, '        required: [case_id]\n', '');
    const [problem, ...rest] = problemsOf(parse(source));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      line: lineOf(source, 'parameters:') + 1,
      pointer: '/tools/0/function/parameters',
      message: "tools[0].function.parameters: missing required property 'required'",
    });
  });

  it('requires model.provider to be openai', () => {
    const source = replaceOnce(VALID_AGENT, 'provider: openai', 'provider: anthropic');
    expect(problemsOf(parse(source))[0]!.message).toBe('model.provider: must be "openai", found "anthropic"');
  });

  it('requires schema_version "1.0"', () => {
    const source = replaceOnce(VALID_AGENT, 'schema_version: "1.0"', 'schema_version: "2.0"');
    expect(problemsOf(parse(source))[0]).toMatchObject({ line: 1, col: 17, message: 'schema_version: must be "1.0", found "2.0"' });
  });

  it('reports every problem at once, in source order', () => {
    let source = replaceOnce(VALID_AGENT, 'id: io.baton.tests.triage', 'id: Bad');
    source = replaceOnce(source, 'version: 1.2.3', 'version: "x"');
    source = replaceOnce(source, 'name: get_case', 'name: get case');
    source = replaceOnce(source, 'required: [case_id]', 'required: [nope]');
    source = replaceOnce(source, 'name: Triage\n', 'name: Triage\nextra: 1\n');
    const problems = problemsOf(parse(source));
    expect(problems.map((p) => p.pointer)).toEqual([
      '/id',
      '/version',
      '/extra',
      '/tools/0/function/name',
      '/tools/0/function/parameters/required/0',
    ]);
    const lines = problems.map((p) => p.line);
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
  });

  it('refuses an empty file and a comment-only file', () => {
    expect(problemsOf(parse(''))[0]).toMatchObject({ line: 1, col: 1, message: 'file is empty: expected a YAML mapping' });
    expect(problemsOf(parse('# nothing here\n\n'))[0]!.message).toBe('file is empty: expected a YAML mapping');
  });

  it('refuses a document that is not a mapping', () => {
    expect(problemsOf(parse('- a\n- b\n'))[0]!.message).toBe('document: expected a mapping, found a list');
  });

  it('reports a YAML syntax error with its position', () => {
    const source = replaceOnce(VALID_AGENT, 'required: [case_id]', 'required: [case_id');
    const [problem] = problemsOf(parse(source));
    expect(problem!.message).toMatch(/^YAML syntax error: /);
    expect(problem!.line).toBeGreaterThanOrEqual(lineOf(source, 'required: [case_id'));
  });

  it('refuses an alias bomb', () => {
    const problems = problemsOf(parse(aliasBomb()));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain('alias');
  });

  it('refuses more than one YAML document', () => {
    expect(problemsOf(parse(`${VALID_AGENT}---\n${VALID_AGENT}`))[0]!.message).toMatch(/YAML syntax error: .*multiple documents/);
  });

  it('refuses a source over the size limit without parsing it', () => {
    const source = `${VALID_AGENT}# ${'x'.repeat(2000)}\n`;
    expect(problemsOf(parseAgentManifest(source, { file, maxBytes: 1000 }))[0]!.message).toBe(
      'file is larger than the 1000-byte limit for a manifest',
    );
    expect(problemsOf(parse(`a: "${'x'.repeat(1024 * 1024)}"`))[0]!.message).toContain('1048576-byte limit');
  });

  it('refuses deeply nested input without overflowing the stack or memory', () => {
    // 300 000 flow levels fit in 600 KB; handed to the YAML parser they exhaust the heap.
    const flow = `${'['.repeat(300_000)}${']'.repeat(300_000)}`;
    expect(problemsOf(parse(`a: 1\nx: ${flow}\n`))).toEqual([
      { file, line: 2, col: 260, pointer: '', message: 'nesting is deeper than 100 levels' },
    ]);
    expect(problemsOf(parseSkillManifest(`{"x": ${flow}}`, { file }))[0]!.message).toBe('nesting is deeper than 100 levels');
    let block = '';
    for (let depth = 0; block.length < 900_000; depth++) block += `${' '.repeat(depth)}k:\n`;
    expect(problemsOf(parse(block)).map((p) => p.message)).toEqual(['nesting is deeper than 100 levels']);
    const moderate = `x: ${'['.repeat(150)}${']'.repeat(150)}\n`;
    expect(problemsOf(parse(moderate)).map((p) => p.message)).toEqual(['nesting is deeper than 100 levels']);
  });

  it('refuses more than 128 tools', () => {
    const tools = Array.from(
      { length: 129 },
      (_, i) => `  - {type: function, function: {name: t${i}, description: d, parameters: {type: object, properties: {}, required: []}}}`,
    );
    const source = `${VALID_AGENT.slice(0, VALID_AGENT.indexOf('tools:'))}tools:\n${tools.join('\n')}\n`;
    expect(problemsOf(parse(source)).map((p) => p.message)).toEqual([
      "tools: at most 128 tools are allowed (the OpenAI API's limit); found 129",
    ]);
  });

  it('refuses an oversized parameters schema without compiling it', () => {
    const properties = Array.from({ length: 800 }, (_, i) => `          p${i}: {type: string}`).join('\n');
    const source = replaceOnce(VALID_AGENT, '          case_id:\n            type: string\n', `${properties}\n`);
    const messages = problemsOf(parse(source)).map((p) => p.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^tools\[0\]\.function\.parameters: schema is \d+ characters as JSON; the limit is 16384$/);
    expect(messages[1]).toContain("'case_id' is required but not declared");
  });

  it('reports at most 100 problems per file, then says how many more', () => {
    const extra = Array.from({ length: 150 }, (_, i) => `extra_${i}: 1`).join('\n');
    const problems = problemsOf(parse(`${VALID_AGENT}${extra}\n`));
    expect(problems).toHaveLength(101);
    expect(problems[100]!.message).toBe('… and 50 more problems not shown');
    expect(problems[0]!.message).toBe("extra_0: unknown key 'extra_0'");
  });

  it('finds a duplicate among many keys', () => {
    const properties = Array.from({ length: 3000 }, (_, i) => `          p${i}: {}`).join('\n');
    const source = replaceOnce(
      VALID_AGENT,
      '          case_id:\n            type: string\n',
      `${properties}\n          p7: {}\n          case_id: {}\n`,
    );
    const problems = problemsOf(parse(source));
    expect(problems.filter((p) => p.message.startsWith('duplicate'))).toEqual([
      { file, line: lineOf(source, 'case_id: {}') - 1, col: 11, pointer: '', message: "duplicate key 'p7'" },
    ]);
  });

  it('locates problems in a file with CRLF line endings', () => {
    const source = replaceOnce(VALID_AGENT, 'name: get_case', 'name: get case').replaceAll('\n', '\r\n');
    expect(problemsOf(parse(source))[0]).toMatchObject({ line: 13, col: 13, pointer: '/tools/0/function/name' });
    expect(parse(VALID_AGENT.replaceAll('\n', '\r\n')).ok).toBe(true);
  });

  it('refuses YAML tags it does not know', () => {
    const source = replaceOnce(VALID_AGENT, 'name: Triage', 'name: !!js/function Triage');
    expect(problemsOf(parse(source))[0]!.message).toContain('Unresolved tag');
  });

  it('unwrapManifest throws ManifestValidationError with every problem', () => {
    const result = parse(replaceOnce(VALID_AGENT, 'name: Triage\n', 'name: Triage\na: 1\nb: 2\n'));
    let caught: unknown;
    try {
      unwrapManifest(result);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ManifestValidationError);
    const error = caught as ManifestValidationError;
    expect(error.code).toBe('MANIFEST_INVALID');
    expect(error.problems).toHaveLength(2);
    expect(error.message).toBe("agent.yml:5:1: a: unknown key 'a' (and 1 more problem)");
  });
});
