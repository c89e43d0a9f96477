// Builds a secrets DEVELOPMENT set (rules may be tuned on it; its numbers are not results) into
// $BATON_TUNING_DIR/secrets-gitleaks.jsonl from a local gitleaks checkout (MIT; the commit is
// recorded in NOTICE.md): the literal strings of each rule's `tps` (label 1) and `fps` (label 0)
// lists in cmd/generate/config/rules/*.go. Generated samples (utils.GenerateSampleSecret…) are not
// literals and are skipped. Nothing read here is committed.
//
//   BATON_GITLEAKS_GIT=/work/.mirror/gitleaks+gitleaks/repo node bench/guardrail-eval/build-dev-secrets.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const gitDir = process.env.BATON_GITLEAKS_GIT ?? '/work/.mirror/gitleaks+gitleaks/repo';
const out = process.env.BATON_TUNING_DIR ?? '/work/tuning';
const git = (...a) => execFileSync('git', ['--git-dir', gitDir, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
const commit = git('rev-parse', 'HEAD').trim();
const files = git('ls-tree', '-r', '--name-only', 'HEAD', '--', 'cmd/generate/config/rules')
  .split('\n')
  .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));

// Go string literals: `raw` or "interpreted" (with \" \\ \n escapes).
const LIT = /`([^`]*)`|"((?:[^"\\\n]|\\.)*)"/g;
const unquote = (m) => (m[1] !== undefined ? m[1] : JSON.parse(`"${m[2].replace(/\\'/g, "'")}"`));

// The body of each `tps := []string{ … }`, `fps := []string{ … }` or `append(tps, …)` block.
function blocks(src, name) {
  const res = [];
  const re = new RegExp(`\\b${name}\\s*(?::=|=)\\s*(?:\\[\\]string\\{|append\\(${name},)`, 'g');
  for (const m of src.matchAll(re)) {
    let depth = 1;
    let i = m.index + m[0].length;
    const start = i;
    let inRaw = false;
    let inStr = false;
    for (; i < src.length && depth > 0; i++) {
      const c = src[i];
      if (inRaw) {
        if (c === '`') inRaw = false;
        continue;
      }
      if (inStr) {
        if (c === '\\') i++;
        else if (c === '"') inStr = false;
        continue;
      }
      if (c === '`') inRaw = true;
      else if (c === '"') inStr = true;
      else if (c === '/' && src[i + 1] === '/') {
        while (i < src.length && src[i] !== '\n') i++;
      } else if (c === '{' || c === '(') depth++;
      else if (c === '}' || c === ')') depth--;
    }
    res.push(src.slice(start, i - 1));
  }
  return res;
}

// A literal that is only an argument of a generator call is not a sample.
function literals(body) {
  const res = [];
  const stripped = body.replace(/\/\/[^\n]*/g, '');
  for (const m of stripped.matchAll(LIT)) {
    const before = stripped.slice(Math.max(0, m.index - 40), m.index);
    if (/(?:Generate\w*|NewSecret|AlphaNumeric\w*|Hex\w*|Numeric|Alpha\w*|\+)\s*\(?\s*$/.test(before)) continue;
    const after = stripped.slice(m.index + m[0].length, m.index + m[0].length + 3);
    if (/^\s*\+/.test(after)) continue; // concatenated with generated text
    try {
      const s = unquote(m);
      if (s.trim().length >= 8) res.push(s);
    } catch {
      // an escape JSON cannot read: skip
    }
  }
  return res;
}

const rows = [];
for (const f of files) {
  const src = git('show', `HEAD:${f}`);
  const rule = f.replace(/^.*\//, '').replace(/\.go$/, '');
  for (const [name, label] of [
    ['tps', 1],
    ['fps', 0],
  ])
    for (const b of blocks(src, name))
      for (const text of literals(b))
        rows.push({
          id: `gl-${rows.length + 1}`,
          text,
          label,
          source: `gitleaks/${rule}`,
          family: label ? 'gitleaks tps' : 'gitleaks fps',
        });
}
mkdirSync(out, { recursive: true });
const seen = new Set();
const uniq = rows.filter((r) => (seen.has(r.text) ? false : (seen.add(r.text), true)));
writeFileSync(join(out, 'secrets-gitleaks.jsonl'), uniq.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(
  `gitleaks ${commit}: ${uniq.filter((r) => r.label).length} positives, ${uniq.filter((r) => !r.label).length} negatives -> ${join(out, 'secrets-gitleaks.jsonl')}`,
);
