import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { GuardrailChecker } from '@baton/guardrail-client';
import type { GuardrailValidator } from '@baton/manifest';
import type * as Packets from '@baton/packets';
import type { PacketKeys } from '@baton/packets';
import type { HandoffGate, RunRequest, RunResult, SubmitApprovalsRequest, SystemTool, ThreadStore } from '@baton/runner';
import type { Delegation } from '@baton/skills';
import { RequestCaptures } from './captures.js';
import { Closer } from './closer.js';
import type { BatonStack, BatonStackConfig, StackRunner } from './config.js';
import { StackClosedError, StackConfigError } from './errors.js';
import { withSystemTools } from './registry.js';
import { loadToolModules, mergeTools } from './tools.js';

/** Thrown by `runner.run()` after `close()`: the store and guardrail are gone. */
export { StackClosedError };

/**
 * The one composition root: builds the registry, store, guardrail validator, packet gate,
 * delegation, tracing and request captures from `config` and wires them into a Runner. `baton run`,
 * `baton serve`, `baton worker` and the demo all start here. Optional parts are imported only when
 * configured. On a failure part-way, whatever was already built is released before the error is
 * rethrown (release failures are attached to it as `cleanupErrors`).
 */
export async function createBatonStack(config: BatonStackConfig): Promise<BatonStack> {
  const closer = new Closer();
  try {
    return await build(config, closer);
  } catch (err) {
    await closer.close().catch((closeErr: unknown) => {
      if (err !== null && typeof err === 'object')
        Object.defineProperty(err, 'cleanupErrors', { value: (closeErr as AggregateError).errors, enumerable: false });
    });
    throw err;
  }
}

type PacketsModule = typeof Packets;

async function build(config: BatonStackConfig, closer: Closer): Promise<BatonStack> {
  // Checked before anything is built, so a JavaScript caller gets a sentence rather than a TypeError.
  if (typeof config !== 'object' || config === null) throw new StackConfigError('createBatonStack needs a configuration object');
  if (typeof config.store !== 'object' || config.store === null)
    throw new StackConfigError('createBatonStack needs store: { file } or { store }');
  if (typeof config.guardrail !== 'object' || config.guardrail === null)
    throw new StackConfigError('createBatonStack needs guardrail: { client }, { engine } or { validator }');
  const env = config.env ?? process.env;
  // A store or guardrail handed in belongs to the stack from now on: released even if start-up fails.
  const given = 'store' in config.store ? config.store.store : undefined;
  if (given) closer.add('store', () => given.close());
  const guardrail = config.guardrail;
  if ('validator' in guardrail && guardrail.close) closer.add('guardrail', guardrail.close);
  if (!config.registry && config.agentsDir === undefined) throw new StackConfigError('createBatonStack needs agentsDir or registry');

  // Packets first: a broken contract or a bad key stops start-up rather than the first handoff.
  let packets: { contractFile: string; casesFile: string; keys: PacketKeys; ephemeralKeys: boolean; module: PacketsModule } | undefined;
  if (config.packets) {
    const module = await import('@baton/packets');
    const contractFile = resolve(config.packets.contractFile);
    const casesFile = resolve(config.packets.casesFile);
    await module.loadRecipientContract(contractFile);
    // Ephemeral keys keep a local run working out of the box, but their digests reconcile only
    // inside this process; a short or reused key is always refused.
    const fromEnv = config.packets.keys ? undefined : module.packetKeysFromEnv({ env, allowEphemeral: true });
    const keys = config.packets.keys ?? (fromEnv as PacketKeys);
    packets = { contractFile, casesFile, keys, ephemeralKeys: fromEnv?.ephemeral ?? false, module };
  }

  const runnerModule = await import('@baton/runner');

  // Tracing before anything that makes spans, so every span is exported; shut down last.
  if (config.tracing) {
    const tracing = (await import('@baton/tracing')).setupTracing(config.tracing);
    closer.add('tracing', () => tracing.shutdown());
  }

  let registry = config.registry ?? (await runnerModule.loadAgentRegistry({ dir: resolve(config.agentsDir as string) }));
  if (config.extraSystemTools) registry = withSystemTools(registry, config.extraSystemTools, config.agentsDir ?? 'the registry');

  const tools = mergeTools(config.toolModules ? await loadToolModules(config.toolModules) : {}, config.tools ?? {});

  const captures = config.capture ? new RequestCaptures(config.capture) : undefined;
  await captures?.open();
  const model = await runnerModule.resolveModelProvider({
    env,
    ...(config.scenarioFile ? { scenarioFile: config.scenarioFile } : {}),
    ...(captures ? { fetch: captures.fetch } : {}),
  });

  let store: ThreadStore;
  if (given) {
    store = given;
  } else {
    const { file, recoverOnOpen } = config.store as { file: string; recoverOnOpen?: boolean };
    await mkdir(dirname(resolve(file)), { recursive: true, mode: 0o700 });
    const opened = runnerModule.createSqliteThreadStore({ file: resolve(file), recoverOnOpen: recoverOnOpen ?? true });
    closer.add('store', () => opened.close());
    store = opened;
  }

  let validator: GuardrailValidator;
  if ('validator' in guardrail) {
    validator = guardrail.validator;
  } else if ('client' in guardrail) {
    validator = (await import('@baton/guardrail-client')).createGuardrailClient(guardrail.client);
  } else {
    const [{ createInProcessGuardrail }, { createGuardrailEngine }] = await Promise.all([
      import('@baton/guardrail-client'),
      import('@baton/guardrail-server'),
    ]);
    validator = createInProcessGuardrail(createGuardrailEngine(guardrail.engine));
  }

  // The purpose-bound transfer gate: a handoff target's whole input is a packet of the fields its
  // purpose permits, read from the case data under the authenticated caller, never the
  // coordinator's history. Decisions and boundary proofs go to the same store.
  let handoffGate: HandoffGate | undefined;
  if (packets) {
    handoffGate = packets.module.createPacketHandoffGate({
      policyStore: packets.module.createFilePolicyStore({ file: packets.contractFile }),
      caseData: packets.module.createFileCaseDataSource({ file: packets.casesFile }),
      keys: packets.keys,
      audit: store,
      guardrail: validator,
    });
  }

  // Delegation and the runner need each other (agent subagents run on the runner; the runner
  // offers delegate_task): the delegation calls the stack runner, bound once it exists.
  const late: { runner?: StackRunner; checker?: GuardrailChecker } = {};
  let delegation: Delegation | undefined;
  const systemTools: SystemTool[] = [...(config.systemTools ?? [])];
  if (config.delegation) {
    delegation = (await import('@baton/skills')).createDelegation({
      ...config.delegation,
      runner: { run: (request) => (late.runner as StackRunner).run(request as RunRequest) },
      // The runner's checker, so delegation's checks get its guardrail timeout and fail policy
      // (one policy, not a second checker with defaults). Bound once the runner exists, before
      // any delegation can run.
      guardrails: lateChecker(late),
    });
    const created = delegation;
    closer.add('delegation', () => created.shutdown());
    const tool = delegation.delegateTaskTool as SystemTool;
    systemTools.push(tool);
  }

  const onModelRequest = config.onModelRequest;
  const core = new runnerModule.Runner({
    registry,
    tools,
    guardrails: validator,
    ...(config.guardrailFailOpen ? { guardrailFailOpen: [...config.guardrailFailOpen] } : {}),
    store,
    modelProvider: model.provider,
    modelLabel: model.label,
    ...(handoffGate ? { handoffGate } : {}),
    ...(systemTools.length > 0 ? { systemTools } : {}),
    ...(config.limits ? { limits: config.limits } : {}),
    ...(config.onEvent ? { onEvent: config.onEvent } : {}),
    ...(captures || onModelRequest
      ? {
          onModelRequest: async (event: Parameters<NonNullable<typeof onModelRequest>>[0]) => {
            await captures?.onModelRequest(event);
            await onModelRequest?.(event);
          },
        }
      : {}),
  });

  let closed = false;
  closer.add('runner', () => {
    closed = true;
  });
  const stackRunner: StackRunner = {
    run(request: RunRequest): Promise<RunResult> {
      if (closed) return Promise.reject(new StackClosedError());
      return captures ? captures.inCall(() => core.run(request)) : core.run(request);
    },
    submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult> {
      if (closed) return Promise.reject(new StackClosedError());
      return captures ? captures.inCall(() => core.submitApprovals(request)) : core.submitApprovals(request);
    },
  };

  late.runner = stackRunner;
  late.checker = core.guardrailChecker;
  return {
    runner: stackRunner,
    registry,
    store,
    validator,
    model: { label: model.label, api: model.api },
    scenarioFile: config.scenarioFile,
    packets: packets
      ? { contractFile: packets.contractFile, casesFile: packets.casesFile, keys: packets.keys, ephemeralKeys: packets.ephemeralKeys }
      : undefined,
    delegation,
    close: () => closer.close(),
  };
}

/** The runner's guardrail checker, reached once the runner is built (delegation is built first). */
function lateChecker(late: { checker?: GuardrailChecker }): GuardrailChecker {
  const bound = (): GuardrailChecker => {
    // Unreachable through the stack: delegate_task only runs inside the runner built right after.
    if (!late.checker) throw new StackConfigError('delegation checked a guardrail before the stack runner was built');
    return late.checker;
  };
  return {
    check: (input) => bound().check(input),
    get timeoutMs() {
      return bound().timeoutMs;
    },
  };
}
