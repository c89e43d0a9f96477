import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { RunnerHttpConfigError } from './errors.js';
import { AuthenticationError, checkIdentity, type Authenticator, type CallerIdentity } from './identity.js';

/** One entry of a tokens file: the SHA-256 of a bearer token and the identity it stands for. */
export interface TokenEntry {
  /** SHA-256 of the token's UTF-8 bytes (32 bytes). */
  digest: Buffer;
  identity: CallerIdentity;
}

/** Options for {@link createTokenAuthenticator}. */
export interface TokenAuthenticatorOptions {
  /** The accepted tokens (see {@link parseTokensFile}). At least one. */
  tokens: readonly TokenEntry[];
}

const MIN_TOKEN_LENGTH = 16;
const MAX_TOKENS = 10_000;
const sha256 = (v: string) => createHash('sha256').update(v, 'utf8').digest();

/**
 * Parses a tokens file (YAML or JSON):
 *
 * ```yaml
 * tokens:
 *   - token_sha256: 9f86d0...   # hex SHA-256 of the token (preferred: the file holds no secret)
 *     tenant: acme-retail
 *     subject: support-gateway
 *     roles: [support_agent]
 *     cases: [CASE-1001]        # optional: RunAuth.allowedCases
 *   - token: a-plain-token-of-16-or-more-characters   # or the token itself
 *     tenant: globex
 *     subject: batch
 *     roles: [reporter, "baton:choose-thread-id"]
 * ```
 *
 * Problems name the entry and field, never a token or a value.
 */
export function parseTokensFile(text: string, file: string): TokenEntry[] {
  let doc: unknown;
  try {
    // Aliases are refused outright: a tokens file has no use for them (and no alias bombs).
    doc = parseYaml(text, { maxAliasCount: 0, uniqueKeys: true });
  } catch (error) {
    throw new RunnerHttpConfigError(`${file}: not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || !Array.isArray((doc as { tokens?: unknown }).tokens)) {
    throw new RunnerHttpConfigError(`${file}: expected an object with a "tokens" list`);
  }
  const extra = Object.keys(doc).filter((k) => k !== 'tokens');
  if (extra.length > 0) throw new RunnerHttpConfigError(`${file}: unknown top-level key ${JSON.stringify(extra[0]!.slice(0, 64))}`);
  const list = (doc as { tokens: unknown[] }).tokens;
  if (list.length === 0) throw new RunnerHttpConfigError(`${file}: "tokens" is empty; list at least one token`);
  if (list.length > MAX_TOKENS) throw new RunnerHttpConfigError(`${file}: more than ${MAX_TOKENS} tokens`);
  const seen = new Set<string>();
  return list.map((raw, index) => {
    const where = `${file}: tokens[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new RunnerHttpConfigError(`${where} must be an object`);
    const entry = raw as Record<string, unknown>;
    const unknown = Object.keys(entry).find((k) => !['token', 'token_sha256', 'tenant', 'subject', 'roles', 'cases'].includes(k));
    if (unknown !== undefined) throw new RunnerHttpConfigError(`${where}: unknown key ${JSON.stringify(unknown.slice(0, 64))}`);
    const hasPlain = entry.token !== undefined;
    const hasHash = entry.token_sha256 !== undefined;
    if (hasPlain === hasHash) throw new RunnerHttpConfigError(`${where}: give exactly one of "token" and "token_sha256"`);
    let digest: Buffer;
    if (hasPlain) {
      if (typeof entry.token !== 'string' || entry.token.trim().length < MIN_TOKEN_LENGTH || /\s/.test(entry.token)) {
        throw new RunnerHttpConfigError(`${where}: "token" must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
      }
      digest = sha256(entry.token);
    } else {
      if (typeof entry.token_sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(entry.token_sha256)) {
        throw new RunnerHttpConfigError(`${where}: "token_sha256" must be 64 hex characters (sha256 of the token)`);
      }
      digest = Buffer.from(entry.token_sha256, 'hex');
    }
    const key = digest.toString('hex');
    if (seen.has(key)) throw new RunnerHttpConfigError(`${where}: the same token is listed twice`);
    seen.add(key);
    let identity: CallerIdentity;
    try {
      identity = checkIdentity(entry, where);
    } catch (error) {
      throw new RunnerHttpConfigError((error as Error).message, { cause: error });
    }
    if (identity.roles.length === 0) throw new RunnerHttpConfigError(`${where}: roles must list at least one role`);
    return { digest, identity };
  });
}

/** Reads and parses a tokens file. */
export async function loadTokensFile(file: string): Promise<TokenEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunnerHttpConfigError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`,
      { cause: error },
    );
  }
  return parseTokensFile(text, file);
}

/**
 * Bearer tokens mapped to identities. The presented token is hashed and compared with every
 * entry's digest in constant time (no early exit), so neither a token nor its position leaks
 * through timing; the file may hold only the digests.
 */
export function createTokenAuthenticator(options: TokenAuthenticatorOptions): Authenticator {
  if (!options || !Array.isArray(options.tokens) || options.tokens.length === 0) {
    throw new RunnerHttpConfigError('createTokenAuthenticator needs at least one token');
  }
  const entries = options.tokens.map((t) => {
    if (!Buffer.isBuffer(t.digest) || t.digest.length !== 32)
      throw new RunnerHttpConfigError('createTokenAuthenticator: every digest must be 32 bytes (sha256)');
    return { digest: Buffer.from(t.digest), identity: t.identity };
  });
  return {
    kind: 'tokens',
    verifiesCredential: true,
    async authenticate(headers) {
      const header = headers.authorization;
      const m = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
      if (!m) throw new AuthenticationError('a valid "Authorization: Bearer <token>" header is required');
      const presented = sha256(m[1] as string);
      let found: CallerIdentity | undefined;
      for (const entry of entries) {
        if (timingSafeEqual(entry.digest, presented) && found === undefined) found = entry.identity;
      }
      if (!found) throw new AuthenticationError('a valid "Authorization: Bearer <token>" header is required');
      return { ...found, roles: [...found.roles], ...(found.cases ? { cases: [...found.cases] } : {}) };
    },
  };
}
