// The service under load, run as its own process by index.mjs. Prints its URL as one line.
//   node server.mjs engine    the Baton service: createGuardrailServer around the detector engine
//   node server.mjs baseline  a bare Fastify 5 route answering {} (the framework's own ceiling)
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
} else if (mode === 'engine') {
  const { createGuardrailEngine } = await import('../../packages/guardrail-server/dist/index.js');
  const { createGuardrailServer } = await import('../../packages/guardrail-server/dist/http/index.js');
  const server = createGuardrailServer({ validator: createGuardrailEngine(), port: 0, logger: false });
  ({ url } = await server.listen());
  close = () => server.close();
} else {
  process.stderr.write(`unknown mode ${mode}; use engine or baseline\n`);
  process.exit(2);
}
process.stdout.write(`${url}\n`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await close();
    process.exit(0);
  });
}
