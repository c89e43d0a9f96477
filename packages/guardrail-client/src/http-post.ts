import http from 'node:http';
import https from 'node:https';

/** What a POST answered: the status and the body as text (at most `maxBytes`). */
export interface PostAnswer {
  status: number;
  text: string;
}

/** Why a POST got no answer: never connected (or the connection broke), over the size limit, aborted. */
export class PostError extends Error {
  constructor(
    readonly kind: 'network' | 'too_large' | 'aborted' | 'read',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Options of {@link createHttpPost}. */
export interface HttpPostOptions {
  /** The `/v1/validate` URL. */
  endpoint: string;
  /** Largest answer read; past it the response is abandoned. */
  maxBytes: number;
}

/**
 * POSTs over `node:http`/`node:https` with one keep-alive agent per client: every check after
 * the first reuses an open connection (no TCP handshake), and `http.request` costs a fraction
 * of `fetch` per call on a loopback. A pooled connection the service closed while idle is the
 * one case that is sent again (Node's documented `reusedSocket` rule): the service never read it.
 */
export function createHttpPost(options: HttpPostOptions): {
  post(headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<PostAnswer>;
  close(): void;
} {
  const url = new URL(options.endpoint);
  const secure = url.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const request = secure ? https.request : http.request;

  function once(headers: Record<string, string>, body: string, signal: AbortSignal | undefined): Promise<PostAnswer> {
    return new Promise<PostAnswer>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          ...(signal ? { signal } : {}),
        },
        (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > options.maxBytes) {
            reject(new PostError('too_large', 'response too large'));
            res.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.byteLength;
            if (size > options.maxBytes) {
              // Rejected before the destroy, whose events would otherwise name it a read error.
              reject(new PostError('too_large', 'response too large'));
              res.destroy();
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks, size).toString('utf8') }));
          res.on('error', (err) =>
            reject(
              signal?.aborted
                ? new PostError('aborted', 'aborted', { cause: err })
                : new PostError('read', 'response body could not be read', { cause: err }),
            ),
          );
          res.on('aborted', () => reject(new PostError('read', 'response body could not be read')));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (signal?.aborted) reject(new PostError('aborted', 'aborted', { cause: err }));
        else reject(Object.assign(new PostError('network', err.code ?? err.message, { cause: err }), { reused: req.reusedSocket }));
      });
      req.end(body);
    });
  }

  return {
    async post(headers, body, signal) {
      try {
        return await once(headers, body, signal);
      } catch (err) {
        const stale =
          err instanceof PostError &&
          err.kind === 'network' &&
          (err as PostError & { reused?: boolean }).reused === true &&
          err.message === 'ECONNRESET';
        if (!stale || signal?.aborted) throw err;
        return once(headers, body, signal);
      }
    },
    close() {
      agent.destroy();
    },
  };
}
