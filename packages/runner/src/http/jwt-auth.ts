import { readFile } from 'node:fs/promises';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { RunnerHttpConfigError } from './errors.js';
import { AuthenticationError, IdentityInputError, checkIdentity, type Authenticator } from './identity.js';
import { isLoopbackHost } from './request.js';

/** Which JWT claims hold the identity's parts. */
export interface JwtClaimNames {
  /** Default `tenant`. */
  tenant?: string;
  /** Default `sub`. */
  subject?: string;
  /** A list, or a space-separated string (as OAuth `scope`); default `roles`. */
  roles?: string;
  /** Optional list of case ids; default `cases`. */
  cases?: string;
}

/** Options for {@link createJwtAuthenticator}. */
export interface JwtAuthenticatorOptions {
  /** The signing keys: an `https://` JWKS URL (`http://` on loopback only), or the key set itself. */
  jwks: URL | JSONWebKeySet;
  /** Required `iss`. */
  issuer: string;
  /** Required `aud` (one of the token's audiences). */
  audience: string;
  /** Accepted signature algorithms; default asymmetric only: RS256, PS256, ES256, EdDSA. */
  algorithms?: string[];
  /** Claim names; defaults in {@link JwtClaimNames}. */
  claims?: JwtClaimNames;
  /** Allowed clock skew for `exp`/`nbf`, seconds; default 30. */
  clockToleranceSec?: number;
  /** Timeout of one JWKS fetch, ms; default 5000. */
  jwksTimeoutMs?: number;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/**
 * Bearer JWTs verified against a JWKS (jose's `jwtVerify`): signature with an asymmetric
 * algorithm, `iss`, `aud`, `exp`/`nbf`; the identity comes from the verified claims only. A token
 * that fails any check — or keys that cannot be fetched — is a 401 (fail closed).
 */
export function createJwtAuthenticator(options: JwtAuthenticatorOptions): Authenticator {
  if (!options || typeof options.issuer !== 'string' || options.issuer === '')
    throw new RunnerHttpConfigError('createJwtAuthenticator: issuer is required (--auth-issuer)');
  if (typeof options.audience !== 'string' || options.audience === '')
    throw new RunnerHttpConfigError('createJwtAuthenticator: audience is required (--auth-audience)');
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  // A symmetric key in a public key set would let anyone who can read the JWKS sign tokens.
  if (algorithms.length === 0 || algorithms.some((a) => /^(HS|none)/i.test(a)))
    throw new RunnerHttpConfigError('createJwtAuthenticator: algorithms must be asymmetric (no HS*, no none)');
  let keys: ReturnType<typeof createLocalJWKSet>;
  if (options.jwks instanceof URL) {
    const url = options.jwks;
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new RunnerHttpConfigError(`JWKS URL ${url.origin} must use https (http only on loopback)`);
    }
    keys = createRemoteJWKSet(url, { timeoutDuration: options.jwksTimeoutMs ?? 5_000 }) as unknown as ReturnType<typeof createLocalJWKSet>;
  } else {
    if (!options.jwks || !Array.isArray((options.jwks as JSONWebKeySet).keys))
      throw new RunnerHttpConfigError('createJwtAuthenticator: jwks must be a URL or a { keys: [...] } key set');
    try {
      keys = createLocalJWKSet(options.jwks);
    } catch (error) {
      throw new RunnerHttpConfigError(`createJwtAuthenticator: the key set is not valid: ${(error as Error).message}`, { cause: error });
    }
  }
  const names = { tenant: 'tenant', subject: 'sub', roles: 'roles', cases: 'cases', ...options.claims };
  return {
    kind: 'jwt',
    verifiesCredential: true,
    async authenticate(headers) {
      const header = headers.authorization;
      const m = typeof header === 'string' ? /^Bearer[ \t]+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)[ \t]*$/i.exec(header) : null;
      if (!m) throw new AuthenticationError('a valid "Authorization: Bearer <JWT>" header is required');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(m[1] as string, keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms,
          clockTolerance: options.clockToleranceSec ?? 30,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        const code = (error as { code?: string }).code;
        const why =
          code === 'ERR_JWT_EXPIRED'
            ? 'the token has expired'
            : code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JOSE_GENERIC'
              ? 'the signing keys could not be fetched'
              : 'the token did not verify';
        throw new AuthenticationError(`a valid "Authorization: Bearer <JWT>" header is required (${why})`, { cause: error });
      }
      const claim = (name: string) => (payload as Record<string, unknown>)[name];
      const rawRoles = claim(names.roles);
      const roles = typeof rawRoles === 'string' ? rawRoles.split(' ').filter((r) => r !== '') : rawRoles;
      try {
        const identity = checkIdentity(
          { tenant: claim(names.tenant), subject: claim(names.subject), roles, cases: claim(names.cases) },
          'token claims',
        );
        if (identity.roles.length === 0) throw new IdentityInputError('token claims: no roles');
        return identity;
      } catch (error) {
        // A signed token without a usable identity is still no caller.
        throw new AuthenticationError(`the token's claims do not name a caller: ${(error as Error).message}`, { cause: error });
      }
    },
  };
}

/** `--auth-jwks <url|file>`: a URL, or a file holding a JWKS as JSON. */
export async function loadJwks(source: string): Promise<URL | JSONWebKeySet> {
  if (/^https?:\/\//i.test(source)) {
    try {
      return new URL(source);
    } catch (error) {
      throw new RunnerHttpConfigError(`--auth-jwks: ${JSON.stringify(source.slice(0, 200))} is not a valid URL`, { cause: error });
    }
  }
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunnerHttpConfigError(`${source}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, { cause: error });
  }
  try {
    const set = JSON.parse(text) as JSONWebKeySet;
    if (!set || !Array.isArray(set.keys)) throw new Error('expected { "keys": [...] }');
    return set;
  } catch (error) {
    throw new RunnerHttpConfigError(`${source}: not a JWKS: ${(error as Error).message}`, { cause: error });
  }
}
