// Builds a secrets DEVELOPMENT set (recall only; rules may be tuned on it, so its numbers are not
// results) into $BATON_TUNING_DIR/secrets-trufflehog.jsonl from a local trufflehog checkout
// (AGPL-3.0; read in place as data, nothing copied into the repository; commit in NOTICE.md):
// the literal `input` of each `*_test.go` pattern case under pkg/detectors whose `want` lists a
// secret (label 1), and of each case named "invalid …" whose `want` is empty (label 0: a token of
// the wrong shape). Other empty-`want` cases are not used: many are real credentials that
// trufflehog's detector skips for want of a nearby keyword, so they are not look-alikes.
//
//   BATON_TRUFFLEHOG_GIT=/work/.mirror/trufflesecurity+trufflehog/repo node bench/guardrail-eval/build-dev-trufflehog.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const gitDir = process.env.BATON_TRUFFLEHOG_GIT ?? '/work/.mirror/trufflesecurity+trufflehog/repo';
const out = process.env.BATON_TUNING_DIR ?? '/work/tuning';
const git = (...a) => execFileSync('git', ['--git-dir', gitDir, ...a], { encoding: 'utf8', maxBuffer: 256 << 20 });
const commit = git('rev-parse', 'HEAD').trim();
const files = git('ls-tree', '-r', '--name-only', 'HEAD', '--', 'pkg/detectors')
  .split('\n')
  .filter((f) => f.endsWith('_test.go') && !f.endsWith('_integration_test.go'));

// `input: <literal>,` then, before the next `input:`, `want: []string{…non-empty…}`.
const CASE = /\bname:\s*"([^"\n]*)"[^]*?\binput:\s*(`[^`]*`|"(?:[^"\\\n]|\\.)*")\s*,([^]*?)(?=\binput:|$)/g;
const rows = [];
for (const f of files) {
  const src = git('show', `HEAD:${f}`);
  const detector = f.split('/').slice(2, -1).join('/');
  for (const m of src.matchAll(CASE)) {
    const want = /\bwant:\s*(nil|\[\]string\{\s*\}|\[\]string\{)/.exec(m[3]);
    if (!want) continue;
    const label = want[1] === '[]string{' ? 1 : /\binvalid\b/i.test(m[1]) ? 0 : -1;
    if (label < 0) continue;
    let text;
    try {
      text = m[2].startsWith('`') ? m[2].slice(1, -1) : JSON.parse(m[2]);
    } catch {
      continue;
    }
    text = text.replace(/^\n/, '').replace(/^\t+/gm, '');
    if (text.trim().length < 12) continue;
    rows.push({
      id: `th-${rows.length + 1}`,
      text,
      label,
      source: `trufflehog/${detector}`,
      family: label ? 'trufflehog valid pattern' : 'trufflehog invalid pattern',
    });
  }
}
mkdirSync(out, { recursive: true });
const seen = new Set();
const uniq = rows.filter((r) => (seen.has(r.text) ? false : (seen.add(r.text), true)));
writeFileSync(join(out, 'secrets-trufflehog.jsonl'), uniq.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(
  `trufflehog ${commit}: ${uniq.filter((r) => r.label).length} positives, ${uniq.filter((r) => !r.label).length} negatives from ${new Set(uniq.map((r) => r.source)).size} detectors -> ${join(out, 'secrets-trufflehog.jsonl')}`,
);
