// Streamed answers vs. one answer at the end: time to the first answer text the user sees, how
// much of it is added over the model's own first token (the AGENT_RESPONSE segment check), and
// total time. Same process, same runner, alternating runs; the in-memory scripted model with a
// simulated first-token latency and per-word latency (its own timing is recorded by a hook), the
// in-process guardrail engine. Two paths: the runner's events in-process, and `POST /v1/runs`
// server-sent events over loopback HTTP (the non-streamed HTTP call's "first text" is its answer).
//
//   node bench/run.mjs streaming      (after `npm run build`)
//
// Reported (medians, ms): model_ttft (run start → the model's first chunk), first_text (run start
// → first released text), added = first_text − model_ttft, total; and the ratios streamed /
// non-streamed for first_text and total.
import { createGuardrailEngine } from '@baton/guardrail-server';
import { Runner, createAgentRegistry, createMemoryThreadStore } from '@baton/runner';
import { createRunnerServer } from '@baton/runner/http';
import { createScriptedModel } from '@baton/runner/testing';
import { printTable, summarize, writeResult } from '../lib.mjs';

const AGENT = 'io.bench.streaming';
const WARMUP = 3;
const ITERATIONS = 30;
const MODEL_TTFT_MS = 40;
const PER_WORD_MS = 2;
// About 90 words in 8 sentences: a typical support answer.
const ANSWER = [
  'Thanks for reaching out about your order.',
  'I checked the shipment and it left our warehouse on Monday morning.',
  'The carrier reports it is on schedule for delivery this Thursday.',
  'You can follow it with the tracking number on your receipt.',
  'If the parcel is damaged on arrival, keep the packaging and contact us within 30 days.',
  'We will then arrange a replacement or a full refund, whichever you prefer.',
  'Refunds reach the original payment method within five business days.',
  'Is there anything else I can help you with today?',
].join(' ');

const now = () => Number(process.hrtime.bigint()) / 1e6;

export default async function run() {
  let modelFirstChunk = 0;
  const { provider } = createScriptedModel({
    script: () => ({ message: ANSWER }),
    latencyMs: MODEL_TTFT_MS,
    chunkLatencyMs: PER_WORD_MS,
    beforeChunk: ({ chunk }) => {
      if (chunk === 0) modelFirstChunk = now();
    },
  });
  // The non-streamed path calls getResponse: its "first chunk" is the whole answer, after the
  // same first-token latency plus the time the words take to generate.
  const words = ANSWER.split(' ').length;
  const store = createMemoryThreadStore();
  const runner = new Runner({
    registry: createAgentRegistry({
      agents: [
        {
          manifest: {
            schema_version: '1.0',
            id: AGENT,
            version: '1.0.0',
            name: 'streaming',
            instructions: 'Benchmark agent.',
            model: { provider: 'openai', name: 'bench' },
            tools: [],
          },
          source: 'bench.agent.yml',
        },
      ],
    }),
    guardrails: createGuardrailEngine(),
    store,
    modelProvider: {
      getModel: () => ({
        ...provider.getModel(),
        getResponse: async (request) => {
          const response = await provider.getModel().getResponse(request);
          modelFirstChunk = now();
          // A non-streaming API answers once the last word is generated (timed word by word,
          // exactly as the streamed path, so timer overheads match).
          for (let w = 1; w < words; w++) await new Promise((r) => setTimeout(r, PER_WORD_MS));
          return response;
        },
        getStreamedResponse: (request) => provider.getModel().getStreamedResponse(request),
      }),
    },
  });
  const server = createRunnerServer({ runner, store, port: 0 });
  const { url } = await server.listen();

  const inProcess = async (stream) => {
    const start = now();
    let firstText = 0;
    const result = await runner.run({
      agentId: AGENT,
      input: 'Where is my order?',
      stream,
      onEvent: (e) => {
        if (e.type === 'text_delta' && firstText === 0) firstText = now();
      },
    });
    if (result.status !== 'completed' || result.response !== ANSWER)
      throw new Error(`unexpected run result: ${JSON.stringify(result.error ?? result.response)}`);
    return { model_ttft: modelFirstChunk - start, first_text: firstText - start, total: now() - start };
  };
  const overHttp = async (stream) => {
    const start = now();
    const res = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: AGENT, input: 'Where is my order?', stream }),
    });
    let firstText = 0;
    let body = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      body += decoder.decode(chunk, { stream: true });
      if (firstText === 0 && (stream ? body.includes('event: text_delta') : body.length > 0)) firstText = now();
    }
    const total = now() - start;
    if (stream ? !body.includes('event: done') : JSON.parse(body).response !== ANSWER) throw new Error('unexpected HTTP answer');
    return { model_ttft: modelFirstChunk - start, first_text: stream ? firstText - start : total, total };
  };

  const rows = [];
  const data = {};
  try {
    for (const [path, fn] of [
      ['in-process events', inProcess],
      ['HTTP (SSE vs JSON)', overHttp],
    ]) {
      const samples = { false: [], true: [] };
      for (let i = 0; i < WARMUP + ITERATIONS; i++) {
        // Alternate, so both modes see the same machine load.
        for (const stream of [false, true]) {
          const s = await fn(stream);
          if (i >= WARMUP) samples[stream].push(s);
        }
      }
      const med = (list, key) => summarize(list.map((s) => s[key])).median;
      const mode = {};
      for (const stream of [false, true]) {
        const list = samples[stream];
        mode[stream] = {
          model_ttft: med(list, 'model_ttft'),
          first_text: med(list, 'first_text'),
          added: summarize(list.map((s) => s.first_text - s.model_ttft)).median,
          total: med(list, 'total'),
        };
        rows.push({
          path,
          mode: stream ? 'streamed' : 'not streamed',
          model_ttft_ms: mode[stream].model_ttft,
          first_text_ms: mode[stream].first_text,
          added_ms: mode[stream].added,
          total_ms: mode[stream].total,
        });
      }
      rows.push({
        path,
        mode: 'ratio streamed/not',
        model_ttft_ms: mode.true.model_ttft / mode.false.model_ttft,
        first_text_ms: mode.true.first_text / mode.false.first_text,
        added_ms: mode.true.added / mode.false.added,
        total_ms: mode.true.total / mode.false.total,
      });
      data[path] = mode;
    }
  } finally {
    await server.close();
  }
  printTable(rows, {
    title: `Streaming: ${words} words, model first token ${MODEL_TTFT_MS} ms, ${PER_WORD_MS} ms per word; medians of ${ITERATIONS} runs`,
  });
  const file = await writeResult('streaming', {
    settings: { words, model_ttft_ms: MODEL_TTFT_MS, per_word_ms: PER_WORD_MS, iterations: ITERATIONS },
    rows,
  });
  process.stdout.write(`\nwritten: ${file}\n`);
  return data;
}
