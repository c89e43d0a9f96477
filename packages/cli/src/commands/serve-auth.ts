import { AsyncLocalStorage } from 'node:async_hooks';
import type { RunAuth, ThreadStore } from '@baton/runner';
import type { RunnerLike, RunnerServer } from '@baton/runner/http';
import { AuthInputError, HEADER_NAMES, parseAuth, withPacketSummaries } from './packet-support.js';

/**
 * The caller identity for `baton serve`, from `X-Baton-Tenant`, `X-Baton-Subject` and
 * `X-Baton-Roles` on `POST /v1/runs`.
 *
 * Trust model: the headers are an assertion by whoever may call the service. They are honoured
 * only when that set is controlled: a bearer token is configured (the token holder, typically
 * the application's gateway that authenticated the end user, is trusted to assert the identity),
 * or the service listens on loopback only (any local process may assert any identity: for
 * development). The runner server itself refuses a non-loopback address without a token, and the
 * bearer check runs before this hook, so an unauthenticated request never gets here.
 */
export interface AuthenticatedRunnerOptions {
  runner: RunnerLike;
  store: Pick<ThreadStore, 'listAudit'>;
  /** Whether the packet gate is on (the result then lists the packets that crossed). */
  packets: boolean;
}

const HEADERS = { tenant: 'x-baton-tenant', subject: 'x-baton-subject', roles: 'x-baton-roles' } as const;

/** Same rule as the runner server: localhost, ::1 and 127.0.0.0/8 (also IPv4-mapped). */
function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function authenticatedRunner(options: AuthenticatedRunnerOptions) {
  // The server's route calls `runner.run()` with a fixed request shape; the identity travels
  // beside it in async context, set by a hook that sees the request headers.
  const callers = new AsyncLocalStorage<RunAuth>();
  const runner: RunnerLike = {
    async run(request) {
      const auth = callers.getStore();
      const result = await options.runner.run({ ...request, ...(auth ? { auth } : {}) });
      return options.packets ? withPacketSummaries(options.store, result) : result;
    },
  };

  /** Adds the header hook to the server's Fastify app (before `listen()`). */
  const install = (app: RunnerServer['app'], server: { host: string; token?: string | undefined }) => {
    const trusted = server.token !== undefined || isLoopbackHost(server.host);
    app.addHook('preHandler', (request, reply, done) => {
      if (!trusted || request.method !== 'POST' || request.routeOptions.url !== '/v1/runs') {
        done();
        return;
      }
      const read = (name: string): string | undefined => {
        const v = request.headers[name];
        // A repeated header is ambiguous about who is asking; refuse it below as malformed.
        return Array.isArray(v) ? '\u0000' : v;
      };
      let auth: RunAuth | undefined;
      try {
        auth = parseAuth({ tenant: read(HEADERS.tenant), subject: read(HEADERS.subject), roles: read(HEADERS.roles) }, HEADER_NAMES);
      } catch (err) {
        if (!(err instanceof AuthInputError)) throw err;
        void reply.code(400).send({ error: { code: 'invalid_auth', message: err.message } });
        return;
      }
      // The handler runs inside `done()`, so the run started there sees this caller.
      if (auth) callers.run(auth, done);
      else done();
    });
  };

  return { runner, install };
}
