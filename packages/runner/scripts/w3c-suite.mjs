#!/usr/bin/env node
/* global process, Buffer */
// Runs the official W3C trace-context suite against the runner service itself (`POST /v1/runs`),
// not a stand-in: a thin adapter turns the suite's POST of `[{ url, arguments }]` into a run,
// forwarding the trace header fields byte for byte (repeats kept); the agent calls a `callback`
// tool per item (scripted model), and the tool's `ctx.fetch` makes the callback. So the suite
// scores what `POST /v1/runs` and the tool hop do with the headers. Needs the built packages.
//
//   npm run test:w3c -w @baton/runner        (see @baton/tracing's README for the suite's location)
import { createServer, request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLevels } from '../../tracing/scripts/w3c-suite-lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { Runner, createAgentRegistry, createMemoryThreadStore } = await import(join(here, '..', 'dist', 'index.js'));
const { createRunnerServer } = await import(join(here, '..', 'dist', 'http', 'index.js'));
const { createScriptedModel } = await import(join(here, '..', 'dist', 'testing', 'index.js'));

const AGENT = 'io.baton.w3c.caller';
const manifest = {
  schema_version: '1.0',
  id: AGENT,
  version: '1.0.0',
  name: 'caller',
  instructions: 'Call every URL back.',
  model: { provider: 'openai', name: 'caller' },
  tools: [
    {
      type: 'function',
      function: {
        name: 'callback',
        description: 'POSTs body to url.',
        parameters: {
          type: 'object',
          properties: { url: { type: 'string' }, body: { type: 'string' } },
          required: ['url', 'body'],
          additionalProperties: false,
        },
      },
    },
  ],
};
// Turn 1: one callback tool call per item of the suite's request (the run's input); then done.
const { provider } = createScriptedModel({
  script: (request) => {
    const items = Array.isArray(request.input) ? request.input : [{ role: 'user', content: request.input }];
    if (items.some((i) => i.type === 'function_call_result')) return { message: 'done' };
    const user = items.find((i) => i.role === 'user');
    const text = typeof user?.content === 'string' ? user.content : (user?.content ?? []).map((c) => c.text ?? '').join('');
    const actions = JSON.parse(text || '[]');
    if (!Array.isArray(actions) || actions.length === 0) return { message: 'done' };
    return {
      toolCalls: actions.map((a, i) => ({
        id: `call_${i}`,
        name: 'callback',
        arguments: { url: String(a.url), body: JSON.stringify(a.arguments ?? []) },
      })),
    };
  },
});
// The suite's callback URLs are not what a guardrail engine is for: allow, and measure tracing only.
const allowAll = {
  validate: async (r) => ({ action_id: r.action_id, decision: 'ALLOW', reason_code: 'ALLOW', reason_message: 'measurement run' }),
};
const store = createMemoryThreadStore();
const runner = new Runner({
  registry: createAgentRegistry({ agents: [{ manifest, source: 'w3c-caller.agent.yml' }] }),
  guardrails: allowAll,
  store,
  modelProvider: provider,
  tools: {
    callback: async (args, ctx) => {
      const res = await ctx.fetch(args.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: args.body });
      await res.arrayBuffer();
      return String(res.status);
    },
  },
});
const service = createRunnerServer({ runner, store, port: 0 });
const { port: runnerPort } = await service.listen();

const adapter = createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  const payload = JSON.stringify({ agent_id: AGENT, input: body || '[]' });
  const raw = ['host', `127.0.0.1:${runnerPort}`, 'content-type', 'application/json', 'content-length', String(Buffer.byteLength(payload))];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    if (/^trace/i.test(req.rawHeaders[i])) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const forward = httpRequest(
    { host: '127.0.0.1', port: runnerPort, path: '/v1/runs', method: 'POST', headers: raw, agent: false },
    (answer) => {
      let out = '';
      answer.on('data', (c) => (out += c));
      answer.on('end', () => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
        res.end(out);
      });
    },
  );
  forward.on('error', (error) => {
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: error.message }));
  });
  forward.end(payload);
});
await new Promise((resolve) => adapter.listen(0, '127.0.0.1', resolve));

let ok = false;
try {
  ok = await runLevels(`http://127.0.0.1:${adapter.address().port}/test`, 'runner service (POST /v1/runs + tool fetch)');
} finally {
  await new Promise((resolve) => adapter.close(resolve));
  await service.close();
}
process.exit(ok ? 0 : 1);
