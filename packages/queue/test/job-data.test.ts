import { describe, expect, it } from 'vitest';
import { InvalidJobDataError } from '../src/errors.js';
import { parseTaskJobData } from '../src/job-data.js';

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
