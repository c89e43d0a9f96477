import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createTtyApprovalHook } from '../src/index.js';

const request = { skill: 'cleaner', capabilities: ['file_delete'], task_id: 't1', summary: 'remove build output' };

describe('createTtyApprovalHook', () => {
  it('approves only on y/yes and shows what is asked', async () => {
    for (const [answer, expected] of [
      ['y', true],
      ['YES', true],
      ['n', false],
      ['', false],
      ['sure', false],
    ] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (c: Buffer) => (shown += c.toString()));
      const hook = createTtyApprovalHook({ input, output, allowNonTty: true });
      const pending = hook(request);
      input.write(`${answer}\n`);
      expect(await pending).toBe(expected);
      expect(shown).toContain('Allow subagent "cleaner" to use file_delete for task t1 (remove build output)? [y/N]');
    }
  });

  it('denies when stdin is not a terminal or closes without an answer', async () => {
    expect(await createTtyApprovalHook({ input: new PassThrough(), output: new PassThrough() })(request)).toBe(false);
    const input = new PassThrough();
    const pending = createTtyApprovalHook({ input, output: new PassThrough(), allowNonTty: true })(request);
    input.end();
    expect(await pending).toBe(false);
  });
});
