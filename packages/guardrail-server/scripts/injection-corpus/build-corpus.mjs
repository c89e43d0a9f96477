#!/usr/bin/env node
// Builds the injection TRAINING corpus from public sources (snapshots under $BATON_MIRROR_DIR),
// the project's installed npm packages (docs and code with permissive licenses), the
// development set ($BATON_EVAL_DIR) and own-written texts (own-texts.mjs). Writes
// $BATON_CORPUS_DIR/injection-train.jsonl and sources.json (commits, paths, package licenses).
//
// The data is never committed (workplace rule); this script, the model trained from its output
// and NOTICE.md are. Reserved held-out repositories are never read here (see build-heldout.mjs).
//
// Row: { id, text, label (1 = injection), family, kind, action, source (leave-one-source-out
// group), origin (repo:path), span? ({start,end} of a planted injection in its carrier) }.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS_DIR, TRAIN_REPOS, chunks, commitMessages, commitOf, hasRepo, list, parseCsv, prose, show } from './sources.mjs';
import { ownPlantable, ownRows, ownStyleRows, pick, rng } from './own-texts.mjs';
import { parse as parseYaml } from 'yaml';
import { gunzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { gitDir } from './sources.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = resolve(HERE, '../../../..');
const EVAL_DIR = resolve(process.env.BATON_EVAL_DIR ?? join(REPO_ROOT, '..', 'shared', 'eval'));
const PERMISSIVE = new Set([
  'MIT',
  'ISC',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  '0BSD',
  'BlueOak-1.0.0',
  '(MIT OR WTFPL)',
  '(BSD-2-Clause OR MIT OR Apache-2.0)',
]);
// Peer detectors compared against in bench/guardrail-eval, and reserved material: not trained on.
const SKIP_PACKAGES = /^(@baton\/|llm-guard|@andersmyrmel\/vard|@openai\/guardrails)/;

const r = rng(20261130);
const rows = [];
const seen = new Set();
const used = {}; // repo -> Set(paths), for sources.json / NOTICE
const note = (repo, path) => (used[repo] ??= new Set()).add(path);

function add(row) {
  const text = String(row.text ?? '').trim();
  if (text.length < 2 || text.length > 20000) return;
  const key = `${row.label}:${text.toLowerCase().replace(/\s+/g, ' ')}`;
  if (seen.has(key)) return;
  seen.add(key);
  rows.push({ id: `c${rows.length}`, kind: 'direct', action: row.label ? 'AGENT_INPUT' : 'AGENT_INPUT', ...row, text });
}

function sample(xs, n) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, n);
}

function need(repo) {
  if (!hasRepo(repo)) {
    console.warn(`build-corpus: snapshot of ${repo} missing under the mirror dir; skipped`);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Benign: ordinary user requests.

if (need('clinc/oos-eval')) {
  const j = JSON.parse(show('clinc/oos-eval', 'data/data_full.json'));
  note('clinc/oos-eval', 'data/data_full.json');
  const all = Object.values(j)
    .flat()
    .map((x) => x[0]);
  for (const t of sample(all, 9000))
    add({ text: t, label: 0, family: 'user_request', source: 'clinc', origin: 'clinc/oos-eval:data/data_full.json' });
}
if (need('PolyAI-LDN/task-specific-datasets')) {
  for (const p of ['banking_data/train.csv', 'banking_data/test.csv']) {
    note('PolyAI-LDN/task-specific-datasets', p);
    const rs = parseCsv(show('PolyAI-LDN/task-specific-datasets', p)).slice(1);
    for (const row of sample(rs, 3000))
      add({ text: row[0], label: 0, family: 'user_request', source: 'banking77', origin: `PolyAI-LDN/task-specific-datasets:${p}` });
  }
}
if (need('sonos/nlu-benchmark')) {
  for (const p of list('sonos/nlu-benchmark', '2017-06-custom-intent-engines').filter((x) => /train_\w+_full\.json$/.test(x))) {
    note('sonos/nlu-benchmark', p);
    const j = JSON.parse(show('sonos/nlu-benchmark', p));
    const utter = Object.values(j)
      .flat()
      .map((u) => u.data.map((d) => d.text).join(''));
    for (const t of sample(utter, 700))
      add({ text: t, label: 0, family: 'user_request', source: 'snips', origin: `sonos/nlu-benchmark:${p}` });
  }
}
if (need('yizhongw/self-instruct')) {
  for (const p of ['data/seed_tasks.jsonl', 'human_eval/user_oriented_instructions.jsonl']) {
    note('yizhongw/self-instruct', p);
    for (const line of show('yizhongw/self-instruct', p).split('\n').filter(Boolean)) {
      const j = JSON.parse(line);
      add({ text: j.instruction, label: 0, family: 'user_request', source: 'self-instruct', origin: `yizhongw/self-instruct:${p}` });
      for (const inst of j.instances ?? []) {
        if (inst.input && inst.input.length > 20)
          add({
            text: `${j.instruction}\n\n${inst.input}`,
            label: 0,
            family: 'user_request',
            source: 'self-instruct',
            origin: `yizhongw/self-instruct:${p}`,
          });
      }
    }
  }
}
if (need('openai/human-eval')) {
  // HumanEval.jsonl.gz: code prompts (function signature + docstring).
  const gz = execFileSync(
    'git',
    ['--git-dir', gitDir('openai/human-eval'), 'show', `${commitOf('openai/human-eval')}:data/HumanEval.jsonl.gz`],
    { maxBuffer: 64 << 20 },
  );
  note('openai/human-eval', 'data/HumanEval.jsonl.gz');
  for (const line of gunzipSync(gz).toString('utf8').split('\n').filter(Boolean)) {
    const j = JSON.parse(line);
    add({
      text: j.prompt,
      label: 0,
      family: 'code',
      action: 'AGENT_INPUT',
      source: 'human-eval',
      origin: 'openai/human-eval:data/HumanEval.jsonl.gz',
    });
    add({
      text: `Complete this function:\n${j.prompt}`,
      label: 0,
      family: 'user_request',
      source: 'human-eval',
      origin: 'openai/human-eval:data/HumanEval.jsonl.gz',
    });
  }
}

// Conversations: the first human turn of Anthropic's HH test split (ordinary and harmful requests:
// a harmful request is not a prompt injection).
if (need('anthropics/hh-rlhf')) {
  const gz = execFileSync(
    'git',
    ['--git-dir', gitDir('anthropics/hh-rlhf'), 'show', `${commitOf('anthropics/hh-rlhf')}:harmless-base/test.jsonl.gz`],
    { maxBuffer: 64 << 20 },
  );
  note('anthropics/hh-rlhf', 'harmless-base/test.jsonl.gz');
  const firsts = gunzipSync(gz)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).chosen.split('\n\nHuman: ')[1]?.split('\n\nAssistant:')[0] ?? '');
  for (const t of sample(firsts, 2000))
    add({ text: t, label: 0, family: 'user_request', source: 'hh-rlhf', origin: 'anthropics/hh-rlhf:harmless-base/test.jsonl.gz' });
}
if (need('anthropics/evals')) {
  const files = list('anthropics/evals', 'persona').filter((x) => x.endsWith('.jsonl'));
  const qs = [];
  for (const p of sample(files, 40)) {
    note('anthropics/evals', 'persona/*.jsonl');
    for (const l of (show('anthropics/evals', p) ?? '').split('\n').filter(Boolean).slice(0, 40)) qs.push(JSON.parse(l).question);
  }
  for (const t of sample(qs, 800))
    add({ text: t, label: 0, family: 'user_request', source: 'anthropic-evals', origin: 'anthropics/evals:persona/*.jsonl' });
}

// Instruction templates (FLAN, promptsource), filled with corpus texts: long task-style requests.
const fillers = () =>
  pick(
    r,
    rows.filter((x) => x.label === 0 && x.family === 'user_request').map((x) => x.text),
  );
const fillPool = [];
if (need('google-research/FLAN')) {
  note('google-research/FLAN', 'flan/v2/templates.py');
  const py = show('google-research/FLAN', 'flan/v2/templates.py');
  for (const m of py.matchAll(/\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+),\s*"/g)) {
    const t = [...m[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)]
      .map((x) => x[1])
      .join('')
      .replace(/\\n/g, '\n')
      .replace(/\\"/g, '"')
      .replace(/\\'/g, "'");
    if (t.split(' ').length >= 4) fillPool.push({ t, origin: 'google-research/FLAN:flan/v2/templates.py' });
  }
}
if (need('bigscience-workshop/promptsource')) {
  for (const p of list('bigscience-workshop/promptsource', 'promptsource/templates').filter((x) => x.endsWith('templates.yaml'))) {
    let y;
    try {
      y = parseYaml((show('bigscience-workshop/promptsource', p) ?? '').replace(/!TemplateMetadata|!Template/g, ''));
    } catch {
      continue;
    }
    note('bigscience-workshop/promptsource', 'promptsource/templates/**/templates.yaml');
    for (const tpl of Object.values(y?.templates ?? {}))
      if (typeof tpl?.jinja === 'string')
        fillPool.push({ t: tpl.jinja.split('|||')[0].replace(/{%[^%]*%}/g, ''), origin: `bigscience-workshop/promptsource:${p}` });
  }
}
{
  const pool = rows.filter((x) => x.label === 0 && (x.family === 'user_request' || x.family === 'docs')).map((x) => x.text.slice(0, 400));
  for (const { t, origin } of sample(fillPool, 4000)) {
    const text = t.replace(/\{\{[^}]*\}\}|\{[a-z_0-9]+\}/g, () => pick(r, pool)).trim();
    add({ text, label: 0, family: 'user_request', source: origin.startsWith('google') ? 'flan' : 'promptsource', origin });
  }
}
void fillers;

// Role-play requests and prompt templates.
if (need('f/awesome-chatgpt-prompts')) {
  note('f/awesome-chatgpt-prompts', 'prompts.csv');
  const rs = parseCsv(show('f/awesome-chatgpt-prompts', 'prompts.csv')).slice(1);
  for (const row of sample(rs, 2500))
    add({
      text: row[1],
      label: 0,
      family: 'roleplay_template',
      source: 'awesome-chatgpt-prompts',
      origin: 'f/awesome-chatgpt-prompts:prompts.csv',
    });
}
if (need('microsoft/promptbench')) {
  for (const p of list('microsoft/promptbench', 'promptbench/prompts/adv_prompts').filter((x) => x.endsWith('.md'))) {
    note('microsoft/promptbench', p);
    const ps = [];
    for (const m of show('microsoft/promptbench', p).matchAll(/(?:prompt: |Attacked prompt: b?["'])(.+?)["']?$/gm)) ps.push(m[1]);
    for (const t of sample(ps, 250))
      add({ text: t, label: 0, family: 'roleplay_template', source: 'promptbench', origin: `microsoft/promptbench:${p}` });
  }
}

// ---------------------------------------------------------------------------------------------
// Benign: documentation, code, commit messages, security texts (installed npm packages and repos).

const npm = [];
const NM = join(REPO_ROOT, 'node_modules');
// The packages sampled are pinned (npm-packages.json: name, version, license, in the order they
// are read), not whatever `node_modules` holds today: a dependency bump would otherwise change the
// sample and the shipped model could not be rebuilt. A pinned version that is not installed is
// fetched once from the npm registry (`npm pack`) into $BATON_CORPUS_DIR/npm/.
// BATON_CORPUS_NPM_REPIN=1 rewrites the pin from the installed packages instead.
const PIN_FILE = join(HERE, 'npm-packages.json');
function installedPackages() {
  const out = [];
  for (const n of readdirSync(NM)) {
    if (n.startsWith('.')) continue;
    for (const name of n.startsWith('@') ? readdirSync(join(NM, n)).map((x) => `${n}/${x}`) : [n]) {
      if (SKIP_PACKAGES.test(name)) continue;
      try {
        const pkg = JSON.parse(readFileSync(join(NM, name, 'package.json'), 'utf8'));
        if (PERMISSIVE.has(pkg.license)) out.push({ name, version: pkg.version, license: pkg.license });
      } catch {
        // not a package directory
      }
    }
  }
  return out;
}
function pinnedPackageDir({ name, version }) {
  try {
    if (JSON.parse(readFileSync(join(NM, name, 'package.json'), 'utf8')).version === version) return join(NM, name);
  } catch {
    // not installed: fetched below
  }
  const dest = join(CORPUS_DIR, 'npm', `${name.replace('/', '+')}@${version}`);
  if (!existsSync(join(dest, 'package', 'package.json'))) {
    mkdirSync(dest, { recursive: true });
    const tgz = execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', dest], { encoding: 'utf8' }).trim();
    execFileSync('tar', ['xzf', join(dest, tgz.split('\n').at(-1)), '-C', dest]);
  }
  return join(dest, 'package');
}
let pinned = JSON.parse(readFileSync(PIN_FILE, 'utf8'));
if (process.env.BATON_CORPUS_NPM_REPIN === '1') {
  pinned = installedPackages();
  writeFileSync(PIN_FILE, `[\n${pinned.map((x) => JSON.stringify(x)).join(',\n')}\n]\n`);
}
const docChunks = [];
const codeChunks = [];
for (const { name, version, license } of pinned) {
  npm.push({ name, version, license });
  const dir = pinnedPackageDir({ name, version });
  const files = [];
  const walk = (d, depth) => {
    if (depth > 3) return;
    for (const f of readdirSync(d)) {
      if (f === 'node_modules' || f.startsWith('.')) continue;
      const p = join(d, f);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, depth + 1);
      else if (st.size < 400_000) files.push(p);
    }
  };
  walk(dir, 0);
  for (const f of files) {
    if (/\.md$/i.test(f))
      for (const c of chunks(readFileSync(f, 'utf8')))
        docChunks.push({ text: c, origin: `npm:${name}@${version}:${f.slice(dir.length + 1)}` });
    else if (/\.(d\.ts|mjs|js|ts|cjs)$/.test(f) && !/\.min\./.test(f)) {
      const lines = readFileSync(f, 'utf8').split('\n');
      for (let i = 0; i < lines.length; i += 30 + Math.floor(r() * 40)) {
        const c = lines.slice(i, i + 20 + Math.floor(r() * 40)).join('\n');
        if (c.trim().length > 80) codeChunks.push({ text: c.slice(0, 3000), origin: `npm:${name}@${version}:${f.slice(dir.length + 1)}` });
      }
    }
  }
}
for (const c of sample(docChunks, 7000))
  add({ text: c.text, label: 0, family: 'docs', action: 'TOOL_OUTPUT', kind: 'indirect', source: 'npm-docs', origin: c.origin });
for (const c of sample(codeChunks, 5000))
  add({ text: c.text, label: 0, family: 'code', action: 'TOOL_OUTPUT', kind: 'indirect', source: 'npm-code', origin: c.origin });

// Repository docs and code (Apache-2.0 / MIT).
const repoDocs = [];
if (need('openai/openai-python')) {
  for (const p of list('openai/openai-python')
    .filter((x) => /\.(md|py)$/.test(x))
    .slice(0, 4000)) {
    const t = show('openai/openai-python', p);
    if (!t) continue;
    note('openai/openai-python', p.endsWith('.md') ? '*.md' : '*.py');
    for (const c of chunks(t, 200, 1500))
      repoDocs.push({ text: c, family: p.endsWith('.py') ? 'code' : 'docs', origin: `openai/openai-python:${p}` });
  }
  for (const m of commitMessages('openai/openai-python', 3000))
    add({
      text: m,
      label: 0,
      family: 'code_review',
      action: 'TOOL_OUTPUT',
      kind: 'indirect',
      source: 'openai-python',
      origin: 'openai/openai-python:git log',
    });
}
for (const c of sample(repoDocs, 4000))
  add({ text: c.text, label: 0, family: c.family, action: 'TOOL_OUTPUT', kind: 'indirect', source: 'openai-python', origin: c.origin });

// Security texts: prose about attacks and defences.
const security = [];
if (need('swisskyrepo/PayloadsAllTheThings')) {
  for (const p of list('swisskyrepo/PayloadsAllTheThings').filter((x) => x.endsWith('.md'))) {
    const t = show('swisskyrepo/PayloadsAllTheThings', p);
    if (!t) continue;
    note('swisskyrepo/PayloadsAllTheThings', p.startsWith('Prompt Injection') ? p : '**/*.md (prose)');
    // Every page but the prompt-injection one is benign in full (payloads for other attack classes
    // are not prompt injections); from that page only its prose is.
    const body = p.startsWith('Prompt Injection') ? prose(t) : t;
    for (const c of chunks(body, 200, 1500))
      security.push({ text: c, source: 'payloadsallthethings', origin: `swisskyrepo/PayloadsAllTheThings:${p}` });
  }
}
if (need('NVIDIA/garak')) {
  for (const p of list('NVIDIA/garak', 'docs/source').filter((x) => /\.(rst|md)$/.test(x))) {
    if (/latentinjection|grandma|promptinject/i.test(p)) continue; // reserved probes
    const t = show('NVIDIA/garak', p);
    if (!t) continue;
    note('NVIDIA/garak', 'docs/source/**/*.rst');
    for (const c of chunks(t, 200, 1500)) security.push({ text: c, source: 'garak-docs', origin: `NVIDIA/garak:${p}` });
  }
}
for (const [repo, paths] of [
  ['microsoft/promptbench', ['README.md', 'docs/examples/prompt_attack.md', 'docs/start/intro.md', 'promptbench/prompt_attack/README.md']],
  ['deadbits/vigil-llm', ['README.md', 'docs/detections.md', 'docs/datasets.md', 'docs/canarytokens.md']],
  ['greshake/llm-security', ['README.md']],
  ['microsoft/BIPIA', ['README.md', 'benchmark/README.md']],
  ['TakSec/Prompt-Injection-Everywhere', ['README.md']],
]) {
  if (!need(repo)) continue;
  for (const p of paths) {
    const t = show(repo, p);
    if (!t) continue;
    note(repo, p);
    for (const c of chunks(prose(t), 200, 1500)) security.push({ text: c, source: 'security-readmes', origin: `${repo}:${p}` });
  }
}
for (const c of security)
  add({ text: c.text, label: 0, family: 'security_text', action: 'TOOL_OUTPUT', kind: 'indirect', source: c.source, origin: c.origin });

// ---------------------------------------------------------------------------------------------
// Benign carriers for indirect injections: e-mails, tool/API JSON, web pages.

const emails = [];
if (need('microsoft/BIPIA')) {
  for (const p of ['benchmark/email/train.jsonl', 'benchmark/email/test.jsonl']) {
    note('microsoft/BIPIA', p);
    for (const line of show('microsoft/BIPIA', p).split('\n').filter(Boolean)) {
      const j = JSON.parse(line);
      emails.push({ text: j.context, origin: `microsoft/BIPIA:${p}` });
      add({ text: j.question.replace(/^Q:\s*/, ''), label: 0, family: 'user_request', source: 'bipia', origin: `microsoft/BIPIA:${p}` });
    }
  }
}
for (const e of emails)
  add({ text: e.text, label: 0, family: 'email', action: 'TOOL_OUTPUT', kind: 'indirect', source: 'bipia', origin: e.origin });

const userPool = rows.filter((x) => x.family === 'user_request').map((x) => x.text);
const docPool = [...docChunks.map((d) => d.text), ...security.map((s) => s.text)];
const NAMES = ['Alex', 'Sam', 'Priya', 'Jonas', 'Maria', 'Wei', 'Fatima', 'Tom', 'Lena', 'Kenji', 'Olu', 'Sofia'];
const SUBJECTS = [
  'Re: quarterly numbers',
  'Meeting notes',
  'Your order has shipped',
  'Question about the invoice',
  'Weekly update',
  'Fwd: travel plans',
  'Team offsite',
  'Re: code review',
  'Password reset requested',
  'Welcome aboard!',
];
function ownEmail(body) {
  const from = pick(r, NAMES);
  const to = pick(r, NAMES);
  return `From: ${from.toLowerCase()}@example.com\nTo: ${to.toLowerCase()}@example.org\nSubject: ${pick(r, SUBJECTS)}\n\nHi ${to},\n\n${body}\n\nBest,\n${from}`;
}
const CITIES = ['Paris', 'Lagos', 'Osaka', 'Lima', 'Oslo', 'Austin', 'Pune', 'Cairo', 'Toronto', 'Munich'];
function ownToolJson(text, whole = false) {
  const cut = (n) => (whole ? text : text.slice(0, n));
  const kind = Math.floor(r() * 6);
  const id = Math.floor(r() * 1e6);
  let obj;
  if (kind === 0)
    obj = {
      results: [
        { title: text.slice(0, 60), url: `https://docs.example.com/p/${id}`, snippet: cut(100000) },
        { title: 'Related', url: `https://wiki.example.org/${id + 1}`, snippet: pick(r, docPool).slice(0, 300) },
      ],
    };
  else if (kind === 1)
    obj = {
      id,
      status: pick(r, ['open', 'closed', 'in_progress']),
      title: text.slice(0, 80),
      body: cut(100000),
      labels: ['bug', 'docs'].slice(0, 1 + Math.floor(r() * 2)),
      user: { login: pick(r, NAMES).toLowerCase() },
      created_at: '2026-03-04T10:12:00Z',
    };
  else if (kind === 2)
    obj = {
      city: pick(r, CITIES),
      forecast: [
        { day: 'Mon', high_c: 21, low_c: 12, summary: 'Partly cloudy' },
        { day: 'Tue', high_c: 19, low_c: 11, summary: 'Light rain' },
      ],
      note: cut(200),
    };
  else if (kind === 3)
    obj = {
      order_id: `ORD-${id}`,
      items: [{ sku: `SKU-${id % 997}`, qty: 2, price: 19.99 }],
      customer_note: cut(400),
      shipping: { carrier: 'UPS', eta: '2026-04-02' },
    };
  else if (kind === 4)
    obj = {
      rows: [
        { id: 1, name: pick(r, NAMES), comment: cut(300) },
        { id: 2, name: pick(r, NAMES), comment: pick(r, userPool) },
      ],
      count: 2,
    };
  else
    obj = {
      event: {
        summary: text.slice(0, 100),
        description: text,
        start: '2026-05-01T09:00:00Z',
        attendees: [`${pick(r, NAMES).toLowerCase()}@example.com`],
      },
    };
  return JSON.stringify(obj, null, r() < 0.5 ? 2 : 0);
}
function ownWebPage(text) {
  return `<html><head><title>${text.slice(0, 40).replace(/[<>]/g, '')}</title></head><body><nav>Home | Products | Blog | Contact</nav><article><p>${text.replace(/\n\n/g, '</p><p>')}</p></article><footer>© 2026 Example Inc. All rights reserved.</footer></body></html>`;
}
for (let k = 0; k < 2500; k++)
  add({
    text: ownEmail(pick(r, r() < 0.5 ? userPool : docPool).slice(0, 900)),
    label: 0,
    family: 'email',
    action: 'TOOL_OUTPUT',
    kind: 'indirect',
    source: 'own-carriers',
    origin: 'own (bodies from corpus texts)',
  });
for (let k = 0; k < 3500; k++)
  add({
    text: ownToolJson(pick(r, r() < 0.5 ? userPool : docPool).slice(0, 600)),
    label: 0,
    family: 'tool_json',
    action: 'TOOL_OUTPUT',
    kind: 'indirect',
    source: 'own-carriers',
    origin: 'own (values from corpus texts)',
  });
for (let k = 0; k < 1500; k++)
  add({
    text: ownWebPage(pick(r, docPool)),
    label: 0,
    family: 'web_page',
    action: 'TOOL_OUTPUT',
    kind: 'indirect',
    source: 'own-carriers',
    origin: 'own (text from corpus docs)',
  });

// ---------------------------------------------------------------------------------------------
// Attacks.

if (need('NVIDIA/garak')) {
  for (const p of list('NVIDIA/garak', 'garak/data/dan').filter((x) => x.endsWith('.json'))) {
    note('NVIDIA/garak', 'garak/data/dan/*.json');
    for (const t of [].concat(JSON.parse(show('NVIDIA/garak', p))))
      add({
        text: String(t).replaceAll('{generator.name}', 'ChatGPT'),
        label: 1,
        family: 'jailbreak',
        source: 'garak-dan',
        origin: `NVIDIA/garak:${p}`,
      });
  }
  note('NVIDIA/garak', 'garak/data/inthewild_jailbreak_llms.json');
  for (const t of JSON.parse(show('NVIDIA/garak', 'garak/data/inthewild_jailbreak_llms.json')))
    add({
      text: t,
      label: 1,
      family: 'jailbreak',
      source: 'garak-inthewild',
      origin: 'NVIDIA/garak:garak/data/inthewild_jailbreak_llms.json',
    });
  note('NVIDIA/garak', 'garak/data/sysprompt_extraction/attacks.json');
  for (const t of Object.values(JSON.parse(show('NVIDIA/garak', 'garak/data/sysprompt_extraction/attacks.json'))).flat())
    add({
      text: t,
      label: 1,
      family: 'extraction',
      source: 'garak-sysprompt',
      origin: 'NVIDIA/garak:garak/data/sysprompt_extraction/attacks.json',
    });
  note('NVIDIA/garak', 'garak/data/autodan/autodan_prompts.json');
  for (const t of JSON.parse(show('NVIDIA/garak', 'garak/data/autodan/autodan_prompts.json')))
    add({
      text: t.replaceAll('ChatGPT', 'the assistant'),
      label: 1,
      family: 'jailbreak',
      source: 'garak-autodan',
      origin: 'NVIDIA/garak:garak/data/autodan/autodan_prompts.json',
    });
  note('NVIDIA/garak', 'garak/data/payloads/normal_instructions.json');
  for (const t of JSON.parse(show('NVIDIA/garak', 'garak/data/payloads/normal_instructions.json')).payloads)
    add({
      text: t,
      label: 0,
      family: 'user_request',
      source: 'garak-normal',
      origin: 'NVIDIA/garak:garak/data/payloads/normal_instructions.json',
    });
}

const plantable = []; // { text, source, origin }
if (need('swisskyrepo/PayloadsAllTheThings')) {
  const p = 'Prompt Injection/README.md';
  const t = show('swisskyrepo/PayloadsAllTheThings', p);
  const direct = t.slice(t.indexOf('## Direct Prompt Injection'), t.indexOf('## Indirect Prompt Injection'));
  const keep =
    /Overrid|Role Switching|Data Extraction|Jailbreak|Role Injection|Identity Injection|Reverse Prompt|Third-Party|Output Leakage/;
  for (const line of direct.split('\n')) {
    const m = line.match(/`([^`]{12,})`/);
    if (!m) continue;
    if (line.startsWith('|') && !keep.test(line)) continue;
    add({ text: m[1], label: 1, family: 'override', source: 'payloadsallthethings-pi', origin: `swisskyrepo/PayloadsAllTheThings:${p}` });
  }
  for (const m of t.matchAll(/```(?:ps1|js|json|py)?\n([\s\S]*?)```/g)) {
    const block = m[1].trim();
    if (/ignore|instruction|reply with|do not print/i.test(block) && !/act as|I want you to act/i.test(block)) {
      add({
        text: block,
        label: 1,
        family: 'indirect',
        kind: 'indirect',
        action: 'TOOL_OUTPUT',
        source: 'payloadsallthethings-pi',
        origin: `swisskyrepo/PayloadsAllTheThings:${p}`,
      });
      for (const l of block.split('\n').filter((x) => /ignore|instruction/i.test(x)))
        plantable.push({
          text: l.trim().replace(/^\/\/\s*|^<!--\s*|\s*-->$/g, ''),
          source: 'payloadsallthethings-pi',
          origin: `swisskyrepo/PayloadsAllTheThings:${p}`,
        });
    }
  }
}
if (need('TakSec/Prompt-Injection-Everywhere')) {
  for (const p of list('TakSec/Prompt-Injection-Everywhere').filter((x) => x.endsWith('.txt'))) {
    note('TakSec/Prompt-Injection-Everywhere', p);
    const t = show('TakSec/Prompt-Injection-Everywhere', p).trim();
    if (/Protection/.test(p)) continue; // a defence prompt, not an attack
    add({
      text: t,
      label: 1,
      family: /Leak/.test(p) ? 'extraction' : 'override',
      source: 'taksec',
      origin: `TakSec/Prompt-Injection-Everywhere:${p}`,
    });
    plantable.push({ text: t, source: 'taksec', origin: `TakSec/Prompt-Injection-Everywhere:${p}` });
  }
}
if (need('greshake/llm-security')) {
  for (const p of list('greshake/llm-security', 'scenarios/puzzle/puzzles')) {
    note('greshake/llm-security', p);
    add({
      text: show('greshake/llm-security', p),
      label: 1,
      family: 'indirect',
      kind: 'indirect',
      action: 'TOOL_OUTPUT',
      source: 'greshake',
      origin: `greshake/llm-security:${p}`,
    });
  }
}
if (need('microsoft/BIPIA')) {
  for (const p of [
    'benchmark/text_attack_train.json',
    'benchmark/text_attack_test.json',
    'benchmark/code_attack_train.json',
    'benchmark/code_attack_test.json',
  ]) {
    note('microsoft/BIPIA', p);
    for (const xs of Object.values(JSON.parse(show('microsoft/BIPIA', p))))
      for (const t of xs) plantable.push({ text: t, source: 'bipia', origin: `microsoft/BIPIA:${p}` });
  }
}
for (const t of ownPlantable()) plantable.push({ text: t, source: 'own', origin: 'own' });

// Indirect injections: a plantable attack inside a benign carrier, at the start, middle or end.
const carriers = [
  ...emails.map((e) => ({ text: e.text, family: 'email' })),
  ...sample(docChunks, 1500).map((d) => ({ text: d.text, family: 'docs' })),
  ...sample(codeChunks, 400).map((d) => ({ text: d.text, family: 'code' })),
];
const planted = [];
const PASTE_PREFIXES = [
  'Summarize this webpage:',
  'Can you summarize the following email for me?',
  'What does this document say?',
  'Translate the following text into French:',
  'Please proofread this:',
  'What is the output of this code?',
  'Explain what this function does:',
  'Extract the dates mentioned here:',
  'Is this review positive or negative?',
  'Answer my question using the text below. Who sent it?',
  'Give me three bullet points about this article:',
  'Here is the tool result, please use it to answer:',
];
// Sources are picked first (own 40%, BIPIA 25%, the rest shared), so no one source dominates.
const bySource = {};
for (const a of plantable) (bySource[a.source] ??= []).push(a);
const otherSources = Object.keys(bySource).filter((s) => s !== 'own' && s !== 'bipia');
function pickPlantable() {
  const u = r();
  const src = u < 0.4 || !otherSources.length ? 'own' : u < 0.65 ? 'bipia' : pick(r, otherSources);
  return pick(r, bySource[src] ?? bySource.own);
}
for (let k = 0; k < 3000; k++) {
  const a = pickPlantable();
  const c = pick(r, carriers);
  const style = Math.floor(r() * 5);
  let attack = a.text;
  if (style === 1) attack = `\n\n${attack}\n\n`;
  else if (style === 2) attack = `<!-- ${attack} -->`;
  else if (style === 3 && c.family === 'code') attack = `// ${attack}`;
  else if (style === 4) attack = `[${pick(r, ['IMPORTANT', 'NOTE', 'SYSTEM', 'Assistant'])}] ${attack}`;
  let wrapper = c.family;
  let host = c.text;
  const where = r();
  const cut = where < 0.33 ? 0 : where < 0.66 ? Math.floor(host.length / 2) : host.length;
  const pos = host.lastIndexOf(' ', cut) < 0 ? cut : host.lastIndexOf(' ', cut) + (cut === 0 ? 0 : 1);
  let text = `${host.slice(0, pos)}${pos > 0 ? ' ' : ''}${attack} ${host.slice(pos)}`.trim();
  let start = text.indexOf(attack.trim());
  if (r() < 0.3) {
    // A window around the attack, whole, in one string field of a tool result.
    const from = Math.max(0, start - Math.floor(r() * 300));
    text = ownToolJson(text.slice(from, start + attack.trim().length + Math.floor(r() * 300)), true);
    wrapper = 'tool_json';
    start = text.indexOf(JSON.stringify(attack.trim()).slice(1, -1));
  } else if (r() < 0.15) {
    text = ownWebPage(text);
    wrapper = 'web_page';
    start = text.indexOf(attack.trim());
  }
  // A quarter are pasted into a user request ("Summarize this: ...") and sent as AGENT_INPUT.
  let action = 'TOOL_OUTPUT';
  if (r() < 0.25) {
    const prefix = `${pick(r, PASTE_PREFIXES)}\n\n`;
    text = prefix + text;
    if (start >= 0) start += prefix.length;
    action = 'AGENT_INPUT';
  }
  const span = start >= 0 ? { start, end: start + attack.trim().length } : undefined;
  planted.push({
    text,
    label: 1,
    family: 'indirect',
    kind: 'indirect',
    action,
    source: a.source,
    origin: `${a.origin} planted in ${wrapper}`,
    span,
    carrier: wrapper,
  });
}
// Benign counterparts: the same user requests with benign pasted content.
for (let k = 0; k < 2000; k++) {
  const c = pick(r, carriers);
  add({
    text: `${pick(r, PASTE_PREFIXES)}\n\n${r() < 0.2 ? ownWebPage(c.text) : c.text}`,
    label: 0,
    family: 'user_request',
    kind: 'direct',
    action: 'AGENT_INPUT',
    source: 'own-carriers',
    origin: `own prefix + ${c.family} carrier`,
  });
}
for (const p of planted) add(p);

// Bare BIPIA attack instructions are ordinary requests on their own; only planted ones count.
// Own-written rows.
for (const o of [...ownRows(), ...ownStyleRows()])
  add({ ...o, action: o.kind === 'indirect' ? 'TOOL_OUTPUT' : 'AGENT_INPUT', origin: 'own' });

// Development set (tuned on; kept in training so the shipped model covers it).
if (existsSync(join(EVAL_DIR, 'injection.jsonl'))) {
  for (const line of readFileSync(join(EVAL_DIR, 'injection.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const j = JSON.parse(line);
    const src = /garak/.test(j.source) ? 'dev-garak' : /BIPIA/.test(j.source) ? 'dev-bipia' : 'dev-own';
    const indirect = j.kind === 'indirect';
    add({
      text: j.text,
      label: j.label,
      family: j.label ? (indirect ? 'indirect' : 'override') : indirect ? 'email' : 'user_request',
      kind: indirect ? 'indirect' : 'direct',
      action: indirect ? 'TOOL_OUTPUT' : 'AGENT_INPUT',
      source: src,
      origin: `dev:${j.id}`,
    });
  }
} else console.warn(`build-corpus: no dev set at ${EVAL_DIR}; skipped`);

// ---------------------------------------------------------------------------------------------

mkdirSync(CORPUS_DIR, { recursive: true });
writeFileSync(join(CORPUS_DIR, 'injection-train.jsonl'), rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
const commits = Object.fromEntries(
  Object.keys(TRAIN_REPOS)
    .filter(hasRepo)
    .map((repo) => [repo, commitOf(repo)]),
);
writeFileSync(
  join(CORPUS_DIR, 'injection-train.sources.json'),
  JSON.stringify({ commits, paths: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, [...v].sort()])), npm }, null, 1),
);
const tally = {};
for (const x of rows) {
  const k = `${x.label} ${x.family} ${x.source}`;
  tally[k] = (tally[k] ?? 0) + 1;
}
console.log(
  Object.entries(tally)
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n'),
);
console.log(
  `build-corpus: ${rows.length} rows (${rows.filter((x) => x.label).length} attacks) -> ${join(CORPUS_DIR, 'injection-train.jsonl')}`,
);
