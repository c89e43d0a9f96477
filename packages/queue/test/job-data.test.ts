import { describe, expect, it } from 'vitest';
import { InvalidJobDataError } from '../src/errors.js';
import { parseRunsQueueJobData, parseTaskJobData } from '../src/job-data.js';

const job = (task: Record<string, unknown>) => ({ v: 1, kind: 'task', task, trace: {} });
const task = () => ({
  args: { subagent_type: 's', instruction_set: 'i', input_data: {} },
  scope: { depth: 0, maxDepth: 3, lineage: [] },
  context: { idempotencyKey: 'k1' },
});

describe('task job data: the one strict DelegatedTaskSchema', () => {
  it('reads a task and applies the delegate_task defaults', () => {
    expect(parseTaskJobData(job(task())).task.args.max_iterations).toBe(5);
  });

  it.each([
    ['args that are not delegate_task arguments', { ...task(), args: { anything: true } }],
    ['an unknown args key', { ...task(), args: { ...task().args, extra: 1 } }],
    ['an unknown context key', { ...task(), context: { extra: 'x' } }],
    ['an empty idempotency key', { ...task(), context: { idempotencyKey: '' } }],
  ])('refuses %s with QUEUE_INVALID_JOB', (_what, bad) => {
    let caught: unknown;
    try {
      parseTaskJobData(job(bad));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidJobDataError);
    expect(caught).toMatchObject({ code: 'QUEUE_INVALID_JOB', kind: 'upstream' });
  });
});

describe('approvals job data', () => {
  const approvals = (request: Record<string, unknown>) => ({ v: 1, kind: 'approvals', request, trace: {} });

  it('reads decisions for a paused run and tells the kinds apart', () => {
    const data = parseRunsQueueJobData(approvals({ run_id: 'run_1', decisions: [{ id: 'appr_1', approve: true }] }));
    expect(data.kind).toBe('approvals');
    const run = parseRunsQueueJobData({ v: 1, kind: 'run', request: { agent_id: 'a.b', input: 'hi', thread_id: 't' }, trace: {} });
    expect(run.kind).toBe('run');
  });

  it.each([
    ['no run id', { decisions: [] }],
    ['an empty run id', { run_id: '', decisions: [] }],
    ['decisions that are not an array', { run_id: 'r', decisions: { id: 'x' } }],
    ['more than 1,024 decisions', { run_id: 'r', decisions: Array.from({ length: 1025 }, () => ({})) }],
    ['an unknown key', { run_id: 'r', decisions: [], thread: 't' }],
  ])('refuses %s with QUEUE_INVALID_JOB', (_what, request) => {
    expect(() => parseRunsQueueJobData(approvals(request))).toThrow(InvalidJobDataError);
  });
});
