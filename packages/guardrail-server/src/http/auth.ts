import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks an `Authorization` header against the configured bearer token in constant time. Both
 * sides are hashed first so the comparison neither leaks the token's length nor throws on a
 * length mismatch (timingSafeEqual needs equal lengths).
 */
export function createBearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    if (typeof header !== 'string') return false;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) return false;
    return timingSafeEqual(digest(match[1] as string), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** True for hosts that only the local machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  return /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
