// Public API of @baton/guardrail-server/http: the POST /v1/validate service (loads Fastify).
export { createGuardrailServer, type GuardrailServer } from './server.js';
export { type GuardrailServerOptions, type ServiceValidator, type LogDestination } from './options.js';
export {
  GuardrailHttpError,
  GuardrailHttpConfigError,
  GuardrailHttpListenError,
  type HttpErrorCode,
  type HttpErrorBody,
} from './errors.js';
export { isLoopbackHost } from './auth.js';
