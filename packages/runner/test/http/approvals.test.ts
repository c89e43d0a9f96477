// Resumable approvals over HTTP (issue 17 item 3): a tool that needs approval pauses the run in
// `requires_action`; POST /v1/runs/:run_id/approvals resumes it, also after a restart on the same
// SQLite file; expiry on an injected clock; one winner of concurrent decisions; tenancy.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ModelRequest } from '@openai/agents-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunnerServer, createTokenAuthenticator, parseTokensFile, type RunnerServer } from '../../src/http/index.js';
import { createSqliteThreadStore, Runner, type RunnerEvent, type ThreadStore } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing/index.js';
import { allowAllGuardrail } from '@baton/manifest/testing';
import { manifest, registry } from '../helpers/agents.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const AGENT = 'io.test.support';
const refundTool = {
  type: 'function' as const,
  function: {
    name: 'refund_payment',
    description: 'Refunds an order.',
    parameters: {
      type: 'object' as const,
      properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
      required: ['order_id', 'amount'],
      additionalProperties: false,
    },
  },
};
const REGISTRY = registry(
  [manifest(AGENT, { tools: [refundTool] })],
  `
limits:
  approval_timeout_ms: 600000
agents:
  ${AGENT}:
    approval_required_tools: [refund_payment]
`,
);

const TOKEN_A = 'tenant-a-token-0123456789';
const TOKEN_A2 = 'tenant-a-second-token-0123';
const TOKEN_B = 'tenant-b-token-0123456789';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKENS = parseTokensFile(
  `
tokens:
  - token_sha256: ${sha(TOKEN_A)}
    tenant: acme
    subject: alice
    roles: [support_agent]
  - token_sha256: ${sha(TOKEN_A2)}
    tenant: acme
    subject: anna
    roles: [support_agent]
  - token_sha256: ${sha(TOKEN_B)}
    tenant: globex
    subject: bob
    roles: [support_agent]
`,
  'tokens.yml',
);

/** The last input item of a model request (the SDK's protocol shape). */
function lastItem(request: ModelRequest): Record<string, unknown> | undefined {
  return Array.isArray(request.input) ? (request.input[request.input.length - 1] as Record<string, unknown>) : undefined;
}

/** Asks for a refund first; after a tool result, answers with what the tool (or the refusal) said. */
function supportModel() {
  return createScriptedModel({
    script: (request, index) => {
      const last = lastItem(request);
      if (last?.type === 'function_call_result') {
        const output = last.output as { text?: string } | string;
        return { message: `After the refund step: ${typeof output === 'string' ? output : (output.text ?? '')}` };
      }
      return { toolCalls: [{ id: `call_refund_${index}`, name: 'refund_payment', arguments: { order_id: 'ORD-1', amount: 25 } }] };
    },
  });
}

interface Service {
  url: string;
  store: ThreadStore;
  refunds: Array<{ arguments: Record<string, unknown>; approval: unknown }>;
  clock: { advance(ms: number): void };
  close(): Promise<void>;
}

async function startService(
  file: string,
  options: { stateSecret?: string; clockStart?: number; onEvent?: (event: RunnerEvent) => void } = {},
): Promise<Service> {
  let now = options.clockStart ?? Date.parse('2026-06-01T00:00:00.000Z');
  const store = createSqliteThreadStore({ file });
  const refunds: Service['refunds'] = [];
  const runner = new Runner({
    registry: REGISTRY,
    guardrails: allowAllGuardrail(),
    store,
    modelProvider: supportModel().provider,
    tools: {
      refund_payment: (args, ctx) => {
        refunds.push({ arguments: args, approval: ctx.approval });
        return `refunded ${String(args.amount)} on ${String(args.order_id)}`;
      },
    },
    clock: () => new Date(now),
    ...(options.stateSecret ? { approvals: { stateSecret: options.stateSecret } } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  const server: RunnerServer = createRunnerServer({ runner, store, port: 0, authenticator: createTokenAuthenticator({ tokens: TOKENS }) });
  const { url } = await server.listen();
  return {
    url,
    store,
    refunds,
    clock: { advance: (ms) => void (now += ms) },
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}

type Json = Record<string, unknown> & { error?: { code: string; message: string } };
async function call(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

interface Paused {
  threadId: string;
  runId: string;
  approvalId: string;
}

async function startPausedRun(s: Service, token = TOKEN_A): Promise<Paused> {
  const res = await call(s.url, token, 'POST', '/v1/runs', { agent_id: AGENT, input: 'Please refund ORD-1' });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('requires_action');
  const action = res.body.required_action as { type: string; run_id: string; expires_at: string; approvals: Array<Record<string, string>> };
  expect(action.type).toBe('submit_approvals');
  expect(action.run_id).toBe(res.body.run_id);
  expect(action.approvals).toHaveLength(1);
  expect(action.approvals[0]).toMatchObject({
    tool_name: 'refund_payment',
    agent_id: AGENT,
    arguments: '{"order_id":"ORD-1","amount":25}',
  });
  expect(action.approvals[0]!.id).toMatch(/^appr_[0-9a-f]{24}$/);
  return { threadId: res.body.thread_id as string, runId: action.run_id, approvalId: action.approvals[0]!.id! };
}

const approvalsPath = (runId: string) => `/v1/runs/${runId}/approvals`;

describe('resumable approvals over HTTP', () => {
  let dir: string;
  let s: Service;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'baton-approvals-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const freshFile = () => join(dir, `threads-${++n}.db`);
  afterEach(async () => {
    await s?.close().catch(() => undefined);
  });

  it('GET /v1/runs/:run_id answers the run with what it waits for, to its tenant only', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    const run = await call(s.url, TOKEN_A, 'GET', `/v1/runs/${paused.runId}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      run_id: paused.runId,
      thread_id: paused.threadId,
      agent_id: AGENT,
      status: 'requires_action',
      error: null,
    });
    const action = run.body.required_action as { run_id: string; approvals: Array<{ id: string }> };
    expect(action.run_id).toBe(paused.runId);
    expect(action.approvals.map((a) => a.id)).toEqual([paused.approvalId]);
    // The same answer for another tenant's run as for none, and for ids no run can have.
    const other = await call(s.url, TOKEN_B, 'GET', `/v1/runs/${paused.runId}`);
    const none = await call(s.url, TOKEN_A, 'GET', '/v1/runs/run_none');
    expect(other.status).toBe(404);
    expect(other.body.error?.code).toBe('run_not_found');
    expect(none.status).toBe(404);
    expect(none.body.error?.code).toBe('run_not_found');
    expect((await call(s.url, TOKEN_A, 'GET', `/v1/runs/${'r'.repeat(201)}`)).status).toBe(404);
    expect((await call(s.url, TOKEN_A, 'GET', `/v1/runs/${encodeURIComponent('__proto__')}`)).status).toBe(404);
    const anonymous = await fetch(`${s.url}/v1/runs/${paused.runId}`);
    expect(anonymous.status).toBe(401);

    await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    const done = await call(s.url, TOKEN_A, 'GET', `/v1/runs/${paused.runId}`);
    expect(done.body.status).toBe('completed');
    expect('required_action' in done.body).toBe(false);
  });

  it('pauses in requires_action, lists the approval on the thread, and completes once approved', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    expect(s.refunds).toHaveLength(0);

    const thread = await call(s.url, TOKEN_A, 'GET', `/v1/threads/${paused.threadId}`);
    expect(thread.status).toBe(200);
    const pending = thread.body.pending_approvals as Array<{ run_id: string; approvals: Array<{ id: string }> }>;
    expect(pending).toHaveLength(1);
    expect(pending[0]!.run_id).toBe(paused.runId);
    expect(pending[0]!.approvals.map((a) => a.id)).toEqual([paused.approvalId]);
    const pausedRun = (thread.body.runs as Array<{ run_id: string; status: string; required_action?: unknown }>).find(
      (r) => r.run_id === paused.runId,
    );
    expect(pausedRun?.status).toBe('requires_action');
    expect(pausedRun?.required_action).toEqual(pending[0]);

    const done = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'completed',
      run_id: paused.runId,
      thread_id: paused.threadId,
      response: 'After the refund step: refunded 25 on ORD-1',
    });
    expect(s.refunds).toEqual([{ arguments: { order_id: 'ORD-1', amount: 25 }, approval: { id: paused.approvalId, approved: true } }]);

    const after = await call(s.url, TOKEN_A, 'GET', `/v1/threads/${paused.threadId}`);
    expect(after.body.pending_approvals).toEqual([]);
    expect((after.body.runs as Array<Record<string, unknown>>).some((r) => 'required_action' in r)).toBe(false);
    expect((after.body.runs as Array<{ run_id: string; status: string }>).find((r) => r.run_id === paused.runId)?.status).toBe('completed');
    const items = (after.body.items as Array<{ item: Record<string, unknown> }>).map((i) => i.item);
    expect(items).toContainEqual(
      expect.objectContaining({ type: 'approval', approval_id: paused.approvalId, decision: 'approved', name: 'refund_payment' }),
    );
    expect(items).toContainEqual(
      expect.objectContaining({ type: 'function_call_output', name: 'refund_payment', output: 'refunded 25 on ORD-1' }),
    );
    const audit = await s.store.listAudit(paused.threadId);
    expect(audit.find((a) => a.kind === 'approval_decision')?.data).toMatchObject({
      approval_id: paused.approvalId,
      decision: 'approved',
      decided_by: 'alice',
    });

    // Decided: a second decision is a conflict, and a new run on the thread is allowed again.
    const again = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), {
      decisions: [{ id: paused.approvalId, approve: true }],
    });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('APPROVAL_CONFLICT');
    const next = await call(s.url, TOKEN_A, 'POST', '/v1/runs', { agent_id: AGENT, input: 'another', thread_id: paused.threadId });
    expect(next.body.status).toBe('requires_action');
  });

  it('streams the pause as an approval_required server-sent event, and reports the decision as approval_decided', async () => {
    const everyRun: RunnerEvent[] = [];
    s = await startService(freshFile(), { onEvent: (e) => void everyRun.push(e) });
    const res = await fetch(`${s.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: AGENT, input: 'Please refund ORD-1', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text())
      .split('\n\n')
      .filter((f) => f.trim() !== '' && !f.startsWith(':'))
      .map((f) => ({ event: /^event: (.*)$/m.exec(f)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as Record<string, unknown> }));
    const done = frames.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.status).toBe('requires_action');
    const action = done.data.required_action as { run_id: string; expires_at: string; approvals: Array<{ id: string; tool_name: string }> };
    const required = frames.filter((f) => f.event === 'approval_required');
    expect(required).toHaveLength(1);
    expect(required[0]!.data).toEqual({
      type: 'approval_required',
      thread_id: done.data.thread_id,
      run_id: action.run_id,
      agent_id: AGENT,
      approvals: [{ id: action.approvals[0]!.id, tool_name: 'refund_payment' }],
      expires_at: action.expires_at,
    });
    // The model's unchecked arguments are in `done` (required_action) only.
    expect(JSON.stringify(required[0]!.data)).not.toContain('ORD-1');
    const names = frames.map((f) => f.event);
    expect(names.indexOf('approval_required')).toBeLessThan(names.lastIndexOf('run_end'));

    const decided = await call(s.url, TOKEN_A, 'POST', approvalsPath(action.run_id), {
      decisions: [{ id: action.approvals[0]!.id, approve: true }],
    });
    expect(decided.body.status).toBe('completed');
    expect(everyRun.filter((e) => e.type === 'approval_decided')).toEqual([
      { type: 'approval_decided', run_id: action.run_id, id: action.approvals[0]!.id, approved: true },
    ]);
    expect(s.refunds).toHaveLength(1);
  });

  it('sends a rejection to the model as the tool result, never runs the tool, and the run goes on', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    const done = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), {
      decisions: [{ id: paused.approvalId, approve: false, reason: 'Refunds over 20 need a manager.' }],
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', response: 'After the refund step: Refunds over 20 need a manager.' });
    expect(s.refunds).toHaveLength(0);
    const items = (await s.store.listItems(paused.threadId)).map((i) => i.item);
    expect(items).toContainEqual(
      expect.objectContaining({ type: 'approval', decision: 'rejected', reason: 'Refunds over 20 need a manager.' }),
    );
    expect(items.some((i) => i.type === 'function_call' && i.name === 'refund_payment')).toBe(false);
  });

  it('refuses malformed decisions with a message naming the bad item, and keeps the run waiting', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    const bad = async (body: unknown, status: number, code: string, message: RegExp) => {
      const res = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), body);
      expect(res.status).toBe(status);
      expect(res.body.error?.code).toBe(code);
      expect(res.body.error?.message).toMatch(message);
    };
    await bad(
      { decisions: [{ id: 'appr_nope', approve: true }] },
      400,
      'APPROVAL_INVALID',
      /decisions\[0\]\.id "appr_nope" is not a pending approval/,
    );
    await bad(
      { decisions: [{ id: paused.approvalId, approve: 'yes' }] },
      400,
      'APPROVAL_INVALID',
      /decisions\[0\]\.approve must be true or false/,
    );
    await bad(
      { decisions: [{ id: paused.approvalId, approve: true, __proto__: { x: 1 }, extra: 1 }] },
      400,
      'APPROVAL_INVALID',
      /decisions\[0\] has unknown field "extra"/,
    );
    await bad(
      { decisions: [{ id: paused.approvalId, approve: true, reason: 'fine' }] },
      400,
      'APPROVAL_INVALID',
      /decisions\[0\]\.reason is only for a rejection/,
    );
    await bad(
      { decisions: [{ id: paused.approvalId, approve: false, reason: 'x'.repeat(1001) }] },
      400,
      'APPROVAL_INVALID',
      /decisions\[0\]\.reason must be a non-blank string of at most 1000/,
    );
    await bad(
      {
        decisions: [
          { id: paused.approvalId, approve: true },
          { id: paused.approvalId, approve: false },
        ],
      },
      400,
      'APPROVAL_INVALID',
      /2 entries but the run waits for 1/,
    );
    await bad({ decisions: [] }, 400, 'APPROVAL_INVALID', /must not be empty/);
    await bad({ decisions: 'approve' }, 400, 'APPROVAL_INVALID', /decisions must be an array/);
    await bad({ decisions: [], approve_all: true }, 400, 'APPROVAL_INVALID', /unknown field "approve_all"/);
    await bad([1], 400, 'APPROVAL_INVALID', /must be a JSON object/);
    await bad(
      `{"decisions":[{"id":"${paused.approvalId}","approve":true,"__proto__":{"approve":false}}]}`,
      400,
      'APPROVAL_INVALID',
      /decisions\[0\] has unknown field "__proto__"/,
    );
    await bad({ decisions: [{ id: `${paused.approvalId}\u200b`, approve: true }] }, 400, 'APPROVAL_INVALID', /is not a pending approval/);
    await bad(
      { decisions: [{ id: 'x'.repeat(201), approve: true }] },
      400,
      'APPROVAL_INVALID',
      /decisions\[0\]\.id must be a pending approval id, got a string of 201 characters/,
    );
    await bad('{"decisions": [', 400, 'invalid_json', /not valid JSON/);
    await bad(`{"decisions":${'['.repeat(100)}${']'.repeat(100)}}`, 400, 'json_too_deep', /deeper than 64/);
    const unknownRun = await call(s.url, TOKEN_A, 'POST', approvalsPath('run_missing'), {
      decisions: [{ id: paused.approvalId, approve: true }],
    });
    expect(unknownRun.status).toBe(404);
    expect(unknownRun.body.error?.code).toBe('APPROVAL_RUN_NOT_FOUND');

    // Still waiting: a new run on the thread is refused until the approval is decided.
    const blocked = await call(s.url, TOKEN_A, 'POST', '/v1/runs', { agent_id: AGENT, input: 'hello?', thread_id: paused.threadId });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error?.code).toBe('RUN_REQUIRES_ACTION');
    expect(blocked.body.error?.message).toContain(`/v1/runs/${paused.runId}/approvals`);
    const ok = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    expect(ok.body.status).toBe('completed');
    expect(s.refunds).toHaveLength(1);
  });

  it('resumes a paused run after the server restarted on the same SQLite file', async () => {
    const file = freshFile();
    const secret = 'a-long-enough-state-secret-0123456789';
    s = await startService(file, { stateSecret: secret });
    const paused = await startPausedRun(s);
    await s.close();

    s = await startService(file, { stateSecret: secret });
    const thread = await call(s.url, TOKEN_A, 'GET', `/v1/threads/${paused.threadId}`);
    expect((thread.body.pending_approvals as unknown[]).length).toBe(1);
    // A runner starting on the file does not take the paused run for an abandoned one.
    expect(await s.store.recoverAbandonedRuns?.()).toBe(0);
    const done = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    expect(done.body).toMatchObject({ status: 'completed', response: 'After the refund step: refunded 25 on ORD-1' });
    expect(s.refunds).toHaveLength(1);
  });

  it('expires an approval after limits.approval_timeout_ms on the injected clock', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    s.clock.advance(600_000);
    const late = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    expect(late.status).toBe(410);
    expect(late.body.error?.code).toBe('APPROVAL_EXPIRED');
    expect(late.body.error?.message).toMatch(/waited for approval until 2026-06-01T00:10:00\.000Z/);
    expect(s.refunds).toHaveLength(0);
    expect(await s.store.getRun(paused.runId)).toMatchObject({ status: 'expired', error: { code: 'APPROVAL_EXPIRED' } });
    const later = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), {
      decisions: [{ id: paused.approvalId, approve: true }],
    });
    expect(later.status).toBe(410);
    const thread = await call(s.url, TOKEN_A, 'GET', `/v1/threads/${paused.threadId}`);
    expect(thread.body.pending_approvals).toEqual([]);
    // The thread is free again.
    const next = await call(s.url, TOKEN_A, 'POST', '/v1/runs', { agent_id: AGENT, input: 'again', thread_id: paused.threadId });
    expect(next.body.status).toBe('requires_action');
  });

  it('an expired approval on a thread does not block a new run on it', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    s.clock.advance(600_001);
    const next = await call(s.url, TOKEN_A, 'POST', '/v1/runs', { agent_id: AGENT, input: 'again', thread_id: paused.threadId });
    expect(next.status).toBe(200);
    expect(next.body.status).toBe('requires_action');
    expect((await s.store.getRun(paused.runId))?.status).toBe('expired');
  });

  it('lets exactly one of two concurrent decisions win; the other gets a conflict', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    const body = { decisions: [{ id: paused.approvalId, approve: true }] };
    const [a, b] = await Promise.all([
      call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), body),
      call(s.url, TOKEN_A2, 'POST', approvalsPath(paused.runId), body),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.body.error?.code).toBe('APPROVAL_CONFLICT');
    expect((a.status === 200 ? a : b).body.status).toBe('completed');
    expect(s.refunds).toHaveLength(1);
  });

  it('hides a paused run from another tenant: it can neither see nor decide it', async () => {
    s = await startService(freshFile());
    const paused = await startPausedRun(s);
    const seen = await call(s.url, TOKEN_B, 'GET', `/v1/threads/${paused.threadId}`);
    expect(seen.status).toBe(404);
    const decided = await call(s.url, TOKEN_B, 'POST', approvalsPath(paused.runId), {
      decisions: [{ id: paused.approvalId, approve: true }],
    });
    expect(decided.status).toBe(404);
    expect(decided.body.error?.code).toBe('APPROVAL_RUN_NOT_FOUND');
    // The same answer as a run that does not exist (no existence oracle).
    const missing = await call(s.url, TOKEN_B, 'POST', approvalsPath('run_does_not_exist'), {
      decisions: [{ id: paused.approvalId, approve: true }],
    });
    expect(missing.body.error?.message.replace('run_does_not_exist', paused.runId)).toBe(decided.body.error?.message);
    expect(s.refunds).toHaveLength(0);
    const owner = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), {
      decisions: [{ id: paused.approvalId, approve: true }],
    });
    expect(owner.body.status).toBe('completed');
  });

  it('refuses a tampered stored state: the run fails, the tool never runs', async () => {
    const file = freshFile();
    s = await startService(file);
    const paused = await startPausedRun(s);
    // Someone with write access to the database changes the paused call's arguments.
    const db = new Database(file);
    const row = db.prepare('SELECT state FROM suspended_runs WHERE run_id = ?').get(paused.runId) as { state: string };
    expect(row.state).toContain('\\"amount\\":25');
    db.prepare('UPDATE suspended_runs SET state = ? WHERE run_id = ?').run(
      row.state.replace('\\"amount\\":25', '\\"amount\\":9999'),
      paused.runId,
    );
    db.close();
    const res = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'APPROVAL_STATE_INVALID' } });
    expect(res.body.error?.message).toMatch(/does not match its seal/);
    expect(s.refunds).toHaveLength(0);
  });

  it('refuses a state sealed with another secret (restart with a changed secret)', async () => {
    const file = freshFile();
    s = await startService(file, { stateSecret: 'first-secret-first-secret-first-secret' });
    const paused = await startPausedRun(s);
    await s.close();
    s = await startService(file, { stateSecret: 'other-secret-other-secret-other-secret' });
    const res = await call(s.url, TOKEN_A, 'POST', approvalsPath(paused.runId), { decisions: [{ id: paused.approvalId, approve: true }] });
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'APPROVAL_STATE_INVALID' } });
    expect(s.refunds).toHaveLength(0);
  });
});
