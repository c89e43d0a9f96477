import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { RunnerEvent } from '../runner/events.js';
import type { RunResult } from '../runner/types.js';

/** How a thrown error is answered: the HTTP status and the JSON error body a non-streamed call gets. */
export interface HttpFailure {
  status: number;
  body: { error: { code: string; message: string } };
}

/** Options for {@link answerWithEvents}. */
export interface AnswerWithEventsOptions {
  reply: FastifyReply;
  /** Starts the run with this listener; aborting the controller's signal cancels it. */
  run(onEvent: (event: RunnerEvent) => void | Promise<void>): Promise<RunResult>;
  /** Aborted when the client goes away before the answer is complete. */
  controller: AbortController;
  /** The non-streamed answer to a thrown error. */
  describeError(error: unknown): HttpFailure;
  /** Extra response headers (e.g. `traceresponse`). */
  headers: Record<string, string>;
  /** Comment line interval that keeps idle proxies from closing the stream, ms. */
  heartbeatMs: number;
}

/** `"stream": true` asks for events; `false` for JSON; absent, an `Accept` naming `text/event-stream` does. */
export function wantsEventStream(stream: boolean | undefined, accept: string | undefined): boolean {
  if (stream !== undefined) return stream;
  return typeof accept === 'string' && accept.split(',').some((part) => part.split(';')[0]?.trim().toLowerCase() === 'text/event-stream');
}

/**
 * Answers `POST /v1/runs` with server-sent events: each runner event as `event: <type>` with its
 * JSON, then `done` with the body the non-streamed call returns, or `error` with its error body
 * and `status`. Headers go out with the first event, so a request refused before its run starts
 * gets the same status and JSON error as without streaming. A slow reader holds the run's model
 * stream (the listener's promise waits for `drain`); a client that goes away aborts the run.
 * Resolves with the failure to record on the server span, if any.
 */
export async function answerWithEvents(options: AnswerWithEventsOptions): Promise<{ code: string; message: string } | undefined> {
  const { reply, controller } = options;
  reply.hijack();
  const res: ServerResponse = reply.raw;
  let started = false;
  let finished = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const onClose = () => {
    if (!finished) controller.abort(new Error('client closed the connection'));
  };
  res.on('close', onClose);

  const gone = () => res.destroyed || res.writableEnded;
  const start = () => {
    started = true;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      ...options.headers,
    });
    heartbeat = setInterval(() => {
      if (!gone()) res.write(': keep-alive\n\n');
    }, options.heartbeatMs);
    heartbeat.unref();
  };
  const send = (name: string, data: unknown): Promise<void> | undefined => {
    if (gone()) return undefined;
    if (!started) start();
    // JSON never holds a raw line break, so one `data:` line carries the whole value.
    if (res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  };

  try {
    const result = await options.run((event) => send(event.type, event));
    finished = true;
    await send('done', result);
    if (!gone()) res.end();
    return result.error;
  } catch (error) {
    finished = true;
    const failure = options.describeError(error);
    if (!started && !gone()) {
      const text = JSON.stringify(failure.body);
      res.writeHead(failure.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        ...options.headers,
      });
      res.end(text);
    } else {
      await send('error', { status: failure.status, ...failure.body });
      if (!gone()) res.end();
    }
    return failure.body.error;
  } finally {
    clearInterval(heartbeat);
    res.off('close', onClose);
  }
}
