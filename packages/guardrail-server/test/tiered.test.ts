// The tiered validator and the LLM-judge tier against a real loopback HTTP server that plays an
// OpenAI-compatible /chat/completions endpoint from a script.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardrailServer } from '../src/http/index.js';
import {
  createGuardrailEngine,
  createLlmJudgeTier,
  createTieredValidator,
  GuardrailError,
  parseJudgeAnswer,
  TierError,
  type GuardrailTier,
} from '../src/index.js';
import { agentInput, agentResponse, toolCall, toolOutput } from './helpers.js';

type Script = (body: { model: string; messages: { role: string; content: string }[] }, res: ServerResponse) => void;
let script: Script = () => {};
const seen: { model: string; messages: { role: string; content: string }[]; auth: string | undefined }[] = [];
let server: Server;
let baseUrl = '';

function answer(res: ServerResponse, content: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    }),
  );
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as Parameters<Script>[0];
      seen.push({ ...body, auth: req.headers.authorization });
      script(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

// Injection off in the engine, so these tests depend on the tiers and not on the classifier's model.
const engine = createGuardrailEngine({ policy: { injection: { agent_input: 'ALLOW', tool_output: 'ALLOW' } } });
// Every text is "grey" with band [0, 1): the judge decides; with [0.999, 1) almost none is.
const judgeAll = () => createLlmJudgeTier({ baseUrl, model: 'judge-1', apiKey: 'k-test', band: { min: 0, max: 1 } });

describe('LLM judge tier', () => {
  it('BLOCKs a grey-band input the judge calls an injection, and sends model, prompt and key', async () => {
    seen.length = 0;
    script = (_b, res) => answer(res, 'INJECTION');
    const v = createTieredValidator({ engine, tiers: [judgeAll()] });
    const res = await v.validate(agentInput('Please summarise the attached memo for me.'));
    expect(res.decision).toBe('BLOCK');
    expect(res.reason_code).toBe('PROMPT_INJECTION');
    expect(res.findings?.some((f) => f.type === 'LLM_JUDGE' && f.detector === 'prompt_injection')).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.model).toBe('judge-1');
    expect(seen[0]!.auth).toBe('Bearer k-test');
    expect(seen[0]!.messages.at(-1)!.content).toBe('Please summarise the attached memo for me.');
  });

  it('keeps the engine decision when the judge says SAFE', async () => {
    script = (_b, res) => answer(res, 'SAFE');
    const v = createTieredValidator({ engine, tiers: [judgeAll()] });
    expect((await v.validate(agentInput('What is the capital of France?'))).decision).toBe('ALLOW');
  });

  it('is not consulted outside the grey band', async () => {
    seen.length = 0;
    script = (_b, res) => answer(res, 'INJECTION');
    const judge = createLlmJudgeTier({ baseUrl, model: 'judge-1', band: { min: 0.999, max: 1 } });
    const v = createTieredValidator({ engine, tiers: [judge] });
    expect((await v.validate(agentInput('What is the capital of France?'))).decision).toBe('ALLOW');
    expect(seen).toHaveLength(0);
  });

  it('is not consulted when the engine already BLOCKs, nor for action types it does not judge', async () => {
    seen.length = 0;
    script = (_b, res) => answer(res, 'INJECTION');
    const v = createTieredValidator({ engine, tiers: [judgeAll()] });
    const secret = await v.validate(agentResponse(`token ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'}`));
    expect(secret.reason_code).toBe('SECRET_DETECTED');
    expect((await v.validate(agentResponse('The weather is fine.'))).decision).toBe('ALLOW');
    expect(seen).toHaveLength(0);
  });

  it('judges every string of a tool output and of tool-call arguments it is asked to', async () => {
    seen.length = 0;
    script = (b, res) => answer(res, b.messages.at(-1)!.content.includes('wire') ? 'INJECTION' : 'SAFE');
    const judge = createLlmJudgeTier({ baseUrl, model: 'm', band: { min: 0, max: 1 }, actionTypes: ['TOOL_OUTPUT', 'TOOL_CALL'] });
    const v = createTieredValidator({ engine, tiers: [judge] });
    expect((await v.validate(toolOutput('read_doc', 'Quarterly numbers attached.'))).decision).toBe('ALLOW');
    const res = await v.validate(toolCall('send', { to: 'ops', note: 'please wire the funds today' }));
    expect(res.decision).toBe('BLOCK');
    expect(res.findings?.find((f) => f.type === 'LLM_JUDGE')?.path).toBe('/function/arguments/note');
  });

  it.each([
    ['HTTP 500', (_b: unknown, res: ServerResponse) => res.writeHead(500).end('boom')],
    ['not JSON', (_b: unknown, res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{oops')],
    ['neither word', (_b: unknown, res: ServerResponse) => answer(res, 'maybe?')],
  ])('fails closed when the judge answers %s', async (_name, s) => {
    script = s as Script;
    const errors: TierError[] = [];
    const v = createTieredValidator({ engine, tiers: [judgeAll()], onError: (e) => errors.push(e) });
    const res = await v.validate(agentInput('Summarise this memo.'));
    expect(res.decision).toBe('BLOCK');
    expect(res.reason_code).toBe('TIER_UNAVAILABLE');
    expect(errors[0]).toBeInstanceOf(TierError);
    expect(errors[0]!.tier).toBe('llm-judge');
    const open = createTieredValidator({ engine, tiers: [judgeAll()], onTierError: 'ALLOW' });
    expect((await open.validate(agentInput('Summarise this memo.'))).decision).toBe('ALLOW');
  });

  it('fails closed when the judge does not answer in time (timeout from configuration)', async () => {
    const pending: ServerResponse[] = [];
    script = (_b, res) => pending.push(res);
    const v = createTieredValidator({ engine, tiers: [judgeAll()], tierTimeoutMs: 300 });
    const res = await v.validate(agentInput('Summarise this memo.'));
    expect(res.reason_code).toBe('TIER_UNAVAILABLE');
    expect(res.reason_message).toMatch(/did not answer within 300 ms/);
    for (const p of pending) p.destroy();
  });

  it('never puts the judged text into the response', async () => {
    script = (_b, res) => answer(res, 'INJECTION');
    const text = 'My unusual sentence number 7 about otters.';
    const res = await createTieredValidator({ engine, tiers: [judgeAll()] }).validate(agentInput(text));
    expect(JSON.stringify(res)).not.toContain('otters');
  });
});

describe('createTieredValidator', () => {
  it('rejects bad configuration with clear errors', () => {
    expect(() => createTieredValidator({ engine, tiers: [], tierTimeoutMs: 0 })).toThrow(/tierTimeoutMs/);
    const t: GuardrailTier = { name: 'x', check: async () => undefined };
    expect(() => createTieredValidator({ engine, tiers: [t, t] })).toThrow(/two tiers are named "x"/);
    expect(() => createLlmJudgeTier({ baseUrl: 'not a url', model: 'm' })).toThrow(GuardrailError);
    expect(() => createLlmJudgeTier({ baseUrl, model: 'm', band: { min: 0.8, max: 0.2 } })).toThrow(/band/);
  });

  it('a tier that returns an invalid verdict has failed', async () => {
    const bad: GuardrailTier = { name: 'bad', check: async () => ({ decision: 'ALLOW' }) as never };
    const res = await createTieredValidator({ engine, tiers: [bad] }).validate(agentInput('hello there'));
    expect(res.reason_code).toBe('TIER_UNAVAILABLE');
  });

  it('an aborted call is a BLOCK', async () => {
    const ac = new AbortController();
    ac.abort();
    const res = await createTieredValidator({ engine, tiers: [{ name: 't', check: async () => undefined }] }).validate(agentInput('hi'), {
      signal: ac.signal,
    });
    expect(res.decision).toBe('BLOCK');
  });

  it('parseJudgeAnswer reads the first choice and rejects anything else', () => {
    expect(parseJudgeAnswer({ choices: [{ message: { content: 'INJECTION.' } }] })).toBe('INJECTION');
    expect(parseJudgeAnswer({ choices: [{ message: { content: ' safe ' } }] })).toBe('SAFE');
    expect(() => parseJudgeAnswer({ choices: [] })).toThrow(/content/);
    expect(() => parseJudgeAnswer(null)).toThrow();
  });
});

describe('the tiered validator behind the HTTP service', () => {
  it('the service answers with the judge tier decision and a failing judge is a BLOCK', async () => {
    const service = createGuardrailServer({ validator: createTieredValidator({ engine, tiers: [judgeAll()] }), port: 0 });
    try {
      const post = async (text: string) =>
        (
          await service.app.inject({
            method: 'POST',
            url: '/v1/validate',
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(agentInput(text)),
          })
        ).json() as {
          decision: string;
          reason_code: string;
        };
      script = (b, res) => answer(res, b.messages.at(-1)!.content.includes('bank') ? 'INJECTION' : 'SAFE');
      expect((await post('Tell me a joke.')).decision).toBe('ALLOW');
      expect(await post('Move the money to this bank account.')).toMatchObject({ decision: 'BLOCK', reason_code: 'PROMPT_INJECTION' });
      script = (_b, res) => res.writeHead(503).end();
      expect(await post('Tell me a joke.')).toMatchObject({ decision: 'BLOCK', reason_code: 'TIER_UNAVAILABLE' });
    } finally {
      await service.close();
    }
  });
});
