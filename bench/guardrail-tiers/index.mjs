// bench/guardrail-tiers: the latency each optional tier adds to one validation, next to the
// engine alone in the same process. The LLM judge talks to a loopback HTTP server that answers
// at once (so the number is the tier's own cost: request building, HTTP, parsing); a real model
// endpoint adds its own inference time on top. The ONNX tier runs the tiny test model
// (scripts/make-tiny-onnx.mjs) when onnxruntime-node resolves (installed, or $BATON_ORT_DIR).
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measure, printTable, REPO_ROOT, round, writeResult } from '../lib.mjs';

const PKG = join(REPO_ROOT, 'packages/guardrail-server');

function findOrt() {
  for (const base of [join(PKG, 'package.json'), process.env.BATON_ORT_DIR && join(process.env.BATON_ORT_DIR, 'package.json')].filter(
    Boolean,
  )) {
    try {
      return createRequire(base)('onnxruntime-node');
    } catch {
      // not there
    }
  }
  return undefined;
}

export default async function run() {
  const g = await import(pathToFileURL(join(PKG, 'dist/index.js')).href);
  const onnx = await import(pathToFileURL(join(PKG, 'dist/onnx/index.js')).href);
  const { tinyInjectionModel } = await import(pathToFileURL(join(PKG, 'scripts/make-tiny-onnx.mjs')).href);

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices":[{"message":{"role":"assistant","content":"SAFE"}}]}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

  // ~1 KB of ordinary text, allowed by the engine (injection off so every request reaches the tiers).
  const text = 'Please summarise the quarterly report for the team meeting and list the three main risks. '.repeat(11).slice(0, 1024);
  const engine = g.createGuardrailEngine({ policy: { injection: { agent_input: 'ALLOW' } } });
  const req = (i) => ({
    action_id: '00000000-0000-4000-8000-000000000001',
    action_type: 'AGENT_INPUT',
    source_agent_id: 'io.bench.a',
    thread_id: `t${i}`,
    trace: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' },
    payload: text,
  });

  const rows = [];
  const result = {};
  const base = await measure((i) => engine.validate(req(i)), { warmup: 200, iterations: 2000 });
  result.engine = base;
  rows.push({ what: 'engine alone (1 KB AGENT_INPUT)', median_ms: base.median, p99_ms: base.p99, added_median_ms: 0 });

  const judge = g.createTieredValidator({ engine, tiers: [g.createLlmJudgeTier({ baseUrl, model: 'bench', band: { min: 0, max: 1 } })] });
  const j = await measure((i) => judge.validate(req(i)), { warmup: 50, iterations: 500 });
  result.llm_judge_loopback = j;
  rows.push({
    what: '+ LLM judge (loopback endpoint answering at once)',
    median_ms: j.median,
    p99_ms: j.p99,
    added_median_ms: j.median - base.median,
  });

  const ort = findOrt();
  if (ort) {
    const dir = mkdtempSync(join(tmpdir(), 'baton-bench-onnx-'));
    const modelPath = join(dir, 'tiny.onnx');
    writeFileSync(modelPath, tinyInjectionModel({ dims: 256, indexOf: onnx.featureIndex }));
    const tier = await onnx.createOnnxClassifierTier({ modelPath, threshold: 0.5, runtime: ort });
    const v = g.createTieredValidator({ engine, tiers: [tier] });
    const o = await measure((i) => v.validate(req(i)), { warmup: 100, iterations: 1000 });
    result.onnx_tiny = o;
    rows.push({
      what: '+ ONNX tier (tiny logistic model, 256 features)',
      median_ms: o.median,
      p99_ms: o.p99,
      added_median_ms: o.median - base.median,
    });
  } else {
    result.onnx_tiny = 'skipped: onnxruntime-node not resolvable (optional peer; set BATON_ORT_DIR)';
  }
  server.close();
  printTable(
    rows.map((r) => ({ ...r, median_ms: round(r.median_ms), p99_ms: round(r.p99_ms), added_median_ms: round(r.added_median_ms) })),
    { title: 'Latency added by the optional tiers (per validation)' },
  );
  if (typeof result.onnx_tiny === 'string') console.log(result.onnx_tiny);
  console.log(`wrote ${await writeResult('guardrail-tiers', result)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
