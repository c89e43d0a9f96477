import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** `POST /v1/runs` body. */
export const CreateRunBodySchema = z
  .object({
    agent_id: z.string().min(1).max(256),
    input: z.string().max(512 * 1024),
    thread_id: z.string().min(1).max(256).optional(),
    agent_version: z.string().min(1).max(128).optional(),
    /** Answer with server-sent events (also chosen by `Accept: text/event-stream`). */
    stream: z.boolean().optional(),
  })
  .strict();
export type CreateRunBody = z.infer<typeof CreateRunBodySchema>;

/** A readable one-line description of what is wrong with a body. */
export function describeIssues(error: z.ZodError): string {
  // Keys come from the caller and may be megabytes long: bounded, so an answer never grows with them.
  const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…(${text.length} characters)` : text);
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? clip(i.path.map(String).join('.'), 100) : 'body'}: ${clip(i.message, 200)}`)
    .join('; ');
}

/** Constant-time bearer check (both sides hashed, so lengths never leak). */
export function createBearerCheck(token: string): (header: string | undefined) => boolean {
  const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
  const expected = digest(token);
  return (header) => {
    const m = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
    return m ? timingSafeEqual(digest(m[1] as string), expected) : false;
  };
}

/** True for `application/json` with no charset or a UTF-8 one. */
export function isJsonContentType(header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const [type, ...params] = header.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return params.every((p) => {
    const [k, v] = p.split('=');
    if (k?.trim().toLowerCase() !== 'charset') return true;
    const cs = v
      ?.trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    return cs === 'utf-8' || cs === 'utf8';
  });
}

/** Offset where array/object nesting first exceeds `max` (strings skipped), or undefined. */
export function jsonNestingExceeds(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/** True for hosts only the local machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1') return true;
  return /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
