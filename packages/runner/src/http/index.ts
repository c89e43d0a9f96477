// @baton/runner/http: the runner as an HTTP service (loads Fastify).
export { createRunnerServer, RUNNER_SERVER_DEFAULTS, type RunnerServer, type RunnerServerOptions, type RunnerLike } from './server.js';
export { RunnerHttpConfigError, RunnerHttpListenError, type RunnerHttpErrorBody } from './errors.js';
export { threadView } from './threads.js';
