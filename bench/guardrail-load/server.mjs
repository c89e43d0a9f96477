// The service under load, run as its own process by index.mjs. Prints its URL as one line.
//   node server.mjs engine    the Baton service: createGuardrailServer around the detector engine
//   node server.mjs baseline  a bare Fastify 5 route answering {} (the framework's own ceiling)
//   node server.mjs http-only the Baton service around a constant-ALLOW validator (HTTP layer cost)
import { fastify } from 'fastify';

const mode = process.argv[2] ?? 'engine';
let url;
let close;
if (mode === 'baseline') {
  const app = fastify({ logger: false });
  app.post('/v1/validate', async () => ({}));
  app.get('/healthz', async () => ({ status: 'ok' }));
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  close = () => app.close();
} else if (mode === 'engine' || mode === 'http-only') {
  const { createGuardrailEngine } = await import('../../packages/guardrail-server/dist/index.js');
  const { createGuardrailServer } = await import('../../packages/guardrail-server/dist/http/index.js');
  const allow = (request) => ({ action_id: request.action_id, decision: 'ALLOW', reason_code: 'OK', reason_message: '' });
  const validator = mode === 'engine' ? createGuardrailEngine() : { validateSync: allow, validate: async (request) => allow(request) };
  const server = createGuardrailServer({ validator, port: 0, logger: false });
  ({ url } = await server.listen());
  close = () => server.close();
} else {
  process.stderr.write(`unknown mode ${mode}; use engine, http-only or baseline\n`);
  process.exit(2);
}
process.stdout.write(`${url}\n`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await close();
    process.exit(0);
  });
}
