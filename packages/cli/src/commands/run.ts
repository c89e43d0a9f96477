import type { Command } from 'commander';
import { addDelegationOptions, addRunnerSetupOptions, runnerSetupFields, type RunnerSetupCommandOptions } from './runner-options.js';
import type { DelegationCommandOptions } from './delegation-setup.js';

/** Options of `baton run`, as commander parses them. */
interface RunCommandOptions extends RunnerSetupCommandOptions, DelegationCommandOptions {
  agents: string;
  agent: string;
  input: string;
  thread?: string;
  traceparent?: string;
  tracestate?: string;
  capture?: string;
  tenant?: string;
  subject?: string;
  roles?: string;
  stream?: boolean;
  json?: boolean;
}

/**
 * `baton run`: one run (plus any handoffs), printing the result object as JSON on stdout.
 * Exit 0 when the last run completed, 1 when it failed or was blocked, 2 on a usage error.
 */
export function register(program: Command): void {
  const command = program
    .command('run')
    .description('run an agent once and print the result object as JSON (offline model unless OPENAI_API_KEY or OPENAI_BASE_URL is set)')
    .requiredOption('--agents <dir>', 'directory of *.agent.yml manifests (and baton.yml)')
    .requiredOption('--agent <id>', 'id of the agent to run')
    .requiredOption('--input <text>', 'the user message')
    .option('--thread <id>', 'continue this thread')
    .option('--traceparent <tp>', 'W3C traceparent to continue')
    .option('--tracestate <ts>', 'W3C tracestate to carry');
  addDelegationOptions(addRunnerSetupOptions(command))
    .option('--capture <dir>', 'write every model request, exactly as sent, to <dir>/<sequence>-<agent id>.json')
    .option('--tenant <tenant>', 'authenticated tenant of the caller (packets need --tenant, --subject and --roles)')
    .option('--subject <subject>', 'authenticated user or service id of the caller')
    .option('--roles <r1,r2>', 'roles the caller holds, comma-separated')
    .option('--stream', 'print the answer as the guardrail releases it (events as lines on stderr) instead of the result JSON')
    .option('--json', 'with --stream: print every event, then the result, as JSON lines on stdout')
    .action(async (opts: RunCommandOptions) => {
      process.exitCode = await runCommand(opts);
    });
}

async function runCommand(opts: RunCommandOptions): Promise<number> {
  const [{ UsageError }, { setupRunnerWithDelegation }, { parseAuth, withPacketSummaries, AuthInputError, FLAG_NAMES }] = await Promise.all(
    [import('./runner-setup.js'), import('./delegation-setup.js'), import('./packet-support.js')],
  );
  let setup: Awaited<ReturnType<typeof setupRunnerWithDelegation>> | undefined;
  try {
    if (opts.input.trim() === '') throw new UsageError('--input must not be empty');
    if (opts.json && !opts.stream) throw new UsageError('--json applies to --stream (without it the result is printed as JSON already)');
    const printer = opts.stream
      ? (await import('./run-stream.js')).createStreamPrinter({ json: opts.json === true, stdout: process.stdout, stderr: process.stderr })
      : undefined;
    let auth: ReturnType<typeof parseAuth>;
    try {
      // The operator running the command is the authenticated caller; nothing the model writes can change it.
      auth = parseAuth({ tenant: opts.tenant, subject: opts.subject, roles: opts.roles }, FLAG_NAMES);
    } catch (err) {
      throw err instanceof AuthInputError ? new UsageError(err.message) : err;
    }
    setup = await setupRunnerWithDelegation({
      agentsDir: opts.agents,
      storeFile: opts.store,
      env: process.env,
      ...runnerSetupFields(opts, process.env),
      ...(opts.capture ? { captureDir: opts.capture } : {}),
      delegation: { skills: opts.skills, workspace: opts.workspace, applyEdits: opts.applyEdits },
    });
    if (setup.label === 'offline model')
      process.stderr.write(`baton run: using the offline model${setup.scenarioFile ? ` (scenario ${setup.scenarioFile})` : ''}\n`);
    if (setup.packets) {
      process.stderr.write(
        `baton run: handoffs go through purpose-bound packets (contract ${setup.packets.contractFile}, case data ${setup.packets.casesFile})\n`,
      );
      if (setup.packets.ephemeralKeys) {
        process.stderr.write(
          'baton run: packet keys are ephemeral for this process; set BATON_PACKET_REFERENCE_KEY and BATON_PACKET_AUDIT_KEY (32+ bytes each) to reconcile audit digests later\n',
        );
      }
    }
    if (setup.canaries && setup.canaries.count > 0) {
      process.stderr.write(
        setup.canaries.loaded
          ? `baton run: the guardrail blocks ${setup.canaries.count} canary marker(s) from ${setup.canaries.file}\n`
          : `baton run: ${setup.canaries.file} holds ${setup.canaries.count} canary marker(s); list them in the guardrail service's policy (leakage.canaries)\n`,
      );
    }
    let result = await setup.runner.run({
      agentId: opts.agent,
      input: opts.input,
      ...(opts.thread ? { threadId: opts.thread } : {}),
      ...(opts.traceparent ? { traceparent: opts.traceparent } : {}),
      ...(opts.tracestate ? { tracestate: opts.tracestate } : {}),
      ...(auth ? { auth } : {}),
      ...(printer ? { stream: true, onEvent: printer.onEvent } : {}),
    });
    if (setup.packets) result = await withPacketSummaries(setup.store, result);
    if (printer) await printer.finish(result);
    else process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    if (result.status === 'completed') return 0;
    // The JSON above is for programs; say what stopped the run in one line for people too.
    if (result.status === 'requires_action' && result.required_action) {
      const action = result.required_action;
      const tools = action.approvals.map((a) => a.tool_name).join(', ');
      process.stderr.write(
        `baton run: run ${action.run_id} waits for approval of ${action.approvals.length} call(s) (${tools}) until ${action.expires_at}; ` +
          `it is kept in the store: decide it with POST /v1/runs/${action.run_id}/approvals on \`baton serve\` over the same store\n`,
      );
    }
    if (result.error) {
      process.stderr.write(`baton run: the run ${result.status}: ${result.error.code}: ${result.error.message}\n`);
      if (result.error.code === 'MISSING_AUTHORIZATION') {
        process.stderr.write(
          'baton run: the handoff needs an authenticated caller: pass --tenant <tenant> --subject <id> --roles <r1,r2>\n',
        );
      }
    }
    return 1;
  } catch (err) {
    process.stderr.write(`baton run: ${(err as Error).message ?? String(err)}\n`);
    return (await import('../errors.js')).exitCodeFor(err);
  } finally {
    await setup?.close().catch(() => undefined);
  }
}
