// CPU per ordinary request of the engine alone (validateSync), this build against another build
// in the same process, interleaved: `GUARDRAIL_AB_DIST=<dir of another dist>`. Ordinary ~1 KB
// bodies of every action type (payloads.mjs), plus TOOL_CALL arguments and handoff state with a
// dozen keys (keys are inspected too since issue 14).
//
//   GUARDRAIL_AB_DIST=/tmp/old/dist node bench/guardrail-load/engine-ab.mjs [--rounds 7]
import { pathToFileURL } from 'node:url';
import { loadPayloads } from './payloads.mjs';
import { printTable, round, summarize, writeResult } from '../lib.mjs';

const other = process.env.GUARDRAIL_AB_DIST;
if (!other) {
  process.stderr.write('set GUARDRAIL_AB_DIST to the dist directory of the build to compare with\n');
  process.exit(2);
}
const i = process.argv.indexOf('--rounds');
const ROUNDS = i === -1 ? 7 : Number(process.argv[i + 1]);
const current = await import(new URL('../../packages/guardrail-server/dist/index.js', import.meta.url).href);
const baseline = await import(pathToFileURL(`${other}/index.js`).href);

const trace = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' };
const keyed = Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`field_${k}`, `value ${k} for the order 48213-77`]));
const requests = [
  ...loadPayloads(1024).map((b) => JSON.parse(b)),
  {
    action_id: '00000000-0000-4000-8000-000000000001',
    action_type: 'TOOL_CALL',
    source_agent_id: 'io.bench.a',
    thread_id: 't',
    trace,
    payload: { id: 'c', type: 'function', function: { name: 'lookup', arguments: JSON.stringify(keyed) } },
  },
  {
    action_id: '00000000-0000-4000-8000-000000000002',
    action_type: 'AGENT_HANDOFF',
    source_agent_id: 'io.bench.a',
    thread_id: 't',
    trace,
    payload: { target_agent_id: 'io.bench.b', input: 'continue', state: { customer: keyed } },
  },
];

const engines = { current: current.createGuardrailEngine(), baseline: baseline.createGuardrailEngine() };
const same = requests.every(
  (r) => JSON.stringify(engines.current.validateSync(r).decision) === JSON.stringify(engines.baseline.validateSync(r).decision),
);
const perRound = { current: [], baseline: [] };
const PER = 400;
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? ['baseline', 'current'] : ['current', 'baseline']) {
    const engine = engines[name];
    const start = process.cpuUsage();
    for (let k = 0; k < PER; k++) for (const r of requests) engine.validateSync(r);
    const used = process.cpuUsage(start);
    perRound[name].push((used.user + used.system) / 1000 / (PER * requests.length));
  }
}
const cur = summarize(perRound.current);
const base = summarize(perRound.baseline);
printTable(
  [
    { build: 'baseline', cpu_ms_per_request_median: round(base.median), min: round(base.min) },
    { build: 'current', cpu_ms_per_request_median: round(cur.median), min: round(cur.min) },
  ],
  { title: `engine CPU per ordinary request (${requests.length} bodies, ${ROUNDS} interleaved rounds); same decisions: ${same}` },
);
process.stdout.write(`ratio current/baseline (median): ${round(cur.median / base.median)}\n`);
await writeResult('guardrail-engine-ab', {
  rounds: ROUNDS,
  requests: requests.length,
  same_decisions: same,
  current: cur,
  baseline: base,
  ratio: cur.median / base.median,
});
