import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCriteria, VagueCriteriaError, verifyCriteria } from '../src/index.js';
import { tempDir } from './helpers/tmp.js';

describe('parseCriteria', () => {
  it('parses the string forms of the seed', () => {
    expect(parseCriteria(['Word count > 500'])).toEqual([{ type: 'word_count', min: 501 }]);
    expect(parseCriteria(['at most 20 words', 'Length <= 100'])).toEqual([
      { type: 'word_count', max: 20 },
      { type: 'length', max: 100 },
    ]);
    expect(parseCriteria(['Output has field price'])).toEqual([{ type: 'json_schema', schema: { type: 'object', required: ['price'] } }]);
    expect(parseCriteria(['matches /^ok/i'])).toEqual([{ type: 'regex', pattern: '^ok', flags: 'i' }]);
    expect(parseCriteria(['Tests pass'], { testCommand: ['npm', 'test'] })).toEqual([
      { type: 'command', command: ['npm', 'test'], timeout_ms: 60000 },
    ]);
    expect(parseCriteria(['JSON is schema-valid'], { outputSchema: { type: 'object' } })).toEqual([
      { type: 'json_schema', schema: { type: 'object' } },
    ]);
  });

  it('refuses vague criteria, naming the criterion', () => {
    for (const vague of ['Do a good job', 'Specify currency', 'make it nice']) {
      const err = (() => {
        try {
          parseCriteria(['Word count > 5', vague]);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(VagueCriteriaError);
      expect((err as VagueCriteriaError).message).toContain(JSON.stringify(vague));
      expect((err as VagueCriteriaError).code).toBe('VAGUE_CRITERIA');
    }
  });

  it('refuses forms that need configuration that is missing, and malformed objects', () => {
    expect(() => parseCriteria(['Tests pass'])).toThrow(/no test command is configured/);
    expect(() => parseCriteria(['JSON is schema-valid'])).toThrow(/no JSON Schema is configured/);
    expect(() => parseCriteria([{ type: 'regex', pattern: '(' }])).toThrow(/invalid regular expression/);
    expect(() => parseCriteria([{ type: 'word_count' }])).toThrow(/min or max/);
    expect(() => parseCriteria([{ type: 'command', command: [] }])).toThrow(VagueCriteriaError);
    expect(() => parseCriteria([42])).toThrow(VagueCriteriaError);
  });
});

describe('verifyCriteria', () => {
  it('checks JSON Schema over output_payload with Ajv 2020', async () => {
    const ws = await tempDir();
    const criteria = parseCriteria([
      {
        type: 'json_schema',
        schema: {
          type: 'object',
          required: ['price', 'currency'],
          properties: { price: { type: 'number' }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
        },
      },
    ]);
    expect((await verifyCriteria(criteria, { output: { price: 175.22, currency: 'USD' }, workspace: ws })).ok).toBe(true);
    const bad = await verifyCriteria(criteria, { output: { price: '175' }, workspace: ws });
    expect(bad.ok).toBe(false);
    expect(bad.results[0]!.message).toMatch(/currency|price/);
  });

  it('runs a command in the workspace: exit 0 passes, non-zero and timeouts fail', async () => {
    const ws = await tempDir();
    await writeFile(path.join(ws, 'marker.txt'), 'x');
    const pass = await verifyCriteria(
      parseCriteria([{ type: 'command', command: ['node', '-e', "process.exit(require('fs').existsSync('marker.txt') ? 0 : 3)"] }]),
      { output: {}, workspace: ws },
    );
    expect(pass.ok).toBe(true);
    const fail = await verifyCriteria(parseCriteria([{ type: 'command', command: ['node', '-e', 'process.exit(3)'] }]), {
      output: {},
      workspace: ws,
    });
    expect(fail.ok).toBe(false);
    expect(fail.results[0]!.message).toMatch(/exited with 3/);
    const slow = await verifyCriteria(
      parseCriteria([{ type: 'command', command: ['node', '-e', 'setTimeout(() => {}, 60000)'], timeout_ms: 300 }]),
      { output: {}, workspace: ws },
    );
    expect(slow.ok).toBe(false);
    expect(slow.results[0]!.message).toMatch(/did not finish within 300 ms/);
    const missing = await verifyCriteria(parseCriteria([{ type: 'command', command: ['definitely-not-a-command-baton'] }]), {
      output: {},
      workspace: ws,
    });
    expect(missing.results[0]!.message).toMatch(/could not start/);
  });

  it('checks regex, word counts, lengths and changed files', async () => {
    const ws = await tempDir();
    const output = { summary: 'one two three four', nested: { note: 'ok' } };
    const r = await verifyCriteria(
      parseCriteria([
        'Word count > 3',
        { type: 'length', max: 18, target: 'summary' },
        { type: 'regex', pattern: '^ok$', target: 'nested.note' },
      ]),
      { output, workspace: ws },
    );
    expect(r.results.map((x) => x.ok)).toEqual([true, true, true]);
    const r2 = await verifyCriteria(parseCriteria(['Word count > 10', { type: 'regex', pattern: 'x', target: 'absent' }]), {
      output,
      workspace: ws,
    });
    expect(r2.ok).toBe(false);
    expect(r2.results[0]!.message).toMatch(/has 5 words; needs >= 11/);
    expect(r2.results[1]!.message).toMatch(/no absent/);
    const files = parseCriteria([{ type: 'files_changed', paths: ['src/a.js'] }]);
    expect((await verifyCriteria(files, { output, workspace: ws, changedFiles: ['src/a.js'] })).ok).toBe(true);
    expect((await verifyCriteria(files, { output, workspace: ws, changedFiles: ['b.js'] })).ok).toBe(false);
    expect((await verifyCriteria(files, { output, workspace: ws })).ok).toBe(false);
  });
});
