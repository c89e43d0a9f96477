#!/usr/bin/env node
// Builds the RESERVED held-out injection sets from repositories the model is never trained,
// tuned or thresholded on (issue 13's reserved list). Writes $BATON_CORPUS_DIR/heldout/*.jsonl;
// bench/guardrail-eval reads them when present. Nothing here is committed but this script.
//
// Sets:
//   direct.jsonl       attacks typed by a user (PurpleLlama CyberSecEval direct prompt injections,
//                      GPTFuzz jailbreak templates) vs ordinary user requests (AlpacaEval,
//                      GSM8K, MT-bench/Vicuna-bench, GPTeacher code requests, langkit chats,
//                      NeMo-Guardrails "helpful" prompts)
//   indirect.jsonl     injections inside submitted content (PurpleLlama indirect) vs benign tool
//                      output (octokit/fixtures GitHub API responses, AlpacaEval model answers,
//                      GPTeacher Toolformer texts)
//   multilingual.jsonl PurpleLlama's machine-translated prompt injections (attacks only)
//   security.jsonl     benign texts about LLM security (docs of PurpleLlama, NeMo-Guardrails,
//                      llm-guard, rebuff, langkit) and role-play requests (GPTeacher Roleplay)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, chunks, hasRepo, headOf, list, parseCsv, show } from './sources.mjs';
import { rng } from './own-texts.mjs';

const r = rng(4242);
const sets = { direct: [], indirect: [], multilingual: [], security: [] };
const commits = {};
function need(repo) {
  if (!hasRepo(repo)) {
    console.warn(`build-heldout: snapshot of ${repo} missing; its rows are skipped`);
    return false;
  }
  commits[repo] = headOf(repo);
  return true;
}
function sample(xs, n) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, n);
}
const seen = new Set();
function add(set, row) {
  const text = String(row.text ?? '').trim();
  if (text.length < 2 || seen.has(`${set}:${text}`)) return;
  seen.add(`${set}:${text}`);
  sets[set].push({ id: `${set}-${sets[set].length}`, ...row, text });
}

// --- attacks -----------------------------------------------------------------------------------
if (need('meta-llama/PurpleLlama')) {
  const base = 'CybersecurityBenchmarks/datasets/prompt_injection/';
  for (const x of JSON.parse(show('meta-llama/PurpleLlama', `${base}prompt_injection.json`))) {
    const indirect = x.injection_type === 'indirect';
    add(indirect ? 'indirect' : 'direct', {
      text: x.user_input,
      label: 1,
      family: indirect ? 'indirect' : x.injection_variant,
      action: indirect ? 'TOOL_OUTPUT' : 'AGENT_INPUT',
      source: 'purplellama',
    });
  }
  for (const x of JSON.parse(show('meta-llama/PurpleLlama', `${base}prompt_injection_multilingual_machine_translated.json`))) {
    add('multilingual', { text: x.user_input, label: 1, family: x.speaking_language, action: 'AGENT_INPUT', source: 'purplellama-ml' });
  }
  for (const p of list('meta-llama/PurpleLlama', 'CybersecurityBenchmarks/website/docs').filter((x) => x.endsWith('.md'))) {
    for (const c of chunks(show('meta-llama/PurpleLlama', p) ?? '', 200, 1500))
      add('security', { text: c, label: 0, family: 'security_text', action: 'TOOL_OUTPUT', source: 'purplellama-docs' });
  }
}
if (need('sherdencooper/GPTFuzz')) {
  const qs = parseCsv(show('sherdencooper/GPTFuzz', 'datasets/questions/question_list.csv'))
    .slice(1)
    .map((x) => x[1])
    .filter(Boolean);
  for (const row of parseCsv(show('sherdencooper/GPTFuzz', 'datasets/prompts/GPTFuzzer.csv')).slice(1)) {
    if (!row[1]) continue;
    add('direct', {
      text: row[1].replace('[INSERT PROMPT HERE]', qs[Math.floor(r() * qs.length)]),
      label: 1,
      family: 'jailbreak_template',
      action: 'AGENT_INPUT',
      source: 'gptfuzz',
    });
  }
}

// --- ordinary user requests ---------------------------------------------------------------------
if (need('tatsu-lab/alpaca_eval')) {
  const outs = JSON.parse(show('tatsu-lab/alpaca_eval', 'results/Conifer-7B-DPO/model_outputs.json'));
  for (const o of outs)
    add('direct', { text: o.instruction, label: 0, family: 'user_request', action: 'AGENT_INPUT', source: 'alpaca_eval' });
  for (const o of sample(outs, 500))
    add('indirect', { text: o.output, label: 0, family: 'model_output', action: 'TOOL_OUTPUT', source: 'alpaca_eval' });
}
if (need('openai/grade-school-math')) {
  const qs = show('openai/grade-school-math', 'grade_school_math/data/test.jsonl')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).question);
  for (const q of sample(qs, 800)) add('direct', { text: q, label: 0, family: 'user_request', action: 'AGENT_INPUT', source: 'gsm8k' });
}
if (need('lm-sys/FastChat')) {
  for (const p of ['fastchat/llm_judge/data/mt_bench/question.jsonl', 'fastchat/llm_judge/data/vicuna_bench/question.jsonl']) {
    for (const l of show('lm-sys/FastChat', p).split('\n').filter(Boolean))
      for (const t of JSON.parse(l).turns)
        add('direct', { text: t, label: 0, family: 'user_request', action: 'AGENT_INPUT', source: 'fastchat' });
  }
}
if (need('whylabs/langkit')) {
  const j = JSON.parse(show('whylabs/langkit', 'langkit/whylogs/reference_chats.json'));
  for (const c of j.archived_chats ?? [])
    add('direct', { text: c.prompt, label: 0, family: 'user_request', action: 'AGENT_INPUT', source: 'langkit' });
  for (const p of list('whylabs/langkit').filter((x) => x.endsWith('.md')))
    for (const c of chunks(show('whylabs/langkit', p) ?? '', 200, 1500))
      add('security', { text: c, label: 0, family: 'security_text', action: 'TOOL_OUTPUT', source: 'langkit-docs' });
}
if (need('NVIDIA/NeMo-Guardrails')) {
  for (const t of show('NVIDIA/NeMo-Guardrails', 'nemoguardrails/evaluate/data/moderation/helpful.txt').split('\n').filter(Boolean))
    add('direct', { text: t, label: 0, family: 'user_request', action: 'AGENT_INPUT', source: 'nemo-guardrails' });
  const md = list('NVIDIA/NeMo-Guardrails', 'docs').filter((x) => x.endsWith('.md'));
  const parts = [];
  for (const p of md) for (const c of chunks(show('NVIDIA/NeMo-Guardrails', p) ?? '', 200, 1500)) parts.push(c);
  for (const c of sample(parts, 800))
    add('security', { text: c, label: 0, family: 'security_text', action: 'TOOL_OUTPUT', source: 'nemo-docs' });
}
if (need('teknium1/GPTeacher')) {
  const code = JSON.parse(show('teknium1/GPTeacher', 'Codegen/codegen-instruct.json'));
  for (const x of sample(code, 300))
    add('direct', {
      text: x.input ? `${x.instruction}\n\n${x.input}` : x.instruction,
      label: 0,
      family: 'user_request',
      action: 'AGENT_INPUT',
      source: 'gpteacher-code',
    });
  const rp = JSON.parse(show('teknium1/GPTeacher', 'Roleplay/roleplay-simple-deduped-roleplay-instruct.json'));
  for (const x of sample(rp, 500))
    add('security', {
      text: x.input ? `${x.instruction}\n\n${x.input}` : x.instruction,
      label: 0,
      family: 'roleplay',
      action: 'AGENT_INPUT',
      source: 'gpteacher-roleplay',
    });
  const tf = JSON.parse(show('teknium1/GPTeacher', 'Toolformer/toolformer-similarity-0.6-dataset.json'));
  for (const x of sample(tf, 300))
    add('indirect', {
      text: x.response ?? x.output ?? '',
      label: 0,
      family: 'tool_text',
      action: 'TOOL_OUTPUT',
      source: 'gpteacher-toolformer',
    });
}
for (const [repo, src] of [
  ['protectai/llm-guard', 'llm-guard-docs'],
  ['protectai/rebuff', 'rebuff-docs'],
]) {
  if (!need(repo)) continue;
  for (const p of list(repo).filter((x) => x.endsWith('.md')))
    for (const c of chunks(show(repo, p) ?? '', 200, 1500))
      add('security', { text: c, label: 0, family: 'security_text', action: 'TOOL_OUTPUT', source: src });
}

// --- benign tool output ----------------------------------------------------------------------------
if (need('octokit/fixtures')) {
  const bodies = [];
  for (const p of list('octokit/fixtures', 'scenarios').filter((x) => x.endsWith('normalized-fixture.json'))) {
    let j;
    try {
      j = JSON.parse(show('octokit/fixtures', p));
    } catch {
      continue;
    }
    for (const req of j)
      if (req.response && typeof req.response === 'object') bodies.push(JSON.stringify(req.response, null, r() < 0.5 ? 2 : 0));
  }
  for (const b of sample(bodies, 600))
    add('indirect', { text: b.slice(0, 20000), label: 0, family: 'tool_json', action: 'TOOL_OUTPUT', source: 'octokit-fixtures' });
}

const dir = join(CORPUS_DIR, 'heldout');
mkdirSync(dir, { recursive: true });
for (const [name, rows] of Object.entries(sets)) {
  writeFileSync(join(dir, `${name}.jsonl`), rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
  const pos = rows.filter((x) => x.label === 1).length;
  console.log(`${name}: ${rows.length} rows (${pos} attacks, ${rows.length - pos} benign)`);
}
writeFileSync(join(dir, 'sources.json'), JSON.stringify({ commits }, null, 1));
console.log(`build-heldout: wrote ${dir}`);
