// @baton/runner/http: the runner as an HTTP service (loads Fastify).
export { createRunnerServer, RUNNER_SERVER_DEFAULTS, type RunnerServer, type RunnerServerOptions, type RunnerLike } from './server.js';
export { RunnerHttpConfigError, RunnerHttpListenError, type RunnerHttpErrorBody } from './errors.js';
export { threadView } from './threads.js';
export { approvalStatusFor, type ApprovalsRunner } from './approvals.js';
export {
  CHOOSE_THREAD_ID_ROLE,
  IDENTITY_HEADERS,
  AuthenticationError,
  IdentityInputError,
  createTrustedHeaderAuthenticator,
  checkIdentity,
  runAuthFor,
  type Authenticator,
  type CallerIdentity,
} from './identity.js';
export {
  createTokenAuthenticator,
  parseTokensFile,
  loadTokensFile,
  type TokenEntry,
  type TokenAuthenticatorOptions,
} from './token-auth.js';
export { createJwtAuthenticator, loadJwks, type JwtAuthenticatorOptions, type JwtClaimNames } from './jwt-auth.js';
