// Bench: @baton/skills delegation.
// 1. 16 subprocess subagents in parallel, each with 100 ms of simulated work: total wall time vs
//    the slowest single delegation in the batch (target <= 1.3x) and vs one delegation alone.
// 2. Overhead per delegation level: a bare spawn of the same Node skill (runner's spawnJsonProcess)
//    vs delegate() at depth 1, 2 and 3 (each nested level is a subprocess skill that imports
//    @baton/skills and delegates again).
// 3. Confinement: delegate() of the leaf skill under each mechanism that works here, as a ratio to
//    the same delegation under `none` (same process, same skill).
// Run after building: `node bench/delegation/index.mjs`. Writes bench/results/delegation.json.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { measure, printTable, round, summarize, writeResult, REPO_ROOT } from '../lib.mjs';

const SKILLS_DIST = pathToFileURL(path.join(REPO_ROOT, 'packages/skills/dist/index.js')).href;
const { createDelegation, detectConfinement, CONFINEMENT_MECHANISMS } = await import(SKILLS_DIST);
const { spawnJsonProcess } = await import(pathToFileURL(path.join(REPO_ROOT, 'packages/runner/dist/index.js')).href);

const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 16);
const WORK_MS = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DEPTH_SAMPLES = Number(process.env.BENCH_DEPTH_SAMPLES ?? 5);

const readPkg = `let raw = ''; process.stdin.setEncoding('utf8'); process.stdin.on('data', (c) => (raw += c));
await new Promise((r) => process.stdin.on('end', r)); const pkg = JSON.parse(raw);`;
/** Delegation refuses to run without a guardrail; the bench measures the process path, so it allows everything. */
const ALLOW = {
  validate: async (r) => ({ action_id: r.action_id, decision: 'ALLOW', reason_code: 'BENCH_ALLOW', reason_message: 'bench guardrail' }),
};
const SKILLS = {
  sleeper: `${readPkg}
await new Promise((r) => setTimeout(r, pkg.payload.ms));
process.stdout.write(JSON.stringify({ status: 'SUCCESS', output_payload: { slept: pkg.payload.ms } }));`,
  leaf: `${readPkg}
process.stdout.write(JSON.stringify({ status: 'SUCCESS', output_payload: { depth: pkg.depth } }));`,
  nester: `${readPkg}
const { createDelegation } = await import(${JSON.stringify(SKILLS_DIST)});
const [next, ...rest] = pkg.payload.chain;
const d = createDelegation({ guardrails: { validate: async (r) => ({ action_id: r.action_id, decision: 'ALLOW', reason_code: 'BENCH_ALLOW', reason_message: 'bench guardrail' }) }, skillsDir: process.env.SKILLS_DIR, workspace: process.cwd(), skillEnv: { SKILLS_DIR: process.env.SKILLS_DIR } });
const child = await d.delegate({ subagent_type: next, instruction_set: 'deeper', input_data: { chain: rest } });
process.stdout.write(JSON.stringify({ status: child.status, output_payload: { child: child.output_payload } }));`,
};

async function makeSkills() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'baton-bench-skills-'));
  for (const name of ['sleeper', 'leaf', 'nester', 'nester2']) {
    const source = SKILLS[name === 'nester2' ? 'nester' : name];
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, 'skill.mjs'), source);
    // Nesters start processes (the next skill): under Node's permission model that needs subprocess_exec.
    const capabilities = name.startsWith('nester') ? ['fs_read', 'subprocess_exec'] : ['fs_read'];
    await writeFile(
      path.join(dir, name, 'manifest.json'),
      JSON.stringify({ skill_name: name, version: '1.0.0', entry_point: 'skill.mjs', input_schema: {}, output_schema: {}, capabilities }),
    );
  }
  return dir;
}

export default async function run() {
  const skillsDir = await makeSkills();
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'baton-bench-ws-'));
  try {
    const d = createDelegation({ guardrails: ALLOW, skillsDir, workspace, maxConcurrency: PARALLEL, skillEnv: { SKILLS_DIR: skillsDir } });
    const sleep = { subagent_type: 'sleeper', instruction_set: 'sleep', input_data: { ms: WORK_MS } };
    // Warm-up (file cache, registry load).
    await d.delegate(sleep);

    const single = await measure(() => d.delegate(sleep), { warmup: 1, iterations: ROUNDS });
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const started = performance.now();
      const each = await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          const t0 = performance.now();
          const res = await d.delegate(sleep);
          if (res.status !== 'SUCCESS') throw new Error(`delegation failed: ${JSON.stringify(res.error_report)}`);
          return performance.now() - t0;
        }),
      );
      const total = performance.now() - started;
      rounds.push({ total, slowest: Math.max(...each), fastest: Math.min(...each) });
    }
    const totals = summarize(rounds.map((r) => r.total));
    const ratioSlowest = summarize(rounds.map((r) => r.total / r.slowest));
    const parallelRows = [
      { case: `1 delegation alone (${WORK_MS} ms work)`, median_ms: single.median, p99_ms: single.p99 },
      { case: `${PARALLEL} in parallel: total`, median_ms: totals.median, p99_ms: totals.max },
      {
        case: `${PARALLEL} in parallel: slowest one`,
        median_ms: summarize(rounds.map((r) => r.slowest)).median,
        p99_ms: summarize(rounds.map((r) => r.slowest)).max,
      },
      {
        case: `${PARALLEL} in parallel: fastest one`,
        median_ms: summarize(rounds.map((r) => r.fastest)).median,
        p99_ms: summarize(rounds.map((r) => r.fastest)).max,
      },
    ];
    printTable(parallelRows, { title: `${PARALLEL} subagents in parallel, ${ROUNDS} rounds (target: total <= 1.3x slowest)` });
    process.stdout.write(
      `total / slowest: median ${round(ratioSlowest.median)}x, worst ${round(ratioSlowest.max)}x; total / one alone: ${round(totals.median / single.median)}x\n`,
    );

    // Depth overhead.
    const leafCmd = { command: process.execPath, args: [path.join(skillsDir, 'leaf', 'skill.mjs')] };
    const pkg = {
      task_id: 'b',
      subagent_type: 'leaf',
      instruction_set: 'x',
      payload: {},
      success_criteria: [],
      constraints: { max_iterations: 1, timeout_ms: 60000, capabilities: [] },
      requires_approval: false,
      depth: 1,
      max_depth: 3,
      lineage: [],
    };
    const bare = await measure(() => spawnJsonProcess({ ...leafCmd, input: pkg, cwd: workspace, timeoutMs: 60000 }), {
      warmup: 1,
      iterations: DEPTH_SAMPLES,
    });
    const depthCase = async (chain) => {
      const [first, ...rest] = chain;
      return measure(
        async () => {
          const res = await d.delegate({ subagent_type: first, instruction_set: 'x', input_data: { chain: rest } });
          if (res.status !== 'SUCCESS') throw new Error(`depth ${chain.length} failed: ${JSON.stringify(res)}`);
        },
        { warmup: 1, iterations: DEPTH_SAMPLES },
      );
    };
    const depth1 = await depthCase(['leaf']);
    const depth2 = await depthCase(['nester', 'leaf']);
    const depth3 = await depthCase(['nester', 'nester2', 'leaf']);
    const depthRows = [
      { case: 'bare spawnJsonProcess of the leaf skill', median_ms: bare.median, p99_ms: bare.p99, over_previous_ms: 0 },
      { case: 'depth 1: delegate -> leaf', median_ms: depth1.median, p99_ms: depth1.p99, over_previous_ms: depth1.median - bare.median },
      {
        case: 'depth 2: delegate -> nester -> leaf',
        median_ms: depth2.median,
        p99_ms: depth2.p99,
        over_previous_ms: depth2.median - depth1.median,
      },
      {
        case: 'depth 3: delegate -> nester -> nester -> leaf',
        median_ms: depth3.median,
        p99_ms: depth3.p99,
        over_previous_ms: depth3.median - depth2.median,
      },
    ];
    printTable(depthRows, { title: `Overhead per delegation level (${DEPTH_SAMPLES} samples each)` });

    // Confinement overhead: the same leaf delegation under each mechanism, against `none`.
    const confinementRows = [];
    let noneMedian;
    for (const mechanism of [...CONFINEMENT_MECHANISMS].reverse()) {
      const info = await detectConfinement(mechanism).catch(() => undefined);
      if (!info) {
        confinementRows.push({ case: `${mechanism}: not available here`, median_ms: 0, p99_ms: 0, over_none: 0 });
        continue;
      }
      const dm = createDelegation({ guardrails: ALLOW, skillsDir, workspace, confinement: mechanism });
      const m = await measure(
        async () => {
          const res = await dm.delegate({ subagent_type: 'leaf', instruction_set: 'x', input_data: { chain: [] } });
          if (res.status !== 'SUCCESS') throw new Error(`${mechanism} failed: ${JSON.stringify(res)}`);
        },
        { warmup: 1, iterations: DEPTH_SAMPLES },
      );
      noneMedian ??= m.median;
      confinementRows.push({
        case: `${mechanism}${info.landlock ? ' + Landlock' : ''}`,
        median_ms: m.median,
        p99_ms: m.p99,
        over_none: round(m.median / noneMedian),
      });
      await dm.shutdown();
    }
    printTable(confinementRows, { title: `Confinement: delegate -> leaf per mechanism (${DEPTH_SAMPLES} samples each; ratio to none)` });

    const file = await writeResult('delegation', {
      parallel: {
        subagents: PARALLEL,
        work_ms: WORK_MS,
        rounds: rounds.map((r) => ({ total_ms: round(r.total), slowest_ms: round(r.slowest), fastest_ms: round(r.fastest) })),
        single_alone_ms: single,
        total_over_slowest: { median: round(ratioSlowest.median), worst: round(ratioSlowest.max), target: 1.3 },
        total_over_single_alone: round(totals.median / single.median),
      },
      depth: {
        bare_spawn_ms: bare,
        depth1_ms: depth1,
        depth2_ms: depth2,
        depth3_ms: depth3,
        per_level_ms: depthRows.slice(1).map((r) => round(r.over_previous_ms)),
      },
      confinement: confinementRows.map((r) => ({
        mechanism: r.case,
        median_ms: round(r.median_ms),
        p99_ms: round(r.p99_ms),
        over_none: r.over_none,
      })),
    });
    process.stdout.write(`wrote ${file}\n`);
    await d.shutdown();
  } finally {
    await rm(skillsDir, { recursive: true, force: true });
    await rm(workspace, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run();
