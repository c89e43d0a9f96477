// Summarises a V8 .cpuprofile (from `node --cpu-prof`) by self time: per area of the stack
// (Baton package, SDK, SQLite, zod, OpenTelemetry, Node internals…) and the top functions.
//
//   N=3000 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/runner-overhead/_drive.mjs
//   node bench/runner-overhead/profile-summary.mjs /tmp/prof/CPU.*.cpuprofile [--top 40] [--runs 3050] [--inclusive REGEX]
//
// --inclusive lists the total time (self and everything called) of the functions whose
// "name file" matches REGEX, e.g. 'checkGuardrail|flush|sdkRunner|startSpan'.
//
// --runs divides the times by the number of runs in the profile (warm-up included), so the areas
// read as ms per run.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const file = args.find((a) => a.endsWith('.cpuprofile'));
if (!file) throw new Error('usage: profile-summary.mjs <file.cpuprofile> [--top N] [--runs N]');
const TOP = opt('top', 40);
const INCLUSIVE = args.includes('--inclusive') ? new RegExp(args[args.indexOf('--inclusive') + 1]) : undefined;
const RUNS = opt('runs', 0);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Self time per node: the sampling interval after each sample is charged to the sampled node.
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000; // µs → ms
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
}

/** The area a frame belongs to, from its URL (order matters: the first match wins). */
const AREAS = [
  [/packages\/runner\/dist\/store|packages\/runner\/src\/store/, 'runner: store kit'],
  [/packages\/runner\//, 'runner: run loop'],
  [/packages\/queue\//, 'queue'],
  [/packages\/guardrail-server\/dist\/detectors|guardrail-server\/src\/detectors/, 'guardrail engine: detectors'],
  [/packages\/guardrail-server\//, 'guardrail engine: rest'],
  [/packages\/guardrail-client\//, 'guardrail client'],
  [/packages\/tracing\//, 'baton tracing'],
  [/packages\/manifest\/|packages\/contracts\//, 'manifest/contracts'],
  [/packages\/[^/]+\//, 'other baton packages'],
  [/@openai\/agents/, '@openai/agents'],
  [/node_modules\/zod\//, 'zod'],
  [/node_modules\/@opentelemetry\//, 'OpenTelemetry'],
  [/node_modules\/better-sqlite3\/|node:sqlite/, 'SQLite (JS side)'],
  [/node_modules\//, 'other node_modules'],
  [/^node:|^internal\/|^$/, 'node internals / native'],
];
const areaOf = (node) => {
  const url = node.callFrame.url ?? '';
  const fn = node.callFrame.functionName;
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(idle)' || fn === '(program)') return fn;
  for (const [re, name] of AREAS) if (re.test(url)) return name;
  return url ? 'other' : 'node internals / native';
};

// Native frames (no URL) are charged to the nearest JS caller's area: a SQLite step is native
// but called from the store, a JSON.stringify from whoever serialises.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const chargedArea = (node) => {
  const own = areaOf(node);
  if (own !== 'node internals / native') return own;
  for (let p = parent.get(node.id); p !== undefined; p = parent.get(p)) {
    const a = areaOf(byId.get(p));
    if (a !== 'node internals / native' && a !== '(program)') return `${a} (native below)`;
  }
  return own;
};

const areas = new Map();
const fns = new Map();
let total = 0;
for (const node of profile.nodes) {
  const ms = self.get(node.id) ?? 0;
  if (!ms) continue;
  total += ms;
  const area = chargedArea(node);
  areas.set(area, (areas.get(area) ?? 0) + ms);
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + ms);
}

const busy = total - (areas.get('(idle)') ?? 0);
const fmt = (ms) => (RUNS ? `${((ms / RUNS) * 1000).toFixed(0).padStart(6)} µs/run` : `${ms.toFixed(0).padStart(7)} ms`);
console.log(`profile ${file}: ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms not idle${RUNS ? `, ${RUNS} runs` : ''}\n`);
console.log('self time by area (share of non-idle time):');
for (const [area, ms] of [...areas].sort((a, b) => b[1] - a[1])) {
  if (area === '(idle)') continue;
  console.log(`  ${area.padEnd(48)} ${fmt(ms)} ${((100 * ms) / busy).toFixed(1).padStart(5)} %`);
}
console.log(`\ntop ${TOP} functions by self time:`);
for (const [key, ms] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
  console.log(`  ${fmt(ms)} ${((100 * ms) / busy).toFixed(1).padStart(5)} %  ${key}`);
}

if (INCLUSIVE) {
  // Each sample counts once for every distinct matching function on its stack.
  const label = (n) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  const inclusive = new Map();
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    if (!ms) continue;
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const key = label(byId.get(id));
      if (!seen.has(key) && INCLUSIVE.test(key)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
      }
    }
  }
  console.log(`\ninclusive time of functions matching ${INCLUSIVE}:`);
  for (const [key, ms] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`  ${fmt(ms)} ${((100 * ms) / busy).toFixed(1).padStart(5)} %  ${key}`);
  }
}
