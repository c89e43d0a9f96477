import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResponsePackage } from '@baton/manifest';
import { describe, expect, it } from 'vitest';
import {
  applyEdits,
  createDelegation,
  createFileEditLedger,
  createMemoryEditLedger,
  EditLedgerEntrySchema,
  sha256Hex,
} from '../src/index.js';
import type { CreateDelegationOptions, Delegation, EditLedger, EditLedgerEntry, FileChange } from '../src/index.js';
import { fakeQueue, scriptedRunner } from './helpers/fake-queue.js';
import type { AgentScript } from './helpers/fake-queue.js';
import { tempDir } from './helpers/tmp.js';
import { allowAllGuardrail } from './helpers/guardrail.js';

const EDITOR = 'io.baton.test.editor';
const COORDINATOR = 'io.baton.test.coordinator';
const BEFORE = 'HEAD\n';
const AFTER = 'HEAD\nentry\n';
// Applies again and again if nobody stops it: "HEAD" still matches exactly once after each run.
const APPEND_ENTRY = 'FILE: log.txt\nREPLACE_START\nHEAD\nREPLACE_WITH\nHEAD\nentry\nREPLACE_END\n';
const ARGS = {
  subagent_type: EDITOR,
  instruction_set: 'Append an entry to log.txt.',
  input_data: {},
  success_criteria: [{ type: 'files_changed', paths: ['log.txt'] }],
};

/** A workspace with log.txt, a run counter, and `worker()` making fresh delegation instances (a retried job on a new worker). */
async function setup() {
  const workspace = await tempDir();
  await writeFile(path.join(workspace, 'log.txt'), BEFORE);
  const runs: string[] = [];
  const editor: AgentScript = async (_req, t) => {
    runs.push(t.taskId);
    return { status: 'SUCCESS', output_payload: { edits: APPEND_ENTRY }, log_summary: 'appended' };
  };
  // Has no edits of its own: delegates the edit to EDITOR and passes its answer up.
  const coordinatorRuns: string[] = [];
  const coordinator: AgentScript = async (_req, t) => {
    coordinatorRuns.push(t.taskId);
    const child = await t.delegate(ARGS);
    return {
      status: child.status === 'SUCCESS' ? 'SUCCESS' : 'FAILURE',
      output_payload: { child },
      error_report: child.error_report ?? null,
    };
  };
  const worker = (extra: Partial<CreateDelegationOptions> = {}): Delegation => {
    const holder: { d?: Delegation } = {};
    holder.d = createDelegation({
      guardrails: allowAllGuardrail,
      runner: scriptedRunner({ [EDITOR]: editor, [COORDINATOR]: coordinator }, () => holder.d as Delegation),
      agents: [EDITOR, COORDINATOR],
      workspace,
      applyEdits: true,
      env: {},
      ...extra,
    });
    return holder.d;
  };
  const log = () => readFile(path.join(workspace, 'log.txt'), 'utf8');
  return { workspace, runs, coordinatorRuns, worker, log };
}

/**
 * Wraps a ledger so the worker "crashes" at one point: the matching put never settles (the
 * process is frozen there for good), after storing the entry or not.
 */
function crashingLedger(inner: EditLedger, at: { state: EditLedgerEntry['state']; persisted: boolean }) {
  let signal!: () => void;
  const crashed = new Promise<void>((resolve) => (signal = resolve));
  const ledger: EditLedger = {
    get: (key) => inner.get(key),
    delete: (key) => inner.delete(key),
    async put(key, entry) {
      if (entry.state !== at.state) return inner.put(key, entry);
      if (at.persisted) await inner.put(key, entry);
      signal();
      return new Promise<void>(() => undefined);
    },
  };
  return { ledger, crashed };
}

const SUCCESS: ResponsePackage = { status: 'SUCCESS', output_payload: { edits: APPEND_ENTRY }, log_summary: 'appended' };

describe('crash-safe edits with the edit ledger', () => {
  it('no key: behaviour is unchanged (a repeated task applies its edits again, the ledger is not touched)', async () => {
    const { worker, runs, log } = await setup();
    const ledger = createMemoryEditLedger();
    const d = worker({ editLedger: ledger });
    expect((await d.delegate(ARGS)).status).toBe('SUCCESS');
    expect((await d.delegate(ARGS)).status).toBe('SUCCESS');
    expect(runs).toHaveLength(2);
    expect(await log()).toBe('HEAD\nentry\nentry\n'); // the hazard the ledger exists for
    expect(ledger.size).toBe(0);
  });

  it('(a) retried after the edits were applied and recorded: the recorded result, nothing runs again', async () => {
    const { worker, runs, log } = await setup();
    const ledger = createMemoryEditLedger();
    const first = await worker({ editLedger: ledger }).delegate(ARGS, { idempotencyKey: 'job-1' });
    expect(first).toEqual(SUCCESS);
    const entry = await ledger.get('job-1');
    expect(entry).toMatchObject({ state: 'applied', files: [{ path: 'log.txt', sha256: sha256Hex(AFTER) }], response: SUCCESS });
    expect(EditLedgerEntrySchema.safeParse(entry).success).toBe(true);

    const retry = await worker({ editLedger: ledger }).delegate(ARGS, { idempotencyKey: 'job-1' });
    expect(retry).toEqual(SUCCESS);
    expect(runs).toHaveLength(1);
    expect(await log()).toBe(AFTER);
  });

  it('(b) crash after pending + write, before "applied": the retry sees the post-images on disk and returns the recorded result', async () => {
    const { worker, runs, log } = await setup();
    const store = createFileEditLedger({ dir: path.join(await tempDir(), 'ledger') });
    const crash = crashingLedger(store, { state: 'applied', persisted: false });
    void worker({ editLedger: crash.ledger }).delegate(ARGS, { idempotencyKey: 'job-b' });
    await crash.crashed;
    expect(await log()).toBe(AFTER);
    expect((await store.get('job-b'))?.state).toBe('pending');

    const retry = await worker({ editLedger: store }).delegate(ARGS, { idempotencyKey: 'job-b' });
    expect(retry).toEqual(SUCCESS);
    expect(runs).toHaveLength(1);
    expect(await log()).toBe(AFTER);
    expect((await store.get('job-b'))?.state).toBe('applied');
    // And once more: applied is final.
    expect(await worker({ editLedger: store }).delegate(ARGS, { idempotencyKey: 'job-b' })).toEqual(SUCCESS);
    expect(runs).toHaveLength(1);
  });

  it('(c) crash after pending, before the write: the retry sees nothing landed, forgets the entry and runs again — edits once', async () => {
    const { worker, runs, log } = await setup();
    const store = createMemoryEditLedger();
    const crash = crashingLedger(store, { state: 'pending', persisted: true });
    void worker({ editLedger: crash.ledger }).delegate(ARGS, { idempotencyKey: 'job-c' });
    await crash.crashed;
    expect(await log()).toBe(BEFORE);
    expect((await store.get('job-c'))?.state).toBe('pending');

    const retry = await worker({ editLedger: store }).delegate(ARGS, { idempotencyKey: 'job-c' });
    expect(retry).toEqual(SUCCESS);
    expect(runs).toHaveLength(2);
    expect(await log()).toBe(AFTER);
    expect((await store.get('job-c'))?.state).toBe('applied');
  });

  it('edits undone because a check failed: the entry is deleted, so a retry runs again', async () => {
    const { worker, runs, log } = await setup();
    const ledger = createMemoryEditLedger();
    const failing = { ...ARGS, success_criteria: [{ type: 'regex', pattern: 'never-there' }] };
    const res = await worker({ editLedger: ledger }).delegate(failing, { idempotencyKey: 'job-u' });
    expect(res.status).toBe('FAILURE');
    expect(runs).toHaveLength(2); // one self-correction
    expect(await log()).toBe(BEFORE);
    expect(await ledger.get('job-u')).toBeUndefined();
  });

  it('fails closed: a ledger that cannot record "pending" means nothing is written; one that cannot be read means nothing runs', async () => {
    const { worker, runs, log } = await setup();
    const inner = createMemoryEditLedger();
    const noPut: EditLedger = {
      ...inner,
      get: (k) => inner.get(k),
      delete: (k) => inner.delete(k),
      put: async () => Promise.reject(new Error('READONLY replica')),
    };
    const res = await worker({ editLedger: noPut }).delegate(ARGS, { idempotencyKey: 'job-f' });
    expect(res.status).toBe('FAILURE');
    expect(res.error_report?.code).toBe('ERR_TOOL_FAILURE');
    expect(res.error_report?.message).toMatch(/edit ledger failed \(put pending .*READONLY replica.*no edit was written/);
    expect(await log()).toBe(BEFORE);
    expect(runs).toHaveLength(1); // no self-correction on a ledger failure

    const noGet: EditLedger = {
      ...inner,
      get: async () => Promise.reject(new Error('connection refused')),
      put: (k, e) => inner.put(k, e),
      delete: (k) => inner.delete(k),
    };
    const res2 = await worker({ editLedger: noGet }).delegate(ARGS, { idempotencyKey: 'job-g' });
    expect(res2.error_report?.message).toMatch(/edit ledger failed \(get .*connection refused.*nothing was run/);
    const garbage: EditLedger = { ...noGet, get: async () => ({ state: 'done' }) as unknown as EditLedgerEntry };
    expect((await worker({ editLedger: garbage }).delegate(ARGS, { idempotencyKey: 'job-g' })).error_report?.message).toMatch(
      /not an EditLedgerEntry/,
    );
    expect(runs).toHaveLength(1);
    expect(await log()).toBe(BEFORE);
  });

  it('a pending entry whose edits are only partly on disk is refused (a rerun could apply them twice)', async () => {
    const { workspace, worker, runs } = await setup();
    await writeFile(path.join(workspace, 'b.txt'), 'untouched\n');
    const ledger = createMemoryEditLedger();
    await ledger.put('job-p', {
      state: 'pending',
      files: [
        { path: 'log.txt', sha256: sha256Hex(BEFORE) }, // this one landed
        { path: 'b.txt', sha256: sha256Hex('changed\n') }, // this one did not
      ],
      response: SUCCESS,
      at: new Date().toISOString(),
    });
    const res = await worker({ editLedger: ledger }).delegate(ARGS, { idempotencyKey: 'job-p' });
    expect(res).toMatchObject({
      status: 'FAILURE',
      error_report: { code: 'ERR_TOOL_FAILURE', details: { landed: ['log.txt'], missing: ['b.txt'] } },
    });
    expect(runs).toHaveLength(0);
    expect((await ledger.get('job-p'))?.state).toBe('pending');
  });

  it('a deletion is recorded as a null post-image and recognised as landed', async () => {
    const { workspace, worker, runs } = await setup();
    const ledger = createMemoryEditLedger();
    await ledger.put('job-del', {
      state: 'pending',
      files: [{ path: 'gone.txt', sha256: null }],
      response: SUCCESS,
      at: new Date().toISOString(),
    });
    expect(await worker({ editLedger: ledger }).delegate(ARGS, { idempotencyKey: 'job-del' })).toEqual(SUCCESS);
    expect(runs).toHaveLength(0);
    expect(await readdir(workspace)).not.toContain('gone.txt');
  });

  it('with dispatch: the key travels with the task, so a retried parent job does not apply the edits twice', async () => {
    const { workspace, worker, runs, log } = await setup();
    const ledger = createMemoryEditLedger();
    const workers: Delegation[] = [];
    const queue = fakeQueue(() => workers);
    workers.push(worker({ editLedger: ledger, dispatch: queue.dispatch }), worker({ editLedger: ledger, dispatch: queue.dispatch }));
    const parent = createDelegation({ guardrails: allowAllGuardrail, workspace, dispatch: queue.dispatch, env: {} });
    const ctx = { agentId: 'io.baton.test.root', idempotencyKey: 'run_9/call_0' };
    expect(await parent.delegate(ARGS, ctx)).toEqual(SUCCESS);
    expect(await parent.delegate(ARGS, ctx)).toEqual(SUCCESS); // the parent's job crashed and re-made the call
    expect(queue.jobs.map((j) => j.context.idempotencyKey)).toEqual(['run_9/call_0', 'run_9/call_0']);
    expect(queue.ranOn).toEqual([0, 1]);
    expect(runs).toHaveLength(1);
    expect(await log()).toBe(AFTER);
  });
});

describe('crash-safe edits one level down', () => {
  it("a retried coordinator runs again, but its subagent's edit is keyed by the same call and is not applied twice", async () => {
    const { workspace, worker, runs, coordinatorRuns, log } = await setup();
    const ledger = createMemoryEditLedger();
    const workers: Delegation[] = [];
    const queue = fakeQueue(() => workers);
    workers.push(worker({ editLedger: ledger, dispatch: queue.dispatch }), worker({ editLedger: ledger, dispatch: queue.dispatch }));
    const parent = createDelegation({ guardrails: allowAllGuardrail, workspace, dispatch: queue.dispatch, env: {} });
    const call = { subagent_type: COORDINATOR, instruction_set: 'Get log.txt an entry.', input_data: {} };
    const ctx = { agentId: 'io.baton.test.root', idempotencyKey: 'run_7/call_3' };
    const first = await parent.delegate(call, ctx);
    expect(first).toEqual({ status: 'SUCCESS', output_payload: { child: SUCCESS }, error_report: null });
    const retried = await parent.delegate(call, ctx);
    expect(retried).toEqual(first);
    expect(coordinatorRuns).toHaveLength(2); // no edits of its own: nothing recorded, so it runs again…
    expect(runs).toHaveLength(1); // …but its delegate_task carries the same key, and the ledger answers
    expect(await log()).toBe(AFTER);
    const nestedKeys = queue.jobs.filter((j) => j.args.subagent_type === EDITOR).map((j) => j.context.idempotencyKey);
    expect(nestedKeys).toHaveLength(2);
    expect(nestedKeys[0]).toBe(nestedKeys[1]);
    expect(nestedKeys[0]).toMatch(/^delegation:[0-9a-f-]{36}:attempt-1\/call-0$/);
  });
});

describe('createFileEditLedger', () => {
  const entry: EditLedgerEntry = {
    state: 'pending',
    files: [{ path: 'a.txt', sha256: sha256Hex('a') }],
    response: { status: 'SUCCESS', output_payload: {} },
    at: '2025-01-01T00:00:00.000Z',
  };

  it('puts, gets and deletes entries atomically, one file per key, no temp files left', async () => {
    const dir = path.join(await tempDir(), 'nested', 'ledger');
    const ledger = createFileEditLedger({ dir });
    expect(await ledger.get('run/1:call/2')).toBeUndefined();
    await ledger.put('run/1:call/2', entry);
    await ledger.put('other', { ...entry, state: 'applied' });
    expect(await ledger.get('run/1:call/2')).toEqual(entry);
    await ledger.put('run/1:call/2', { ...entry, state: 'applied' });
    expect((await ledger.get('run/1:call/2'))?.state).toBe('applied');
    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(files.every((f) => /^[0-9a-f]{64}\.json$/.test(f))).toBe(true);
    await ledger.delete('run/1:call/2');
    await ledger.delete('never-there');
    expect(await ledger.get('run/1:call/2')).toBeUndefined();
    expect((await ledger.get('other'))?.state).toBe('applied');
    // A second instance on the same directory (another worker) sees the same entries.
    expect((await createFileEditLedger({ dir }).get('other'))?.state).toBe('applied');
  });

  it('a corrupt entry file makes get throw (so delegation fails closed)', async () => {
    const dir = await tempDir();
    const ledger = createFileEditLedger({ dir });
    await ledger.put('k', entry);
    const [file] = await readdir(dir);
    await writeFile(path.join(dir, file!), '{"key":"k","entry":{"state":"pen');
    await expect(ledger.get('k')).rejects.toThrow(/not valid JSON/);
    await writeFile(path.join(dir, file!), JSON.stringify({ key: 'k', entry: { ...entry, state: 'maybe' } }));
    await expect(ledger.get('k')).rejects.toThrow(/valid entry/);
    expect(() => createFileEditLedger({ dir: '' })).toThrow(/dir is required/);
  });
});

describe('applyEdits beforeWrite', () => {
  it('gets the post-image hashes before anything is written; throwing writes nothing; not called on a dry run', async () => {
    const ws = await tempDir();
    await writeFile(path.join(ws, 'log.txt'), BEFORE);
    const seen: FileChange[][] = [];
    const res = await applyEdits({
      workspace: ws,
      edits: APPEND_ENTRY,
      beforeWrite: async (changes) => {
        seen.push([...changes]);
        expect(await readFile(path.join(ws, 'log.txt'), 'utf8')).toBe(BEFORE);
      },
    });
    expect(seen).toEqual([[{ path: 'log.txt', action: 'modified', sha256: sha256Hex(AFTER) }]]);
    expect(res.changes).toEqual(seen[0]);
    expect(await readFile(path.join(ws, 'log.txt'), 'utf8')).toBe(AFTER);
    await res.undo();

    const err = await applyEdits({
      workspace: ws,
      edits: APPEND_ENTRY,
      beforeWrite: async () => Promise.reject(new Error('ledger down')),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('ledger down');
    expect(await readFile(path.join(ws, 'log.txt'), 'utf8')).toBe(BEFORE);
    expect(await readdir(ws)).toEqual(['log.txt']);

    let called = false;
    await applyEdits({ workspace: ws, edits: APPEND_ENTRY, dryRun: true, beforeWrite: async () => void (called = true) });
    expect(called).toBe(false);
  });
});
