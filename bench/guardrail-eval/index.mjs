// Guardrail detector evaluation: Baton's engine and peer npm detectors over the labelled
// development set (../shared/eval/*.jsonl beside the repo, or $BATON_EVAL_DIR). Prints recall,
// false-positive rate and F1 per detector and per kind, the held-out numbers of the injection
// classifier, and the engine's time per 1 KB payload next to @openai/guardrails' offline checks
// on the same inputs. Writes bench/results/guardrail-eval.json. Measures; never asserts.
//
// The eval set is a DEVELOPMENT set that Baton was tuned on: dev-set numbers are optimistic.
// The injection classifier's cross-validated and held-out numbers are printed next to them.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT, measure, printTable, round, writeResult } from '../lib.mjs';
import { runInjectionHeldOut } from './injection.mjs';

const EVAL_DIR = resolve(process.env.BATON_EVAL_DIR ?? join(REPO_ROOT, '..', 'shared', 'eval'));
const STRUCTURED = new Set(['EMAIL_ADDRESS', 'PHONE_NUMBER', 'US_SSN', 'CREDIT_CARD', 'IBAN_CODE', 'IP_ADDRESS']);

function load(name) {
  return readFileSync(join(EVAL_DIR, name), 'utf8')
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

function counts() {
  return { tp: 0, fn: 0, fp: 0, tn: 0 };
}
function add(c, label, flagged) {
  c[label ? (flagged ? 'tp' : 'fn') : flagged ? 'fp' : 'tn'] += 1;
}
function rates(c) {
  const recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : null;
  const fpr = c.fp + c.tn ? c.fp / (c.fp + c.tn) : null;
  const precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : null;
  const f1 = precision && recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { recall, fpr, precision, f1, pos: c.tp + c.fn, neg: c.fp + c.tn };
}
const fmt = (v) => (v === null || v === undefined ? '-' : round(v));

// Python code-point offsets -> JS UTF-16 offsets.
function cpToUtf16(text) {
  const map = [0];
  let u = 0;
  for (const ch of text) {
    u += ch.length;
    map.push(u);
  }
  return map;
}

// Spans of detected strings (for detectors that report values, not offsets).
function spansOfStrings(text, values) {
  const out = [];
  let from = 0;
  for (const v of values) {
    if (!v) continue;
    let i = text.indexOf(v, from);
    if (i < 0) i = text.indexOf(v);
    if (i >= 0) {
      out.push({ start: i, end: i + v.length });
      from = i + v.length;
    }
  }
  return out;
}

export default async function run() {
  if (!existsSync(join(EVAL_DIR, 'injection.jsonl'))) {
    console.log(`guardrail-eval: no evaluation set at ${EVAL_DIR} (set BATON_EVAL_DIR); skipped.`);
    return;
  }
  const baton = await import('@baton/guardrail-server');
  const peersLoaded = {
    openaiGuardrails: await tryImport('@openai/guardrails'),
    vard: await tryImport('@andersmyrmel/vard'),
    llmGuard: await tryImport('llm-guard'),
    redactpii: await tryImport('@redactpii/node'),
  };
  const skipped = {};
  for (const [k, v] of Object.entries(peersLoaded)) if (v.__error) skipped[k] = v.__error;
  skipped['@openai/guardrails prompt injection / jailbreak'] = 'needs an LLM (OpenAI API); not run offline';

  const engine = baton.createGuardrailEngine();
  const result = { eval_dir: EVAL_DIR, note: 'development set: Baton was tuned on it', skipped };

  // ---------------------------------------------------------------- injection
  const inj = load('injection.jsonl');
  const vardGuard = peersLoaded.vard.default ? peersLoaded.vard.default.moderate().maxLength(10_000_000) : undefined;
  const llmGuard = peersLoaded.llmGuard.LLMGuard
    ? new peersLoaded.llmGuard.LLMGuard({
        promptInjection: true,
        jailbreak: true,
        pii: false,
        profanity: false,
        toxicity: false,
        relevance: false,
      })
    : undefined;
  const injEngines = {
    'baton (classifier)': async (r) =>
      baton.detectInjection(r.text, { actionType: r.kind === 'indirect' ? 'tool_output' : 'agent_input' }).flagged,
    'baton (engine decision)': async (r) => {
      const req =
        r.kind === 'indirect'
          ? {
              action_id: '00000000-0000-4000-8000-000000000001',
              action_type: 'TOOL_OUTPUT',
              source_agent_id: 'io.bench.a',
              thread_id: `t-${r.id}`,
              trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
              payload: { tool_call_id: 'c1', name: 'read_document', output: r.text },
            }
          : {
              action_id: '00000000-0000-4000-8000-000000000001',
              action_type: 'AGENT_INPUT',
              source_agent_id: 'io.bench.a',
              thread_id: `t-${r.id}`,
              trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
              payload: r.text,
            };
      return engine.validateSync(req).decision !== 'ALLOW';
    },
  };
  if (vardGuard) injEngines['@andersmyrmel/vard (moderate)'] = async (r) => !vardGuard.safeParse(r.text).safe;
  if (llmGuard) injEngines['llm-guard (injection+jailbreak)'] = async (r) => !(await llmGuard.validate(r.text)).isValid;

  const injRows = [];
  const injByCategory = [];
  result.injection = {};
  for (const [name, fn] of Object.entries(injEngines)) {
    const all = counts();
    const byKind = {};
    const byCat = {};
    const byPos = {};
    for (const r of inj) {
      let flagged;
      try {
        flagged = await fn(r);
      } catch {
        flagged = true; // a detector that throws on an input refuses it
      }
      add(all, r.label, flagged);
      add((byKind[r.kind] ??= counts()), r.label, flagged);
      if (r.source.startsWith('microsoft/BIPIA') && r.meta) {
        if (r.label === 1) add((byCat[r.meta.attack_category] ??= counts()), 1, flagged);
        add((byPos[`${r.meta.construction}/${r.meta.position ?? '-'}`] ??= counts()), r.label, flagged);
      }
    }
    result.injection[name] = {
      all: rates(all),
      byKind: Object.fromEntries(Object.entries(byKind).map(([k, c]) => [k, rates(c)])),
      bipiaByCategory: Object.fromEntries(Object.entries(byCat).map(([k, c]) => [k, rates(c)])),
      bipiaByConstruction: Object.fromEntries(Object.entries(byPos).map(([k, c]) => [k, rates(c)])),
    };
    const row = { detector: name, recall: fmt(rates(all).recall), fpr: fmt(rates(all).fpr), f1: fmt(rates(all).f1) };
    for (const k of ['direct', 'indirect', 'jailbreak', 'extraction']) {
      const rr = rates(byKind[k] ?? counts());
      row[`${k} R/FPR`] = `${fmt(rr.recall)}/${fmt(rr.fpr)}`;
    }
    injRows.push(row);
    for (const [cat, c] of Object.entries(byCat))
      injByCategory.push({ detector: name, attack_category: cat, n: c.tp + c.fn, recall: fmt(rates(c).recall) });
  }
  printTable(injRows, { title: 'Prompt injection (injection.jsonl, DEV SET: tuned on, in the training corpus; row level)' });
  printTable(
    injByCategory.filter((r) => r.detector === 'baton (classifier)'),
    { title: 'BIPIA recall per attack_category (baton classifier, dev set: tuned on)' },
  );
  const { INJECTION_MODEL } = await import('../../packages/guardrail-server/dist/detectors/injection-model.generated.js');
  result.injection_classifier_test_split = INJECTION_MODEL.testSplit;
  console.log(
    `injection model: ${INJECTION_MODEL.trainedOn}; thresholds ${JSON.stringify(INJECTION_MODEL.thresholds)}; in-distribution test-split AUC ${INJECTION_MODEL.testSplit.auc} (training corpus, same sources: not a held-out result)`,
  );
  await runInjectionHeldOut(result, { baton, engine, peers: { vard: vardGuard, llmGuard } });

  // ---------------------------------------------------------------- PII
  const pii = load('pii.jsonl');
  const og = peersLoaded.openaiGuardrails;
  const piiSpanEngines = {
    baton: async (text) => baton.detectPii(text).map((s) => ({ type: s.type, start: s.start, end: s.end })),
  };
  if (og.pii) {
    piiSpanEngines['@openai/guardrails pii'] = async (text) => {
      const r = await og.pii({}, text, { entities: [...STRUCTURED], block: true });
      const det = r.info?.detected_entities ?? {};
      return Object.entries(det).flatMap(([type, values]) => spansOfStrings(text, values).map((s) => ({ type, ...s })));
    };
  }
  const redactor = peersLoaded.redactpii.Redactor
    ? new peersLoaded.redactpii.Redactor({ rules: { CREDIT_CARD: true, EMAIL: true, PHONE: true, SSN: true, NAME: false } })
    : undefined;
  const llmGuardPii = peersLoaded.llmGuard.LLMGuard
    ? new peersLoaded.llmGuard.LLMGuard({
        pii: true,
        promptInjection: false,
        jailbreak: false,
        profanity: false,
        toxicity: false,
        relevance: false,
      })
    : undefined;
  const piiRowEngines = { ...piiSpanEngines };
  if (redactor) piiRowEngines['@redactpii/node'] = async (text) => (redactor.hasPII(text) ? [{ type: '?', start: 0, end: 0 }] : []);
  if (llmGuardPii)
    piiRowEngines['llm-guard pii'] = async (text) => (!(await llmGuardPii.validate(text)).isValid ? [{ type: '?', start: 0, end: 0 }] : []);

  result.pii = {};
  const piiRows = [];
  for (const [name, fn] of Object.entries(piiRowEngines)) {
    const spanLevel = name in piiSpanEngines;
    const span = { tp: 0, fp: 0, fn: 0 };
    const perType = {};
    const row = counts();
    for (const r of pii) {
      const map = cpToUtf16(r.text);
      const gold = r.spans.filter((s) => STRUCTURED.has(s.type)).map((s) => ({ type: s.type, start: map[s.start], end: map[s.end] }));
      const pred = await fn(r.text);
      add(row, gold.length > 0, pred.length > 0);
      if (!spanLevel) continue;
      const used = new Set();
      for (const p of pred) {
        const g = gold.findIndex((g, i) => !used.has(i) && g.type === p.type && p.start < g.end && g.start < p.end);
        const t = (perType[p.type] ??= { tp: 0, fp: 0, fn: 0 });
        if (g >= 0) {
          used.add(g);
          span.tp++;
          t.tp++;
        } else {
          span.fp++;
          t.fp++;
        }
      }
      gold.forEach((g, i) => {
        if (!used.has(i)) {
          span.fn++;
          (perType[g.type] ??= { tp: 0, fp: 0, fn: 0 }).fn++;
        }
      });
    }
    const prf = (c) => {
      const p = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0;
      const rc = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0;
      return { precision: p, recall: rc, f1: p + rc ? (2 * p * rc) / (p + rc) : 0 };
    };
    result.pii[name] = {
      row: rates(row),
      span: spanLevel ? { ...prf(span), ...span } : null,
      perType: Object.fromEntries(Object.entries(perType).map(([k, c]) => [k, prf(c)])),
    };
    const rr = rates(row);
    const sp = spanLevel ? prf(span) : undefined;
    piiRows.push({
      detector: name,
      'span P': sp ? fmt(sp.precision) : '-',
      'span R': sp ? fmt(sp.recall) : '-',
      'span F1': sp ? fmt(sp.f1) : '-',
      'row recall': fmt(rr.recall),
      'row FPR': fmt(rr.fpr),
      'row F1': fmt(rr.f1),
      ...(sp ? Object.fromEntries([...STRUCTURED].map((t) => [t, fmt(prf(perType[t] ?? { tp: 0, fp: 0, fn: 1 }).f1)])) : {}),
    });
  }
  printTable(piiRows, {
    title: 'Structured PII (pii.jsonl, dev set; spans: overlap match with the same type; rows: has any structured PII)',
  });

  // ---------------------------------------------------------------- secrets
  const sec = load('secrets.jsonl');
  const secEngines = { baton: async (t) => baton.detectSecrets(t).length > 0 };
  if (og.secretKeysCheck) {
    for (const threshold of ['balanced', 'permissive']) {
      secEngines[`@openai/guardrails secret keys (${threshold})`] = async (t) =>
        (await og.secretKeysCheck({}, t, { threshold })).tripwireTriggered;
    }
  }
  result.secrets = {};
  const secRows = [];
  for (const [name, fn] of Object.entries(secEngines)) {
    const all = counts();
    const bySource = {};
    const noGcpAllowlist = counts();
    for (const r of sec) {
      const flagged = await fn(r.text);
      add(all, r.label, flagged);
      add((bySource[r.source.split(':')[0]] ??= counts()), r.label, flagged);
      if (!(r.label === 0 && r.rule === 'gitleaks:gcp-api-key')) add(noGcpAllowlist, r.label, flagged);
    }
    result.secrets[name] = {
      all: rates(all),
      bySource: Object.fromEntries(Object.entries(bySource).map(([k, c]) => [k, rates(c)])),
      excludingGitleaksGcpAllowlist: rates(noGcpAllowlist),
    };
    secRows.push({
      detector: name,
      recall: fmt(rates(all).recall),
      fpr: fmt(rates(all).fpr),
      f1: fmt(rates(all).f1),
      'FPR w/o gcp allowlist rows': fmt(rates(noGcpAllowlist).fpr),
      ...Object.fromEntries(
        Object.entries(bySource).map(([k, c]) => [`${k.split('/').pop()} R/FPR`, `${fmt(rates(c).recall)}/${fmt(rates(c).fpr)}`]),
      ),
    });
  }
  printTable(secRows, { title: 'Secrets (secrets.jsonl, dev set; row level)' });

  // ---------------------------------------------------------------- exfiltration
  const exf = load('exfil.jsonl');
  const exfEngines = { baton: async (t) => baton.detectExfiltration(t).length > 0 };
  if (og.urls) exfEngines['@openai/guardrails url filter (default)'] = async (t) => (await og.urls({}, t, {})).tripwireTriggered;
  result.exfiltration = {};
  const exfRows = [];
  for (const [name, fn] of Object.entries(exfEngines)) {
    const all = counts();
    for (const r of exf) add(all, r.label, await fn(r.text));
    result.exfiltration[name] = rates(all);
    exfRows.push({ detector: name, recall: fmt(rates(all).recall), fpr: fmt(rates(all).fpr), f1: fmt(rates(all).f1) });
  }
  printTable(exfRows, { title: 'Exfiltration links (exfil.jsonl, dev set; row level)' });

  // ---------------------------------------------------------------- speed per 1 KB
  const kb = [...inj.map((r) => r.text), ...sec.map((r) => r.text), ...exf.map((r) => r.text)]
    .map((t) => (t.length >= 1024 ? t.slice(0, 1024) : t.padEnd(1024, ' Lorem ipsum dolor sit amet.')))
    .filter((_, i) => i % 3 === 0);
  const asInput = (t, i) => ({
    action_id: '00000000-0000-4000-8000-000000000001',
    action_type: 'AGENT_INPUT',
    source_agent_id: 'io.bench.a',
    thread_id: `t${i}`,
    trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
    payload: t,
  });
  const reqs = kb.map(asInput);
  const engineTime = await measure((i) => engine.validateSync(reqs[i % reqs.length]), { warmup: 500, iterations: 3000 });
  const jsonBaseline = await measure((i) => JSON.parse(JSON.stringify(reqs[i % reqs.length])), { warmup: 500, iterations: 3000 });
  const timing = { inputs: kb.length, engine_validateSync_ms: engineTime, baseline_json_roundtrip_ms: jsonBaseline };
  const timingRows = [
    { what: 'baton engine validateSync (1 KB AGENT_INPUT)', median_ms: engineTime.median, p99_ms: engineTime.p99 },
    { what: 'JSON.parse(JSON.stringify(request)) baseline', median_ms: jsonBaseline.median, p99_ms: jsonBaseline.p99 },
  ];
  if (og.pii && og.secretKeysCheck && og.urls) {
    const ogTime = await measure(
      async (i) => {
        const t = kb[i % kb.length];
        await og.pii({}, t, { entities: [...STRUCTURED], block: true });
        await og.secretKeysCheck({}, t, { threshold: 'balanced' });
        await og.urls({}, t, {});
      },
      { warmup: 100, iterations: 1000 },
    );
    timing.openai_guardrails_offline_checks_ms = ogTime;
    timing.ratio_engine_to_openai_guardrails = engineTime.median / ogTime.median;
    timingRows.push({ what: '@openai/guardrails pii + secret keys + urls', median_ms: ogTime.median, p99_ms: ogTime.p99 });
  }
  printTable(timingRows, { title: `Time per 1 KB payload (${kb.length} inputs)` });
  console.log(`engine cost per KB (median of 1 KB AGENT_INPUT requests, all detectors): ${round(engineTime.median)} ms (target < 0.2 ms)`);
  if (timing.ratio_engine_to_openai_guardrails)
    console.log(`engine / @openai/guardrails offline checks (median): ${round(timing.ratio_engine_to_openai_guardrails)}`);
  result.timing = timing;
  if (Object.keys(skipped).length > 0) console.log(`skipped: ${JSON.stringify(skipped)}`);
  // Secrets / PII / exfiltration per source: dev set (tuned on) and held-out sets (never tuned on).
  result.secrets_pii_by_source = await (await import('./secrets-pii.mjs')).default();

  const file = await writeResult('guardrail-eval', result);
  console.log(`wrote ${file}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
