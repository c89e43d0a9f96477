// `baton serve` wraps the runner (packet summaries); the wrapper must keep resumable approvals
// (POST /v1/runs/:run_id/approvals) reachable, and not invent them for a runner without them.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '@baton/runner';
import { packetReportingRunner } from '../src/commands/serve-auth.js';

const result = (status: RunResult['status']): RunResult => ({
  thread_id: 'thread_1',
  runs: [],
  run_id: 'run_1',
  agent_id: 'io.test.a',
  status,
  response: null,
  state: {},
  guardrail_decisions: [],
  trace_id: '0'.repeat(32),
  model: 'test',
});

describe('packetReportingRunner', () => {
  it('passes submitApprovals through to the runner', async () => {
    const seen: unknown[] = [];
    const wrapped = packetReportingRunner({
      runner: { run: async () => result('requires_action'), submitApprovals: async (request) => (seen.push(request), result('completed')) },
      store: { listAudit: async () => [] },
      packets: false,
    });
    expect(typeof wrapped.submitApprovals).toBe('function');
    const decided = await wrapped.submitApprovals!({ runId: 'run_1', decisions: [{ id: 'appr_1', approve: true }] });
    expect(decided.status).toBe('completed');
    expect(seen).toEqual([{ runId: 'run_1', decisions: [{ id: 'appr_1', approve: true }] }]);
  });

  it('offers no submitApprovals when the runner has none (the route answers 501)', () => {
    const wrapped = packetReportingRunner({
      runner: { run: async () => result('completed') },
      store: { listAudit: async () => [] },
      packets: false,
    });
    expect(wrapped.submitApprovals).toBeUndefined();
  });
});
