// The runner service's README error table and the code agree both ways (issue 14: a code the
// README did not list, `bad_request`, went out).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const read = (rel: string) => readFileSync(new URL(rel, import.meta.url), 'utf8');

/** `status code` pairs the service can answer, read from its source. */
function pairsInSource(): Set<string> {
  const pairs = new Set<string>();
  const server = read('../../src/http/server.ts');
  const caller = read('../../src/http/caller.ts');
  for (const m of server.matchAll(/fail\(\s*reply,\s*(\d{3}),\s*'([A-Za-z_]+)'/g)) pairs.add(`${m[1]} ${m[2]}`);
  for (const m of server.matchAll(/\[\s*(\d{3}),\s*'[^']*',\s*errorBody\(\s*'([a-z_]+)'/g)) pairs.add(`${m[1]} ${m[2]}`);
  for (const m of server.matchAll(/if \(([^)]*code === [^;{]*?)\)\s*return (\d{3});/g)) {
    for (const c of m[1]!.matchAll(/code === '([A-Z_]+)'/g)) pairs.add(`${m[2]} ${c[1]}`);
  }
  for (const m of caller.matchAll(/status:\s*(\d{3}),\s*code:\s*'([a-z_]+)'/g)) pairs.add(`${m[1]} ${m[2]}`);
  // The approvals route (http/approvals.ts): its own answers and the status of each approval code.
  const approvals = read('../../src/http/approvals.ts');
  for (const m of approvals.matchAll(/fail\(\s*reply,\s*(\d{3}),\s*'([A-Za-z_]+)'/g)) pairs.add(`${m[1]} ${m[2]}`);
  for (const m of approvals.matchAll(/((?:\s*case '[A-Z_]+':)+)\s*return (\d{3});/g)) {
    for (const c of m[1]!.matchAll(/case '([A-Z_]+)'/g)) pairs.add(`${m[2]} ${c[1]}`);
  }
  // A thread error with a thread_id is answered as thread_not_found (the fixed no-oracle body).
  pairs.delete('404 STORE_THREAD_NOT_FOUND');
  return pairs;
}

function pairsInReadme(): Set<string> {
  const readme = read('../../README.md');
  const table = readme.slice(readme.indexOf('### HTTP errors'), readme.indexOf('test/http/error-codes.test.ts'));
  const pairs = new Set<string>();
  for (const line of table.split('\n')) {
    const m = /^\| (\d{3}) \| ([^|]+) \|/.exec(line);
    if (!m) continue;
    for (const c of m[2]!.matchAll(/`([A-Za-z_]+)`/g)) pairs.add(`${m[1]} ${c[1]}`);
  }
  return pairs;
}

it('lists every status and code the service answers, and no other', () => {
  const source = pairsInSource();
  const readme = pairsInReadme();
  expect(source.size).toBeGreaterThan(15);
  expect(
    [...source].filter((p) => !readme.has(p)),
    'in the code, missing from the README',
  ).toEqual([]);
  expect(
    [...readme].filter((p) => !source.has(p)),
    'in the README, not in the code',
  ).toEqual([]);
});
