import type { Command } from 'commander';
import type * as GuardrailEngineModule from '@baton/guardrail-server';
import { UsageError } from '../errors.js';

/** Options of {@link runGuardrailServe}, the testable core of `baton guardrail serve`. */
export interface GuardrailServeOptions {
  /** Address to bind; default 127.0.0.1. */
  host?: string;
  /** Port as typed on the command line; default "8787"; "0" picks a free port. */
  port?: string;
  /** YAML policy file; default the built-in safe policy. */
  policy?: string;
  /** Bearer token; default `BATON_GUARDRAIL_TOKEN`. Required off loopback. */
  token?: string;
  /** JSON log level on stderr: debug, info (default), warn, error or silent. */
  logLevel?: string;
  /** Environment to read BATON_GUARDRAIL_TOKEN from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the listening URL goes (one line). Default: process.stdout. */
  stdout?: (text: string) => void;
  /** Where errors and logs go. Default: process.stderr. */
  stderr?: (text: string) => void;
  /** Resolves when the service should stop. Default: the first SIGINT or SIGTERM. */
  stopSignal?: Promise<unknown>;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Serves the guardrail until stopped. Returns the exit code: 0 after a clean shutdown, 1 when
 * the service can't start (bad policy, port in use), 2 for usage errors.
 */
export async function runGuardrailServe(options: GuardrailServeOptions = {}): Promise<number> {
  const out = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = options.stderr ?? ((text: string) => void process.stderr.write(text));
  let config;
  try {
    config = parseServeOptions(options);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`baton guardrail serve: ${error.message}\n`);
      return 2;
    }
    throw error;
  }

  // Heavy modules load here, not at startup, so `baton --help` stays fast.
  const [{ createGuardrailServer, isLoopbackHost }, engineModule] = await Promise.all([
    import('@baton/guardrail-server/http'),
    import('@baton/guardrail-server'),
  ]);
  if (config.token === undefined && !isLoopbackHost(config.host)) {
    err(
      `baton guardrail serve: --host ${config.host} is not a loopback address; set --token or BATON_GUARDRAIL_TOKEN to require a bearer token\n`,
    );
    return 2;
  }

  let validator;
  try {
    validator = await createEngine(engineModule, config.policy);
  } catch (error) {
    err(`baton guardrail serve: ${config.policy ? `cannot load policy ${config.policy}: ` : ''}${messageOf(error)}\n`);
    return 1;
  }

  const logger = config.logLevel === 'silent' ? false : { level: config.logLevel, destination: { write: (line: string) => err(line) } };
  const stop = options.stopSignal ?? onceSignalled();
  let server;
  try {
    server = createGuardrailServer({
      validator,
      host: config.host,
      port: config.port,
      ...(config.token ? { token: config.token } : {}),
      logger,
    });
    const { url } = await server.listen();
    out(`${url}\n`);
  } catch (error) {
    await server?.close().catch(() => undefined);
    err(`baton guardrail serve: ${messageOf(error)}\n`);
    return 1;
  }
  await stop;
  await server.close();
  return 0;
}

function parseServeOptions(options: GuardrailServeOptions) {
  const host = (options.host ?? '127.0.0.1').trim();
  if (host === '') throw new UsageError('--host must not be empty');
  const portText = options.port ?? '8787';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535; got ${JSON.stringify(portText)}`);
  }
  const token = options.token ?? (options.env ?? process.env)['BATON_GUARDRAIL_TOKEN'];
  if (token !== undefined && (token === '' || /\s/.test(token))) {
    throw new UsageError('the token (--token or BATON_GUARDRAIL_TOKEN) must be non-empty and contain no whitespace');
  }
  const logLevel = (options.logLevel ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(options.logLevel)}`);
  return { host, port: Number(portText), token, policy: options.policy, logLevel };
}

async function createEngine(engine: typeof GuardrailEngineModule, policyFile: string | undefined) {
  const policy = policyFile === undefined ? undefined : await engine.loadPolicyFile(policyFile);
  return engine.createGuardrailEngine(policy === undefined ? {} : { policy });
}

function onceSignalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      // A second signal while draining means "now".
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Registers `baton guardrail serve`. */
export function register(program: Command): void {
  const guardrail = program.command('guardrail').description('the guardrail service (POST /v1/validate)');
  guardrail
    .command('serve')
    .description('serve POST /v1/validate and GET /healthz; prints the listening URL on one line')
    .option('--host <host>', 'address to bind (a non-loopback address needs a token)', '127.0.0.1')
    .option('--port <port>', 'port to bind; 0 picks a free port', '8787')
    .option('--policy <file>', 'YAML policy file (default: the built-in safe policy)')
    .option(
      '--token <token>',
      'bearer token required on /v1/validate (default: $BATON_GUARDRAIL_TOKEN, which other users cannot read from ps)',
    )
    .option('--log-level <level>', `JSON request logs on stderr: ${LOG_LEVELS.join(', ')}`, 'info')
    .action(async (opts: { host: string; port: string; policy?: string; token?: string; logLevel: string }) => {
      const code = await runGuardrailServe({
        host: opts.host,
        port: opts.port,
        logLevel: opts.logLevel,
        ...(opts.policy !== undefined ? { policy: opts.policy } : {}),
        ...(opts.token !== undefined ? { token: opts.token } : {}),
      });
      process.exitCode = code;
    });
}
