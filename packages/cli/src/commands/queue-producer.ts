import { resolve } from 'node:path';
import type { RunRequest, RunResult, SubmitApprovalsRequest } from '@baton/runner';
import type { QueueCommandOptions } from './queue-options.js';
import type { RunnerSetupCommandOptions } from './runner-options.js';
import { UsageError, discoverPacketFiles, positiveIntOption } from './runner-setup.js';

/**
 * `baton serve --queue`: the same HTTP API, but runs are put on the Redis queue for `baton worker`
 * processes. The agents are still loaded here so an unknown agent is a 404 at once rather than a
 * job that fails on a worker; threads and audit records are read from the Redis store the workers
 * write to. Approvals for a paused run (`POST /v1/runs/:run_id/approvals`) are queued the same way.
 */
export async function setupQueueProducer(opts: RunnerSetupCommandOptions & QueueCommandOptions & { agents: string }) {
  const lockLeaseMs = positiveIntOption('--lock-lease', opts.lockLease);
  const [{ loadAgentRegistry, AgentNotFoundError }, queue] = await Promise.all([import('@baton/runner'), import('@baton/queue')]);
  const registry = await loadAgentRegistry({ dir: resolve(opts.agents) }).catch((err: unknown) => {
    throw new UsageError(`--agents ${opts.agents}: ${(err as Error).message}`);
  });
  // The workers build packets when the agents directory has a contract; the result then lists them.
  const packetFiles = await discoverPacketFiles(resolve(opts.agents), opts);
  const connection = opts.queue as string;
  queue.redisOptions(connection, '--queue');
  const store = queue.createRedisThreadStore({ connection, prefix: opts.queuePrefix });
  const producer = queue.createQueueRunner({ connection, prefix: opts.queuePrefix, lockLeaseMs });
  const runner = {
    async run(request: RunRequest): Promise<RunResult> {
      if (!registry.get(request.agentId, request.agentVersion)) {
        throw new AgentNotFoundError(
          `no agent with id '${request.agentId}'${request.agentVersion ? ` and version ${request.agentVersion}` : ''} is registered`,
        );
      }
      return producer.run(request);
    },
    // Decisions for a paused run go to a worker, which resumes it from the shared Redis store.
    submitApprovals: (request: SubmitApprovalsRequest): Promise<RunResult> => producer.submitApprovals(request),
  };
  return {
    runner,
    store,
    label: `queued on ${queue.redact(connection)} (prefix ${opts.queuePrefix}); the workers' model`,
    packets: packetFiles ? { ...packetFiles, ephemeralKeys: false } : undefined,
    async close() {
      await producer.close();
      await store.close();
    },
  };
}
