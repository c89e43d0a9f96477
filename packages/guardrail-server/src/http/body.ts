import { errorBody, type HttpErrorBody } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What reading a request body gives: the parsed JSON value, or a 400 naming the problem. */
export type BodyParseResult = { ok: true; value: unknown } | { ok: false; error: HttpErrorBody };

/**
 * Decodes a raw body as strict UTF-8, refuses JSON nested deeper than `maxDepth` (scanned on the
 * raw text, iteratively, so a hostile `[[[[…` never reaches the recursive JSON.parse), then parses.
 */
export function parseJsonBody(raw: Buffer, maxDepth: number): BodyParseResult {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { ok: false, error: errorBody('invalid_utf8', 'request body is not valid UTF-8') };
  }
  const depth = jsonNestingExceeds(text, maxDepth);
  if (depth !== undefined) {
    return {
      ok: false,
      error: errorBody('json_too_deep', `request body nests JSON deeper than ${maxDepth} levels (at character ${depth})`),
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    // V8's message quotes the input around the error; only the position is safe to repeat.
    const position = err instanceof Error ? /position (\d+)/.exec(err.message)?.[1] : undefined;
    const where = position === undefined ? '' : ` (at character ${position})`;
    return { ok: false, error: errorBody('invalid_json', `request body is not valid JSON${where}`) };
  }
}

/**
 * Returns the offset where the nesting of arrays/objects first exceeds `maxDepth`, or undefined.
 * Brackets inside strings do not count. Malformed text is left for JSON.parse to report.
 */
export function jsonNestingExceeds(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      depth++;
      if (depth > maxDepth) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return undefined;
}

/** True for `application/json`, with or without parameters, as long as any charset is UTF-8. */
export function isJsonContentType(header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const [type, ...params] = header.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const [key, value] = param.split('=');
    if (key?.trim().toLowerCase() === 'charset') {
      const charset = value
        ?.trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
      if (charset !== 'utf-8' && charset !== 'utf8') return false;
    }
  }
  return true;
}

/** Why reading a body stopped early. */
export class BodyReadError extends Error {
  constructor(
    readonly statusCode: 408 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'BodyReadError';
  }
}

/** Options for {@link readBody}. */
export interface ReadBodyOptions {
  /** Largest body in bytes. */
  limit: number;
  /** Milliseconds for the whole body to arrive. */
  timeoutMs: number;
  /** The declared Content-Length, when there is one. */
  declaredLength?: number;
}

/**
 * Collects a request body, refusing it (413) as soon as it is known to be over the limit and
 * (408) when it has not fully arrived in `timeoutMs`: a client trickling a byte at a time can't
 * hold a connection for the server's five-minute default.
 */
export function readBody(stream: NodeJS.ReadableStream, options: ReadBodyOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (options.declaredLength !== undefined && options.declaredLength > options.limit) {
      reject(new BodyReadError(413, `request body is larger than ${options.limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | undefined, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      if (err) {
        // Stop reading: the rest of the body is not wanted, and the answer closes the connection.
        stream.pause();
        reject(err);
      } else resolve(body!);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > options.limit) finish(new BodyReadError(413, `request body is larger than ${options.limit} bytes`));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined, Buffer.concat(chunks, size));
    const onError = (err: Error): void => finish(err);
    const timer = setTimeout(
      () => finish(new BodyReadError(408, `request body did not arrive within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
