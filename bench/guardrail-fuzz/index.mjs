// Long fuzz run of the guardrail service (issue 14): by default 100,000 generated requests -
// malformed, truncated, huge, deep, long-keyed, `__proto__`-laden, invisible characters, planted
// secrets, canaries and card numbers (plain and obfuscated) - against `baton guardrail serve`'s
// setup (the engine on its worker pool) in a child process, 16 at a time over keep-alive.
//
//   node bench/guardrail-fuzz/index.mjs [--requests 100000] [--concurrency 16] [--seed 14]
//
// Reports: server crashes, 5xx, hangs (no answer in 15 s), malformed answers, echoes of a planted
// value, planted values ALLOWed, /healthz failures and latency during the run, and the server's
// RSS before and after. Needs built packages. Writes bench/results/guardrail-fuzz.json.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { printTable, round, summarize, writeResult } from '../lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const REQUESTS = arg('requests', 100_000);
const CONCURRENCY = arg('concurrency', 16);
const SEED = arg('seed', 14);
const HANG_MS = 15_000;

// mulberry32: a small seeded PRNG, so a run can be repeated.
let state = SEED >>> 0;
const rand = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (n) => Math.floor(rand() * n);
const pick = (list) => list[int(list.length)];

// Test credentials are assembled at run time so the source never holds a token-shaped literal.
const PLANTS = [
  'AKIA' + 'Q3ZRT7WXP2MN4KVB',
  'ghp_' + 'Zq8Lm3Xv7Rt2Np5Kw9Hy4Bc6Df1Gj0Qs' + 'Ue7T',
  'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' + 'Xy',
  'BATON-CANARY-' + '0123456789abcdef0123',
  '4111111111111111',
  '5500 0000 0000 0004',
];
const INVISIBLE = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u00ad',
  '\ufeff',
  '\u200e',
  '\u202e',
  '\u2066',
  '\u{e0020}',
  '\ufe0f',
  '\u{e0100}',
  '\u034f',
];
const WORDS = [
  'order',
  'status',
  'please',
  'summary',
  'report',
  'the',
  'ticket',
  'ignore',
  'previous',
  'hello',
  'meeting',
  'résumé',
  'über',
  '数据',
  'данные',
];
const MEMBER = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'a', 'b', 'note', 'list'];

function obfuscate(value) {
  let out =
    rand() < 0.3 && !value.startsWith('BATON')
      ? [...value].map((c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('')
      : value;
  const cps = [...out];
  for (let k = int(4); k > 0; k--) cps.splice(1 + int(cps.length - 1), 0, pick(INVISIBLE));
  return cps.join('');
}
const text = () => Array.from({ length: 1 + int(12) }, () => pick(WORDS)).join(' ');
function key() {
  const r = rand();
  if (r < 0.05) return 'k'.repeat(16_384 + int(4000));
  if (r < 0.3) return pick(MEMBER);
  return text().slice(0, 1 + int(20));
}
/** A JSON object text with own members (including `__proto__`) and maybe a planted value. */
function objectText(depth, plant) {
  const members = [];
  for (let n = int(5); n > 0; n--) {
    const k = key();
    const v = depth > 0 && rand() < 0.4 ? objectText(depth - 1, undefined) : rand() < 0.2 ? String(int(1e6)) : JSON.stringify(text());
    members.push(`${JSON.stringify(k)}:${v}`);
  }
  if (plant !== undefined)
    members.splice(
      int(members.length + 1),
      0,
      rand() < 0.5 ? `${JSON.stringify(plant)}:1` : `"planted_note":${JSON.stringify(`see ${plant} here`)}`,
    );
  return `{${members.join(',')}}`;
}

let seq = 0;
const trace = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' };
const head = (type) =>
  `"action_id":"00000000-0000-4000-8000-${String(++seq % 1e12).padStart(12, '0')}","action_type":"${type}","source_agent_id":"io.fuzz.a","thread_id":"t${int(50)}","trace":${JSON.stringify(trace)}`;

/** One generated request: body, content type, and the planted value if any (must not pass or echo). */
function generate() {
  const r = rand();
  const plantRaw = rand() < 0.35 ? pick(PLANTS) : undefined;
  const plant = plantRaw && rand() < 0.6 ? obfuscate(plantRaw) : plantRaw;
  const depth = int(4);
  if (r < 0.3)
    return {
      body: `{${head('AGENT_HANDOFF')},"payload":{"target_agent_id":"io.fuzz.b","input":${JSON.stringify(text())},"state":${objectText(depth, plant)}}}`,
      plant: plant && [plant, plantRaw],
    };
  if (r < 0.6)
    return {
      body: `{${head('TOOL_CALL')},"payload":{"id":"c1","type":"function","function":{"name":"${pick(['send_email', 'lookup', 'http_post'])}","arguments":${JSON.stringify(objectText(depth, plant))}}}}`,
      plant: plant && [plant, plantRaw],
    };
  if (r < 0.68)
    return {
      body: `{${head(pick(['AGENT_INPUT', 'AGENT_RESPONSE']))},"payload":${JSON.stringify(text() + (rand() < 0.3 ? pick(INVISIBLE) + text() : ''))}}`,
    };
  if (r < 0.72)
    return {
      body: `{${head('TOOL_OUTPUT')},"payload":{"tool_call_id":"c1","name":"${pick(['fetch_url', 'read_file'])}","output":${JSON.stringify(text())}}}`,
    };
  if (r < 0.76) {
    const d = 1 + int(200);
    return {
      body: `{${head('AGENT_HANDOFF')},"payload":{"target_agent_id":"io.fuzz.b","input":"x","state":${'{"a":'.repeat(d)}"x"${'}'.repeat(d)}}}`,
    };
  }
  if (r < 0.8) {
    const valid = `{${head('AGENT_INPUT')},"payload":${JSON.stringify(text())}}`;
    return { body: valid.slice(0, int(valid.length)) };
  }
  if (r < 0.84) return { body: Buffer.from(Array.from({ length: int(300) }, () => int(256))) };
  if (r < 0.87)
    return {
      body: `{${head('AGENT_INPUT')},"payload":${JSON.stringify(text())}}`,
      contentType: pick(['text/plain', 'application/json; charset=latin1', '', 'application/x-www-form-urlencoded']),
    };
  if (r < 0.9)
    return {
      body: JSON.stringify(JSON.parse(`{${head('AGENT_INPUT')},"payload":"x"}`), (k, v) =>
        k === pick(['action_id', 'trace', 'payload', 'thread_id']) ? pick([null, 1, [], {}, 'x'.repeat(300)]) : v,
      ),
    };
  if (r < 0.905) {
    // Huge: up to a little over the 1 MiB limit.
    const n = 10_000 + int(70_000);
    return {
      body: `{${head('TOOL_CALL')},"payload":{"id":"c1","type":"function","function":{"name":"lookup","arguments":${JSON.stringify(JSON.stringify({ list: Array.from({ length: n }, (_, i) => `u${i}@example.com`) }))}}}}`,
    };
  }
  return {
    body: `{${head('AGENT_HANDOFF')},"payload":{"target_agent_id":"io.fuzz.b","input":"go","state":{"${'\u200b'.repeat(int(50))}k":${JSON.stringify(text())}}}}`,
  };
}

function startServer() {
  const child = spawn(process.execPath, [join(here, '..', 'guardrail-load', 'server.mjs'), 'engine'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with code ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ url: line.trim(), child }));
  });
}
const rssMiB = (pid) => round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

export default async function run() {
  const { url, child } = await startServer();
  let crashed = false;
  child.once('exit', () => (crashed = true));
  await new Promise((r) => setTimeout(r, 1500)); // workers boot
  const rssBefore = rssMiB(child.pid);
  const counts = {
    requests: 0,
    status: {},
    decisions: {},
    server5xx: 0,
    hangs: 0,
    connectionErrors: 0,
    malformed: 0,
    echoes: 0,
    plantedAllowed: 0,
    planted: 0,
  };
  const examples = [];
  const latencies = [];
  const note = (what, detail) => examples.length < 20 && examples.push({ what, ...detail });

  let healthStop = false;
  const health = [];
  let healthFailures = 0;
  const healthLoop = (async () => {
    while (!healthStop) {
      const t = performance.now();
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) });
        await res.text();
        if (res.status !== 200) healthFailures++;
      } catch {
        healthFailures++;
      }
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const started = performance.now();
  const worker = async () => {
    while (counts.requests < REQUESTS && !crashed) {
      counts.requests++;
      const g = generate();
      const t = performance.now();
      let status;
      let text;
      try {
        const res = await fetch(`${url}/v1/validate`, {
          method: 'POST',
          headers: g.contentType === '' ? {} : { 'content-type': g.contentType ?? 'application/json' },
          body: g.body,
          signal: AbortSignal.timeout(HANG_MS),
        });
        status = res.status;
        text = await res.text();
      } catch (err) {
        if (err.name === 'TimeoutError') counts.hangs++;
        else counts.connectionErrors++;
        note('no answer', { error: err.name, cause: err.cause?.code });
        continue;
      }
      latencies.push(performance.now() - t);
      counts.status[status] = (counts.status[status] ?? 0) + 1;
      if (status >= 500 && status !== 503) counts.server5xx++;
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        counts.malformed++;
        note('answer is not JSON', { status });
        continue;
      }
      if (status === 200 && !['ALLOW', 'BLOCK', 'MODIFY'].includes(json.decision)) counts.malformed++;
      if (status !== 200 && (typeof json.error?.code !== 'string' || typeof json.error?.message !== 'string')) counts.malformed++;
      if (status === 200)
        counts.decisions[`${json.decision} ${json.reason_code}`] = (counts.decisions[`${json.decision} ${json.reason_code}`] ?? 0) + 1;
      if (g.plant && status === 200) {
        counts.planted++;
        if (json.decision === 'ALLOW') {
          counts.plantedAllowed++;
          note('planted value allowed', { plant: JSON.stringify(g.plant[0]), body: String(g.body).slice(0, 600) });
        }
        if (g.plant.some((p) => text.includes(p))) {
          counts.echoes++;
          note('planted value echoed', { plant: JSON.stringify(g.plant[0]) });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  healthStop = true;
  await healthLoop;
  const rssAfter = crashed ? undefined : rssMiB(child.pid);
  child.kill('SIGTERM');

  const lat = summarize(latencies);
  const hz = summarize(health);
  const summary = {
    requests: counts.requests,
    seconds: round(seconds),
    req_per_s: round(counts.requests / seconds),
    server_crashed: crashed,
    server_5xx: counts.server5xx,
    busy_503: counts.status[503] ?? 0,
    hangs: counts.hangs,
    connection_errors: counts.connectionErrors,
    malformed_answers: counts.malformed,
    planted: counts.planted,
    planted_allowed: counts.plantedAllowed,
    planted_echoed: counts.echoes,
    healthz_failures: healthFailures,
    healthz_p50_ms: round(hz.median),
    healthz_p99_ms: round(hz.p99),
    healthz_max_ms: round(hz.max),
    latency_p50_ms: round(lat.median),
    latency_p99_ms: round(lat.p99),
    latency_max_ms: round(lat.max),
    rss_before_mib: rssBefore,
    rss_after_mib: rssAfter,
  };
  printTable(
    Object.entries(summary).map(([metric, value]) => ({ metric, value: String(value) })),
    { title: `guardrail fuzz, seed ${SEED}` },
  );
  printTable(
    Object.entries(counts.status).map(([status, n]) => ({ status, n })),
    { title: 'answers by status' },
  );
  if (examples.length)
    printTable(
      examples.map((e) => ({ what: e.what, detail: JSON.stringify(e).slice(0, 100) })),
      { title: 'examples' },
    );
  await writeResult('guardrail-fuzz', {
    machine: { cpus: cpus().length, loadavg: loadavg() },
    seed: SEED,
    concurrency: CONCURRENCY,
    summary,
    status: counts.status,
    decisions: counts.decisions,
    examples,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
