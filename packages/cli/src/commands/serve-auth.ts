import type { ThreadStore } from '@baton/runner';
import type { Authenticator, RunnerLike } from '@baton/runner/http';
import { withPacketSummaries } from './packet-support.js';

/** What `baton serve` knows about who may call it. */
export interface ServeAuthFlags {
  /** `--auth-tokens <file>`: bearer tokens mapped to identities. */
  authTokens?: string | undefined;
  /** `--trust-identity-headers`: X-Baton-* headers set by an authenticating proxy. */
  trustIdentityHeaders?: boolean | undefined;
  /** `--auth-jwks <url|file>` with `--auth-issuer`, `--auth-audience`, `--auth-tenant-claim`. */
  authJwks?: string | undefined;
  authIssuer?: string | undefined;
  authAudience?: string | undefined;
  authTenantClaim?: string | undefined;
}

/**
 * The caller identity source for `baton serve` (see the runner README, "Identity and tenancy"):
 * a tokens file, or identity headers behind a proxy; with neither, the service is single-tenant
 * (loopback only unless `--token`) and refuses identity headers.
 */
export async function serveAuthenticator(flags: ServeAuthFlags): Promise<{ authenticator: Authenticator | undefined; label: string }> {
  const http = await import('@baton/runner/http');
  const given = [
    flags.authTokens !== undefined && '--auth-tokens',
    flags.authJwks !== undefined && '--auth-jwks',
    flags.trustIdentityHeaders === true && '--trust-identity-headers',
  ].filter(Boolean);
  if (given.length > 1) throw new http.RunnerHttpConfigError(`${given.join(' and ')} are alternatives; give one`);
  const jwtOnly = [
    flags.authIssuer !== undefined && '--auth-issuer',
    flags.authAudience !== undefined && '--auth-audience',
    flags.authTenantClaim !== undefined && '--auth-tenant-claim',
  ].filter(Boolean);
  if (flags.authJwks === undefined && jwtOnly.length > 0) throw new http.RunnerHttpConfigError(`${jwtOnly.join(', ')} need --auth-jwks`);
  if (flags.authJwks !== undefined) {
    if (!flags.authIssuer || !flags.authAudience)
      throw new http.RunnerHttpConfigError('--auth-jwks needs --auth-issuer and --auth-audience');
    const authenticator = http.createJwtAuthenticator({
      jwks: await http.loadJwks(flags.authJwks),
      issuer: flags.authIssuer,
      audience: flags.authAudience,
      ...(flags.authTenantClaim ? { claims: { tenant: flags.authTenantClaim } } : {}),
    });
    return { authenticator, label: `JWTs from ${flags.authIssuer} for ${flags.authAudience}, keys from ${flags.authJwks}` };
  }
  if (flags.authTokens !== undefined) {
    const tokens = await http.loadTokensFile(flags.authTokens);
    return {
      authenticator: http.createTokenAuthenticator({ tokens }),
      label: `per-caller bearer tokens from ${flags.authTokens} (${tokens.length})`,
    };
  }
  if (flags.trustIdentityHeaders) {
    return {
      authenticator: http.createTrustedHeaderAuthenticator(),
      label: 'X-Baton-Tenant / X-Baton-Subject / X-Baton-Roles set by the authenticating proxy',
    };
  }
  return { authenticator: undefined, label: 'single-tenant: no caller identity (X-Baton-* headers refused; see --auth-tokens)' };
}

/** The runner as `baton serve` calls it: the result lists the packets that crossed (when the gate is on). */
export function packetReportingRunner(options: {
  runner: RunnerLike;
  store: Pick<ThreadStore, 'listAudit'>;
  packets: boolean;
}): RunnerLike {
  const submit = options.runner.submitApprovals?.bind(options.runner);
  return {
    async run(request) {
      const result = await options.runner.run(request);
      return options.packets ? withPacketSummaries(options.store, result) : result;
    },
    // Resumable approvals (POST /v1/runs/:run_id/approvals) pass through when the runner has them.
    ...(submit
      ? {
          async submitApprovals(request: Parameters<typeof submit>[0]) {
            const result = await submit(request);
            return options.packets ? withPacketSummaries(options.store, result) : result;
          },
        }
      : {}),
  };
}
