import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findCaseCanaries, readCaseCanaries } from '../src/index.js';

const EXAMPLE_CASES = fileURLToPath(new URL('../../../examples/data/cases.json', import.meta.url));

describe('case canaries', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('finds every marker of the example cases once', async () => {
    const found = await readCaseCanaries(EXAMPLE_CASES);
    expect(found).toEqual(expect.arrayContaining(['CANARY-NOTES-7f3a', 'CANARY-MSG-1c5d']));
    expect(new Set(found).size).toBe(found.length);
    expect(findCaseCanaries('no markers; canary-notes-7f3a is lower case')).toEqual([]);
  });

  it('adds an explicit canaries list and refuses a malformed one or an unreadable file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-canaries-'));
    const ok = join(dir, 'ok.json');
    await writeFile(ok, JSON.stringify({ cases: [{ notes: 'x CANARY-A-01' }], canaries: ['secret-marker-1', 'CANARY-A-01'] }));
    expect(await readCaseCanaries(ok)).toEqual(['CANARY-A-01', 'secret-marker-1']);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ cases: [], canaries: ['short'] }));
    await expect(readCaseCanaries(bad)).rejects.toMatchObject({
      code: 'CASE_DATA_UNAVAILABLE',
      message: expect.stringMatching(/"canaries" must be an array of strings of 8 or more/),
    });
    await expect(readCaseCanaries(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'CASE_DATA_UNAVAILABLE' });
  });
});
