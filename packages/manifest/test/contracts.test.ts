import { describe, expect, it } from 'vitest';
import {
  DelegatedTaskSchema,
  EditLedgerEntrySchema,
  ERROR_KINDS,
  RUN_STATUSES,
  errorKindOf,
  exitCodeForKind,
} from '../src/contracts/index.js';
import { MANIFEST_ERROR_CODES, ManifestUsageError, ManifestValidationError } from '../src/index.js';

const task = () => ({
  args: { subagent_type: 'echo', instruction_set: 'Price', input_data: { q: 1 } },
  scope: { depth: 0, maxDepth: 3, lineage: ['parent'] },
  context: { threadId: 't1', idempotencyKey: 'job_1#r0.call0' },
});

describe('DelegatedTaskSchema (the one, strict)', () => {
  it('accepts a task and applies the delegate_task defaults', () => {
    const parsed = DelegatedTaskSchema.parse(task());
    expect(parsed.args.max_iterations).toBe(5);
    expect(parsed.scope).toEqual({ depth: 0, maxDepth: 3, lineage: ['parent'] });
  });

  it.each([
    ['an unknown envelope key', { ...task(), extra: 1 }],
    ['an unknown scope key', { ...task(), scope: { ...task().scope, extra: 1 } }],
    ['an unknown context key', { ...task(), context: { ...task().context, extra: 'x' } }],
    ['an unknown args key', { ...task(), args: { ...task().args, extra: true } }],
    ['args without instruction_set', { ...task(), args: { subagent_type: 'echo', input_data: {} } }],
    ['an empty idempotency key', { ...task(), context: { idempotencyKey: '' } }],
    ['a negative depth', { ...task(), scope: { depth: -1, maxDepth: 3, lineage: [] } }],
    [
      'a __proto__ key in the envelope',
      JSON.parse(
        '{"args":{"subagent_type":"e","instruction_set":"i","input_data":{}},"scope":{"depth":0,"maxDepth":1,"lineage":[]},"context":{},"__proto__":{"x":1}}',
      ),
    ],
  ])('refuses %s', (_what, value) => {
    expect(DelegatedTaskSchema.safeParse(value).success).toBe(false);
  });
});

describe('EditLedgerEntrySchema', () => {
  it('accepts an entry and refuses a bad hash', () => {
    const entry = {
      state: 'pending',
      files: [{ path: 'a.txt', sha256: 'a'.repeat(64) }],
      response: { status: 'SUCCESS', output_payload: {} },
      at: '2026-01-01T00:00:00Z',
    };
    expect(EditLedgerEntrySchema.safeParse(entry).success).toBe(true);
    expect(EditLedgerEntrySchema.safeParse({ ...entry, files: [{ path: 'a.txt', sha256: 'nothex' }] }).success).toBe(false);
  });
});

describe('error kinds', () => {
  it('reads the kind of a Baton error and treats anything else as internal', () => {
    expect(errorKindOf(new ManifestUsageError('bad'))).toBe('usage');
    expect(errorKindOf(new ManifestValidationError([]))).toBe('config');
    expect(errorKindOf(new Error('x'))).toBe('internal');
    expect(errorKindOf({ kind: 'nonsense' })).toBe('internal');
    expect(errorKindOf(null)).toBe('internal');
    expect(errorKindOf('usage')).toBe('internal');
  });

  it('maps kinds to the CLI exit codes: usage 2, everything else 1', () => {
    expect(ERROR_KINDS.map((k) => [k, exitCodeForKind(k)])).toEqual([
      ['usage', 2],
      ['config', 1],
      ['upstream', 1],
      ['internal', 1],
    ]);
  });

  it("gives every registered manifest code a known kind, and the error its code's kind", () => {
    for (const kind of Object.values(MANIFEST_ERROR_CODES)) expect(ERROR_KINDS).toContain(kind);
    const err = new ManifestUsageError('bad');
    expect(err.kind).toBe(MANIFEST_ERROR_CODES[err.code]);
  });

  it('lists the run statuses once', () => {
    expect(new Set(RUN_STATUSES).size).toBe(RUN_STATUSES.length);
    expect(RUN_STATUSES).toContain('completed');
  });
});
