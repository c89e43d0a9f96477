#!/usr/bin/env node
// Adds sources to the injection training corpus without rebuilding it (build-corpus.mjs samples
// npm packages that change under other work; its rows stay as built). Writes
// $BATON_CORPUS_DIR/injection-extra.jsonl; train-injection.mjs and bench/guardrail-eval read it
// next to injection-train.jsonl. Data is never committed; NOTICE.md names the sources.
//
// Sources:
// - deepset/prompt-injections (Apache-2.0; English and German injections and benign requests), read
//   from the parquet copy in sinanw/llm-security-prompt-injection (MIT) at a pinned commit. Needs
//   the `hyparquet` npm package: set BATON_HYPARQUET to a directory where it is installed
//   (`npm install --prefix /tmp/pq hyparquet@1.33.0`); it is not a dependency of the package.
//   Rows that also occur in the corpus (either label) are left out, and so are deepset's
//   "I want you to act as ..." rows labelled as injections (they are awesome-chatgpt-prompts
//   role-play templates, benign in this corpus).
// - The deepset injections planted in benign tool outputs of the corpus (e-mails, docs, web pages,
//   tool JSON), with the planted span, as indirect attacks.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPUS_DIR, gitDir, hasRepo } from './sources.mjs';
import { pick, rng } from './own-texts.mjs';

export const EXTRA_REPOS = {
  'sinanw/llm-security-prompt-injection': 'c8af0b015a9a4f3380f9e20214828c2dbeadc72c',
};
const DEEPSET_FILES = ['data/raw/train-00000-of-00001-9564e8b05b4757ab.parquet', 'data/raw/test-00000-of-00001-701d16158af87368.parquet'];

const r = rng(20261201);
const norm = (t) => t.toLowerCase().replace(/\s+/g, ' ').trim();
const corpus = readFileSync(join(CORPUS_DIR, 'injection-train.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const seen = new Set(corpus.map((x) => norm(x.text)));
const rows = [];
function add(row) {
  const key = norm(row.text);
  if (row.text.length < 2 || seen.has(key)) return;
  seen.add(key);
  rows.push({ id: `x${rows.length}`, ...row });
}

async function readParquet(repo, path) {
  const dir = process.env.BATON_HYPARQUET;
  if (!dir)
    throw new Error(
      'build-extra: set BATON_HYPARQUET to a directory with hyparquet installed (npm install --prefix <dir> hyparquet@1.33.0)',
    );
  const require = createRequire(join(dir, 'package.json'));
  const { parquetReadObjects } = await import(pathToFileURL(require.resolve('hyparquet')).href);
  const buf = execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${EXTRA_REPOS[repo]}:${path}`], { maxBuffer: 1 << 26 });
  return parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) });
}

const repo = 'sinanw/llm-security-prompt-injection';
const attacks = [];
if (hasRepo(repo)) {
  for (const path of DEEPSET_FILES) {
    for (const x of await readParquet(repo, path)) {
      const text = String(x.text ?? '').trim();
      const label = Number(x.label) === 1 ? 1 : 0;
      if (label === 1 && /^i want you to act as/i.test(text)) continue;
      const row = {
        text,
        label,
        family: label ? 'override' : 'user_request',
        kind: 'direct',
        action: 'AGENT_INPUT',
        source: 'deepset',
        origin: `deepset/prompt-injections via ${repo}:${path}`,
      };
      add(row);
      if (label === 1 && text.length < 600) attacks.push(row);
    }
  }
} else console.warn(`build-extra: snapshot of ${repo} missing; deepset skipped`);

// Indirect: deepset injections planted in benign tool outputs of the corpus.
const carriers = corpus.filter(
  (x) =>
    x.label === 0 &&
    x.action === 'TOOL_OUTPUT' &&
    ['email', 'docs', 'web_page', 'tool_json', 'code_review'].includes(x.family) &&
    x.text.length < 3000,
);
for (let k = 0; k < 600 && attacks.length > 0; k++) {
  const a = pick(r, attacks);
  const c = pick(r, carriers);
  const lines = c.text.split('\n');
  const at = Math.floor(r() * (lines.length + 1));
  const attack = r() < 0.3 ? `[${pick(r, ['NOTE', 'IMPORTANT', 'Assistant', 'SYSTEM'])}] ${a.text}` : a.text;
  const before = lines.slice(0, at).join('\n');
  const text = `${before}${at > 0 ? '\n' : ''}${attack}\n${lines.slice(at).join('\n')}`.trim();
  const start = text.indexOf(attack);
  add({
    text,
    label: 1,
    family: 'indirect',
    kind: 'indirect',
    action: 'TOOL_OUTPUT',
    source: 'deepset-planted',
    origin: `${a.origin} planted in ${c.family}`,
    span: start >= 0 ? { start, end: start + attack.length } : undefined,
  });
}

writeFileSync(join(CORPUS_DIR, 'injection-extra.jsonl'), rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
const tally = {};
for (const x of rows) tally[`${x.label} ${x.family} ${x.source}`] = (tally[`${x.label} ${x.family} ${x.source}`] ?? 0) + 1;
console.log(JSON.stringify(tally, null, 1));
console.log(`build-extra: ${rows.length} rows -> ${join(CORPUS_DIR, 'injection-extra.jsonl')} (commits ${JSON.stringify(EXTRA_REPOS)})`);
