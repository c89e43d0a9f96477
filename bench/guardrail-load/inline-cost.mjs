// Engine cost on the event loop by body size: the basis of the service's inlineMaxBytes default.
import { createGuardrailEngine, parseGuardrailRequest } from '@baton/guardrail-server';
const req = (b) => {
  const r = parseGuardrailRequest(JSON.parse(b));
  if (!r.ok) throw new Error(r.message);
  return r.request;
};
import { loadPayloads } from './payloads.mjs';
const e = createGuardrailEngine();
for (const size of [1024, 4096, 16384, 40960]) {
  const bodies = loadPayloads(size).map((b) => (typeof b === 'string' ? b : Buffer.isBuffer(b) ? b.toString() : JSON.stringify(b)));
  for (let i = 0; i < 50; i++) for (const b of bodies) e.validateSync(req(b));
  const t = [];
  for (let i = 0; i < 200; i++) {
    const b = bodies[i % bodies.length];
    const s = performance.now();
    e.validateSync(req(b));
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  console.log(size, 'p50', t[100].toFixed(3), 'p99', t[198].toFixed(3));
}
