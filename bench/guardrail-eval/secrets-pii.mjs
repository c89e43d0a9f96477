// Secrets, structured PII and exfiltration: Baton's engine (through its public API) and peer npm
// detectors on the same rows, per data source. Two kinds of source, never mixed in one number:
//
//   dev set, TUNED ON  ../shared/eval/{secrets,pii,exfil}.jsonl ($BATON_EVAL_DIR): Baton's rules
//                      were written and adjusted against these rows; their numbers are optimistic.
//   HELD-OUT           $BATON_HELDOUT_DIR (default /work/heldout), built by build-heldout.py from
//                      reserved repositories (noseyparker, detect-secrets, presidio) that no rule,
//                      word list or threshold was tuned on.
//   dev, TUNED ON      $BATON_TUNING_DIR (default /work/tuning): gitleaks rule tps/fps
//                      (build-dev-secrets.mjs), trufflehog pattern tests (build-dev-trufflehog.mjs),
//                      libphonenumber examples (build-tuning.mjs); and rows written for Baton
//                      (own-secrets.mjs, own-pii.mjs).
//
// Secrets are scored three ways, because the engine answers a secret in two grades (see the
// package README, "Secrets: block or redact"): a provider's token shape (or a key, a password in a
// URI or connection string) is BLOCKed in an AGENT_RESPONSE; a credential-like value found only
// under a credential name (`api_key = "…"`) is redacted (MODIFY, policy `secrets.name_keyed`).
//
//   "any finding"        flagged = BLOCK or redaction: recall here is "the value does not get
//                        through"; FPR is "a look-alike was refused or had a value cut out".
//   "BLOCK only"         flagged = the request was refused for a secret: FPR here is the refusal
//                        rate on look-alikes; recall is the share refused rather than redacted.
//   "provider rules only" the policy's `secrets.disabled_rules` turns off the name-keyed rules
//                        (NAME_KEYED_SECRET_RULES, exported by the package): nothing is redacted
//                        or refused for a name alone.
//
// A rule-specific near miss in another scanner's negatives ("Using Key=<random, wrong length for
// that provider>") is still a credential to a name rule, so it lands in "any finding", not in
// "BLOCK only".
//
// Row-level: a row is flagged when the detector reports anything of its kind. Measures; never
// asserts. `run()` returns the result object; index.mjs stores it with the rest.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT, printTable, round } from '../lib.mjs';
import { OWN_PII_ROWS } from './own-pii.mjs';
import { OWN_SECRET_ROWS } from './own-secrets.mjs';

const EVAL_DIR = resolve(process.env.BATON_EVAL_DIR ?? join(REPO_ROOT, '..', 'shared', 'eval'));
const HELDOUT_DIR = resolve(process.env.BATON_HELDOUT_DIR ?? '/work/heldout');
// BATON_SKIP_HELDOUT=1: development runs score the tuning sets only, so nobody looks at held-out
// numbers while changing rules.
const SKIP_HELDOUT = process.env.BATON_SKIP_HELDOUT === '1';
const STRUCTURED = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'US_SSN', 'CREDIT_CARD', 'IBAN_CODE', 'IP_ADDRESS'];

function load(dir, name) {
  const file = join(dir, name);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

async function tryImport(name) {
  try {
    return await import(name);
  } catch (err) {
    return { __error: String(err?.message ?? err).split('\n')[0] };
  }
}

const counts = () => ({ tp: 0, fn: 0, fp: 0, tn: 0 });
function add(c, label, flagged) {
  c[label ? (flagged ? 'tp' : 'fn') : flagged ? 'fp' : 'tn'] += 1;
}
function rates(c) {
  return {
    recall: c.tp + c.fn ? c.tp / (c.tp + c.fn) : null,
    fpr: c.fp + c.tn ? c.fp / (c.fp + c.tn) : null,
    pos: c.tp + c.fn,
    neg: c.fp + c.tn,
  };
}
const fmt = (v) => (v === null || v === undefined ? '-' : round(v));
const cell = (c) => `${fmt(rates(c).recall)}/${fmt(rates(c).fpr)}`;

const TRACE = { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' };
function request(actionType, text, i) {
  return {
    action_id: '00000000-0000-4000-8000-000000000001',
    action_type: actionType,
    source_agent_id: 'io.bench.a',
    thread_id: `t${i}`,
    trace: TRACE,
    payload: text,
  };
}

/** Evaluates `engines` (name -> async (row) => flagged) over `sets` (name -> rows). */
async function table(title, sets, engines, groupOf) {
  const rows = [];
  const out = {};
  for (const [engineName, fn] of Object.entries(engines)) {
    out[engineName] = {};
    for (const [setName, data] of Object.entries(sets)) {
      if (!data || data.length === 0) continue;
      const all = counts();
      const groups = {};
      for (const r of data) {
        let flagged;
        try {
          flagged = await fn(r);
        } catch {
          flagged = true; // a detector that throws on an input refuses it
        }
        add(all, r.label, flagged);
        const g = groupOf(r);
        if (g) add((groups[g] ??= counts()), r.label, flagged);
      }
      out[engineName][setName] = { all: rates(all), groups: Object.fromEntries(Object.entries(groups).map(([k, c]) => [k, rates(c)])) };
      rows.push({
        detector: engineName,
        data: setName,
        n: data.length,
        recall: fmt(rates(all).recall),
        fpr: fmt(rates(all).fpr),
        'by group R/FPR': Object.entries(groups)
          .map(([k, c]) => `${k} ${cell(c)}`)
          .join('; '),
      });
    }
  }
  printTable(rows, { title });
  return out;
}

// Benign code and docs: 1 KB chunks of the repo's installed packages (sources, READMEs, configs).
// Used while writing the rules (TUNED ON), so it is a check against regressions, not a result.
function benignCodeChunks(limitFiles = 4000) {
  const files = [];
  const walk = (d, depth) => {
    if (files.length >= limitFiles || depth > 6) return;
    let ents;
    try {
      ents = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of ents.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, depth + 1);
      else if (/\.(md|ya?ml|json|ts|mjs|cjs|js|py|sh|toml|ini|env)$/.test(e.name) && !/\.min\./.test(e.name)) files.push(p);
    }
  };
  walk(join(REPO_ROOT, 'node_modules'), 0);
  const rows = [];
  for (const f of files) {
    try {
      if (statSync(f).size > 200_000) continue;
      const t = readFileSync(f, 'utf8');
      for (let i = 0; i < t.length; i += 1000)
        rows.push({ text: t.slice(i, i + 1000), label: 0, source: 'node_modules', family: 'code+docs' });
    } catch {
      // unreadable file: skip
    }
  }
  return rows;
}

// Per-family grouping: the scanner for the dev set, the rule or plugin file for held-out rows
// (noseyparker `rules/aws.yml` -> aws; detect-secrets `plugins/aws_test.py` -> aws).
function secretFamily(r) {
  if (r.source.startsWith('secretlint')) return 'secretlint';
  if (r.source.startsWith('gitleaks')) return 'gitleaks';
  const m = /(?:rules\/([\w-]+)\.yml|plugins\/([\w-]+?)(?:_test)?\.py)$/.exec(r.source);
  return m ? (m[1] ?? m[2]) : r.family;
}

// Time of the secret, PII and exfiltration detectors over the benign code+docs chunks, in ms per
// KB (best of 7 rounds, so other processes on a shared machine inflate it least). With
// BATON_BASELINE_DETECTORS=<dir of compiled detectors from an earlier commit> the same chunks run
// through both, interleaved, and the ratio is printed: the number to compare across machines.
async function detectorCost(chunks) {
  const dist = join(REPO_ROOT, 'packages', 'guardrail-server', 'dist', 'detectors');
  const loadSet = async (dir) => ({
    s: await import(join(dir, 'secrets.js')),
    p: await import(join(dir, 'pii.js')),
    e: await import(join(dir, 'exfil.js')),
  });
  const cur = await loadSet(dist);
  const base = process.env.BATON_BASELINE_DETECTORS ? await loadSet(resolve(process.env.BATON_BASELINE_DETECTORS)) : undefined;
  const kb = chunks.reduce((n, r) => n + r.text.length, 0) / 1024;
  const once = (m) => {
    const t0 = performance.now();
    for (const r of chunks) {
      m.s.detectSecrets(r.text);
      m.p.detectPii(r.text);
      m.e.detectExfiltration(r.text);
    }
    return performance.now() - t0;
  };
  const tc = [];
  const tb = [];
  for (let k = 0; k < 7; k++) {
    tc.push(once(cur));
    if (base) tb.push(once(base));
  }
  const out = { kb: round(kb), ms_per_kb: round(Math.min(...tc) / kb, 4) };
  if (base) Object.assign(out, { baseline_ms_per_kb: round(Math.min(...tb) / kb, 4), ratio: round(Math.min(...tc) / Math.min(...tb), 3) });
  printTable([out], { title: 'Secret + PII + exfiltration detectors, ms per KB of code+docs (best of 7)' });
  return out;
}

// Adversarial inputs at 64 KB and at 1 MB through the secret, PII and exfiltration detectors:
// the ratio of time per KB (1 MB over 64 KB) is about 1 when the cost is linear and about 16 when
// it is quadratic. A ratio, not a timer: it holds on a loaded machine.
const ADVERSARIAL = {
  'one letter': () => 'a',
  'digits and spaces (phones, cards)': () => '1 ',
  'digits and dashes': () => '12-',
  'password= with no value end': () => 'password=',
  // The name-keyed rules read up to 64 name characters after the credential word: a bounded run.
  'password + long name, no value': () => `password${'_a'.repeat(32)} `,
  'key: random-ish': () => 'key: Zx9',
  'open image links': () => '![x](https://e.example/p.png?q=',
  'e-mail fragments': () => 'a.b@c',
  'IPv6 fragments': () => 'fe80:',
  'AKIA prefixes': () => 'AKIA',
  'zero-width in digits': () => '4\u200b1',
  'full-width digits': () => '４１',
  'base64 run': () => 'QUJD',
  'quote and equals': () => '"=',
};

export async function linearity() {
  const dist = join(REPO_ROOT, 'packages', 'guardrail-server', 'dist', 'detectors');
  const s = await import(join(dist, 'secrets.js'));
  const p = await import(join(dist, 'pii.js'));
  const e = await import(join(dist, 'exfil.js'));
  const time = (text) => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      s.detectSecrets(text);
      p.detectPii(text);
      e.detectExfiltration(text);
      best = Math.min(best, performance.now() - t0);
    }
    return best;
  };
  const rows = [];
  for (const [name, unit] of Object.entries(ADVERSARIAL)) {
    const u = unit();
    const small = u.repeat(Math.ceil(65536 / u.length)).slice(0, 65536);
    const big = u.repeat(Math.ceil(1048576 / u.length)).slice(0, 1048576);
    const ts = time(small);
    const tb = time(big);
    rows.push({
      input: name,
      'ms 64 KB': round(ts, 2),
      'ms 1 MB': round(tb, 1),
      'ratio per KB (1 = linear, 16 = quadratic)': round(tb / 16 / ts, 2),
    });
  }
  printTable(rows, { title: 'Linearity: secret + PII + exfiltration detectors on adversarial input (best of 3)' });
  return rows;
}

export default async function run() {
  const baton = await import('@baton/guardrail-server');
  const og = await tryImport('@openai/guardrails');
  const llmGuardMod = await tryImport('llm-guard');
  const redactpii = await tryImport('@redactpii/node');
  const skipped = {};
  for (const [k, v] of Object.entries({ '@openai/guardrails': og, 'llm-guard': llmGuardMod, '@redactpii/node': redactpii }))
    if (v.__error) skipped[k] = v.__error;
  skipped['llm-guard secrets / exfiltration'] = 'llm-guard (npm) has no secrets or URL scanner';

  // Baton through the public engine API: secrets in an AGENT_RESPONSE (default policy BLOCKs),
  // PII in an AGENT_INPUT with PII set to MODIFY (the default ALLOWs PII in inputs), exfiltration
  // in an AGENT_RESPONSE (default policy). Injection is off so only the measured detector counts.
  const injectionOff = { agent_input: 'ALLOW', tool_output: 'ALLOW', agent_handoff: 'ALLOW' };
  const engine = baton.createGuardrailEngine({ policy: { injection: injectionOff, pii: { agent_input: 'MODIFY' } } });
  const strictEngine = baton.createGuardrailEngine({
    policy: { injection: injectionOff, secrets: { disabled_rules: [...baton.NAME_KEYED_SECRET_RULES] } },
  });
  let i = 0;
  const finds = (eng, actionType, detector) => async (r) =>
    (eng.validateSync(request(actionType, r.text, i++)).findings ?? []).some((f) => f.detector === detector);
  const blocks = (eng, actionType, detector) => async (r) => {
    const answer = eng.validateSync(request(actionType, r.text, i++));
    return answer.decision === 'BLOCK' && (answer.findings ?? []).some((f) => f.detector === detector);
  };
  const batonFinds = (actionType, detector) => finds(engine, actionType, detector);

  const result = { heldout_dir: HELDOUT_DIR, eval_dir: EVAL_DIR, skipped };
  const label = (dev, held) => ({ 'dev (tuned on)': dev, ...held });

  // ------------------------------------------------------------------ secrets
  const secDev = load(EVAL_DIR, 'secrets.jsonl');
  const secHeld = SKIP_HELDOUT ? [] : load(HELDOUT_DIR, 'secrets.jsonl');
  const bySrc = (rows, prefix) => rows?.filter((r) => r.source.startsWith(prefix));
  const benign = benignCodeChunks();
  const TUNING_DIR = resolve(process.env.BATON_TUNING_DIR ?? '/work/tuning');
  const own = (rows, prefix, family) =>
    rows.map(([text, lbl], k) => ({ id: `${prefix}-${k}`, text, label: lbl, source: 'baton-own', family }));
  const secSets = label(secDev, {
    'gitleaks tps/fps (tuned on)': load(TUNING_DIR, 'secrets-gitleaks.jsonl'),
    'trufflehog pattern tests (tuned on)': load(TUNING_DIR, 'secrets-trufflehog.jsonl'),
    'own rows (tuned on)': own(OWN_SECRET_ROWS, 'own-sec', 'own'),
    'code+docs chunks (tuned on)': benign,
    'HELD-OUT noseyparker': bySrc(secHeld, 'praetorian-inc/noseyparker'),
    'HELD-OUT detect-secrets': bySrc(secHeld, 'Yelp/detect-secrets'),
  });
  const secEngines = {
    'baton engine, any finding (BLOCK or redact)': batonFinds('AGENT_RESPONSE', 'secrets'),
    'baton engine, BLOCK only': blocks(engine, 'AGENT_RESPONSE', 'secrets'),
    'baton, provider rules only': finds(strictEngine, 'AGENT_RESPONSE', 'secrets'),
  };
  if (og.secretKeysCheck) {
    for (const threshold of ['balanced', 'permissive'])
      secEngines[`@openai/guardrails secret keys (${threshold})`] = async (r) =>
        (await og.secretKeysCheck({}, r.text, { threshold })).tripwireTriggered;
  }
  result.secrets = await table(
    'Secrets (row level; recall / FPR). dev = tuned on; HELD-OUT = never tuned on',
    secSets,
    secEngines,
    secretFamily,
  );

  // ------------------------------------------------------------------ PII
  const piiDevRaw = load(EVAL_DIR, 'pii.jsonl');
  const piiDev = piiDevRaw?.map((r) => ({ ...r, label: r.spans.some((s) => STRUCTURED.includes(s.type)) ? 1 : 0 }));
  const piiHeld = SKIP_HELDOUT ? [] : load(HELDOUT_DIR, 'pii.jsonl');
  const piiSets = label(piiDev, {
    'own rows (tuned on)': own(OWN_PII_ROWS, 'own-pii', 'own'),
    'code+docs chunks (tuned on)': benign,
    'libphonenumber examples (tuned on)': load(TUNING_DIR, 'phones.jsonl')?.map((r) => ({ ...r, family: 'phone' })),
    'Faker phones + generated look-alikes (tuned on)': load(TUNING_DIR, 'pii-generated.jsonl')?.map((r) => ({
      ...r,
      family: r.family.startsWith('phone:') ? 'phone' : r.family,
    })),
    'HELD-OUT presidio tests': bySrc(piiHeld, 'microsoft/presidio'),
    'HELD-OUT detect-secrets ip': bySrc(piiHeld, 'Yelp/detect-secrets'),
  });
  const piiEngines = { 'baton engine': batonFinds('AGENT_INPUT', 'pii') };
  if (og.pii)
    piiEngines['@openai/guardrails pii'] = async (r) =>
      Object.keys((await og.pii({}, r.text, { entities: STRUCTURED, block: true })).info?.detected_entities ?? {}).length > 0;
  if (redactpii.Redactor) {
    const redactor = new redactpii.Redactor({ rules: { CREDIT_CARD: true, EMAIL: true, PHONE: true, SSN: true, NAME: false } });
    piiEngines['@redactpii/node'] = async (r) => redactor.hasPII(r.text);
  }
  if (llmGuardMod.LLMGuard) {
    const g = new llmGuardMod.LLMGuard({
      pii: true,
      promptInjection: false,
      jailbreak: false,
      profanity: false,
      toxicity: false,
      relevance: false,
    });
    piiEngines['llm-guard pii'] = async (r) => !(await g.validate(r.text)).isValid;
  }
  result.pii = await table(
    'Structured PII (row level; recall / FPR). dev = tuned on; HELD-OUT = never tuned on',
    piiSets,
    piiEngines,
    (r) => r.family,
  );

  // ------------------------------------------------------------------ exfiltration
  const exf = load(EVAL_DIR, 'exfil.jsonl');
  const exfEngines = {
    'baton engine (AGENT_RESPONSE)': batonFinds('AGENT_RESPONSE', 'exfiltration'),
    'baton detectExfiltration': async (r) => baton.detectExfiltration(r.text).length > 0,
  };
  if (og.urls) exfEngines['@openai/guardrails url filter (default)'] = async (r) => (await og.urls({}, r.text, {})).tripwireTriggered;
  result.exfiltration = await table(
    'Exfiltration (row level; recall / FPR). dev = tuned on; no held-out exfil source',
    { 'dev (tuned on)': exf },
    exfEngines,
    () => undefined,
  );
  result.detector_cost = await detectorCost(benign);
  if (process.env.BATON_SKIP_LINEARITY !== '1') result.linearity = await linearity();
  if (!secHeld || !piiHeld) console.log(`held-out sets not found in ${HELDOUT_DIR}: run python3 bench/guardrail-eval/build-heldout.py`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  if (process.env.BATON_EVAL_JSON) console.log(JSON.stringify(r, null, 2));
}
