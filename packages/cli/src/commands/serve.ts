import { Option } from 'commander';
import type { Command } from 'commander';
import type { ThreadStore } from '@baton/runner';
import type { RunnerLike } from '@baton/runner/http';
import { addQueueOptions, type QueueCommandOptions } from './queue-options.js';
import { addDelegationOptions, addRunnerSetupOptions, runnerSetupFields, type RunnerSetupCommandOptions } from './runner-options.js';
import type { DelegationCommandOptions } from './delegation-setup.js';

/** What `baton serve` needs of its set-up: an in-process runner, or a producer onto the queue. */
interface ServeSetup {
  runner: RunnerLike;
  store: ThreadStore;
  label: string;
  packets: { contractFile: string; casesFile: string; ephemeralKeys: boolean } | undefined;
  close(): Promise<void>;
}

interface ServeCommandOptions extends RunnerSetupCommandOptions, QueueCommandOptions, DelegationCommandOptions {
  host: string;
  port: string;
  agents: string;
  token?: string;
  authTokens?: string;
  trustIdentityHeaders?: boolean;
  authJwks?: string;
  authIssuer?: string;
  authAudience?: string;
  authTenantClaim?: string;
  capture?: string;
}

/** `baton serve`: the runner as an HTTP service until SIGINT/SIGTERM. */
export function register(program: Command): void {
  const command = program
    .command('serve')
    .description('serve the runner over HTTP: POST /v1/runs, GET /v1/threads/:id, GET /healthz')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port to bind (0 picks a free one)', '8788')
    .option('--agents <dir>', 'directory of *.agent.yml manifests (and baton.yml)', 'agents')
    .addOption(
      new Option(
        '--token <token>',
        'one shared bearer token required on /v1/* (single-tenant; required off loopback without --auth-tokens)',
      ).env('BATON_RUNNER_TOKEN'),
    )
    .option(
      '--auth-tokens <file>',
      "YAML/JSON file mapping bearer tokens (or their sha256) to { tenant, subject, roles, cases? }; threads belong to the caller's tenant",
    )
    .option(
      '--auth-jwks <url|file>',
      'verify bearer JWTs against this JWKS (https URL, or a JSON file); needs --auth-issuer and --auth-audience',
    )
    .option('--auth-issuer <iss>', 'required JWT issuer (with --auth-jwks)')
    .option('--auth-audience <aud>', 'required JWT audience (with --auth-jwks)')
    .option(
      '--auth-tenant-claim <name>',
      'JWT claim holding the tenant (default "tenant"; subject from "sub", roles from "roles", cases from "cases")',
    )
    .option(
      '--trust-identity-headers',
      'take the caller identity from X-Baton-Tenant/-Subject/-Roles/-Cases (only behind an authenticating proxy that sets them; needs --token off loopback)',
    );
  addQueueOptions(command, false);
  addDelegationOptions(addRunnerSetupOptions(command))
    .option('--capture <dir>', 'write every model request, exactly as sent, to <dir>/<first run id of the call>/<sequence>-<agent id>.json')
    .action(async (opts: ServeCommandOptions) => {
      process.exitCode = await serveCommand(opts);
    });
}

async function serveCommand(opts: ServeCommandOptions): Promise<number> {
  const [{ UsageError }, { setupRunnerWithDelegation }] = await Promise.all([import('./runner-setup.js'), import('./delegation-setup.js')]);
  const port = Number(opts.port);
  if (!/^\d+$/.test(opts.port) || port > 65535) {
    process.stderr.write(`baton serve: --port must be an integer from 0 to 65535; got ${JSON.stringify(opts.port)}\n`);
    return 2;
  }
  let setup: ServeSetup | undefined;
  try {
    const { packetReportingRunner, serveAuthenticator } = await import('./serve-auth.js');
    const identity = await serveAuthenticator({
      authTokens: opts.authTokens,
      trustIdentityHeaders: opts.trustIdentityHeaders,
      authJwks: opts.authJwks,
      authIssuer: opts.authIssuer,
      authAudience: opts.authAudience,
      authTenantClaim: opts.authTenantClaim,
    });
    // With --queue the workers delegate (`baton worker --skills`); this process only enqueues.
    if (opts.queue !== undefined && opts.skills !== undefined)
      throw new UsageError('--skills applies to in-process runs; with --queue, pass it to baton worker');
    if (opts.queue !== undefined && opts.capture !== undefined)
      throw new UsageError('--capture applies to in-process runs; with --queue the workers send the model requests');
    setup =
      opts.queue !== undefined
        ? await (await import('./queue-producer.js')).setupQueueProducer(opts)
        : await setupRunnerWithDelegation({
            agentsDir: opts.agents,
            storeFile: opts.store,
            env: process.env,
            ...runnerSetupFields(opts, process.env),
            // Calls run concurrently here: each call's requests go to their own directory.
            ...(opts.capture ? { captureDir: opts.capture, captureLayout: 'per-call' as const } : {}),
            delegation: { skills: opts.skills, workspace: opts.workspace, applyEdits: opts.applyEdits },
          });
    const { createRunnerServer } = await import('@baton/runner/http');
    const runner = packetReportingRunner({ runner: setup.runner, store: setup.store, packets: setup.packets !== undefined });
    const server = createRunnerServer({
      runner,
      store: setup.store,
      host: opts.host,
      port,
      ...(opts.token ? { token: opts.token } : {}),
      ...(identity.authenticator ? { authenticator: identity.authenticator } : {}),
    });
    const { url } = await server.listen();
    process.stdout.write(`baton serve: listening on ${url} (model: ${setup.label})\n`);
    process.stderr.write(`baton serve: caller identity: ${identity.label}\n`);
    if (setup.packets) {
      process.stderr.write(
        `baton serve: handoffs go through purpose-bound packets (contract ${setup.packets.contractFile}, case data ${setup.packets.casesFile})\n`,
      );
      if (setup.packets.ephemeralKeys) {
        process.stderr.write(
          'baton serve: packet keys are ephemeral for this process; set BATON_PACKET_REFERENCE_KEY and BATON_PACKET_AUDIT_KEY (32+ bytes each) to reconcile audit digests later\n',
        );
      }
    }
    const current = setup;
    await new Promise<void>((resolveStop) => {
      const stop = (signal: string) => {
        process.stderr.write(`baton serve: ${signal}, finishing in-flight runs\n`);
        void server
          .close()
          .then(() => current.close())
          .finally(() => resolveStop());
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    setup = undefined;
    return 0;
  } catch (err) {
    process.stderr.write(`baton serve: ${(err as Error).message ?? String(err)}\n`);
    return (await import('../errors.js')).exitCodeFor(err);
  } finally {
    await setup?.close().catch(() => undefined);
  }
}
