import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ScriptedToolCall, ScriptedTurn } from '@baton/manifest/testing';

export type { ScriptedToolCall, ScriptedTurn } from '@baton/manifest/testing';

/** A request as the server received it. */
export interface RecordedRequest {
  /** `/v1/chat/completions` or `/v1/responses`. */
  path: string;
  api: 'chat' | 'responses';
  /** The parsed JSON body, exactly as sent. */
  body: Record<string, unknown>;
  /** The raw body text. */
  raw: string;
  headers: Record<string, string | string[] | undefined>;
}

export type ScriptFunction = (request: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>;

/** Options for {@link startScriptedOpenAIServer}. */
export interface ScriptedOpenAIServerOptions {
  /** Replies in order, or a function deciding each reply from the request. */
  script: ScriptedTurn[] | ScriptFunction;
  /** Which endpoints to serve (default `both`). */
  api?: 'chat' | 'responses' | 'both';
  /** Host to bind (default 127.0.0.1). */
  host?: string;
  /** Model name echoed in replies (default `scripted-model`). */
  model?: string;
  /**
   * Streamed Responses replies: awaited before each text chunk is sent (`request` counts from 0);
   * a test seam to hold a stream at a known point.
   */
  beforeChunk?: (position: { request: number; chunk: number }) => Promise<void> | void;
}

/** A running scripted server. */
export interface ScriptedOpenAIServer {
  /** Base URL ending in `/v1`, for `new OpenAI({ baseURL })` or `OPENAI_BASE_URL`. */
  url: string;
  /** Every model request received, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function errorBody(message: string, type = 'invalid_request_error'): unknown {
  return { error: { message, type, param: null, code: null } };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const usageChat = {
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};
const usageResponses = {
  input_tokens: 10,
  output_tokens: 5,
  total_tokens: 15,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 },
};

function argsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function chatReply(turn: ScriptedTurn, n: number, model: string): unknown {
  const toolCalls = (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${n}_${i + 1}`,
    type: 'function',
    function: { name: c.name, arguments: argsText(c) },
  }));
  return {
    id: `chatcmpl-scripted-${n}`,
    object: 'chat.completion',
    created: 1_700_000_000 + n,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.message ?? turn.chunks?.join('') ?? null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: usageChat,
  };
}

function responsesReply(turn: ScriptedTurn, n: number, model: string): Record<string, unknown> & { output: unknown[] } {
  const output: unknown[] = [];
  const message = turn.message ?? turn.chunks?.join('');
  if (message !== undefined) {
    output.push({
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: message, annotations: [] }],
    });
  }
  (turn.toolCalls ?? []).forEach((c, i) => {
    output.push({
      id: `fc_${n}_${i + 1}`,
      type: 'function_call',
      status: 'completed',
      call_id: c.id ?? `call_${n}_${i + 1}`,
      name: c.name,
      arguments: argsText(c),
    });
  });
  return {
    id: `resp_scripted_${n}`,
    object: 'response',
    created_at: 1_700_000_000 + n,
    status: 'completed',
    model,
    output,
    usage: usageResponses,
    error: null,
    incomplete_details: null,
  };
}

/**
 * A streamed Responses API reply as server-sent events: `response.created`, the message's
 * `response.output_item.added` and one `response.output_text.delta` per chunk (the turn's
 * `chunks`, or word by word), then `response.completed` with the whole response.
 */
async function sendResponsesStream(
  res: ServerResponse,
  turn: ScriptedTurn,
  n: number,
  model: string,
  beforeChunk: ((chunk: number) => Promise<void> | void) | undefined,
): Promise<void> {
  const full = responsesReply(turn, n, model);
  let sequence = 0;
  const send = (data: Record<string, unknown>) =>
    res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  send({ type: 'response.created', response: { ...full, status: 'in_progress', output: [], usage: null } });
  const message = turn.message ?? turn.chunks?.join('');
  if (message !== undefined) {
    const item = { id: `msg_${n}`, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    send({ type: 'response.output_item.added', output_index: 0, item });
    const chunks = turn.chunks ?? message.match(/\S+\s*|\s+/g) ?? [];
    for (const [i, delta] of chunks.entries()) {
      await beforeChunk?.(i);
      if (res.destroyed) return;
      send({ type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta, logprobs: [] });
    }
  }
  send({ type: 'response.completed', response: full });
  res.end();
}

/**
 * A real `node:http` server on a loopback port that speaks the minimal
 * `POST /v1/chat/completions` and `POST /v1/responses` — enough for the real
 * `OpenAIChatCompletionsModel` and `OpenAIResponsesModel` (streamed too, on `/v1/responses`) — and
 * records every request body.
 */
export async function startScriptedOpenAIServer(options: ScriptedOpenAIServerOptions): Promise<ScriptedOpenAIServer> {
  const api = options.api ?? 'both';
  const model = options.model ?? 'scripted-model';
  const requests: RecordedRequest[] = [];
  const script = options.script;
  let served = 0;

  async function nextTurn(recorded: RecordedRequest): Promise<ScriptedTurn> {
    const index = served++;
    if (typeof script === 'function') return script(recorded, index);
    const turn = script[index];
    if (!turn)
      return { error: { status: 500, message: `scripted server: script exhausted after ${script.length} replies (request ${index + 1})` } };
    return turn;
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const kind = path === '/v1/chat/completions' ? 'chat' : path === '/v1/responses' ? 'responses' : undefined;
      if (req.method !== 'POST' || !kind || (api !== 'both' && api !== kind)) {
        sendJson(res, 404, errorBody(`scripted server: no route for ${req.method} ${path}`));
        return;
      }
      let raw: string;
      let body: Record<string, unknown>;
      try {
        raw = await readBody(req);
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch (err) {
        sendJson(res, 400, errorBody(`scripted server: bad JSON body: ${(err as Error).message}`));
        return;
      }
      const recorded: RecordedRequest = { path, api: kind, body, raw, headers: { ...req.headers } };
      requests.push(recorded);
      if (body.stream === true && kind === 'chat') {
        sendJson(res, 400, errorBody('scripted server: streaming is served on /v1/responses only'));
        return;
      }
      let turn: ScriptedTurn;
      try {
        turn = await nextTurn(recorded);
      } catch (err) {
        sendJson(res, 500, errorBody(`scripted server: script failed: ${(err as Error).message}`, 'server_error'));
        return;
      }
      // A slow model; the request's own abort (client gone) does not reach a plain timer, which is fine here.
      if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
      if (turn.error) {
        sendJson(
          res,
          turn.error.status,
          errorBody(turn.error.message, turn.error.status >= 500 ? 'server_error' : 'invalid_request_error'),
        );
        return;
      }
      if (body.stream === true) {
        const request = served - 1;
        const hook = options.beforeChunk;
        await sendResponsesStream(res, turn, served, model, hook ? (chunk) => hook({ request, chunk }) : undefined);
        return;
      }
      sendJson(res, 200, kind === 'chat' ? chatReply(turn, served, model) : responsesReply(turn, served, model));
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`scripted server: ${(err as Error).message}`, 'server_error'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
