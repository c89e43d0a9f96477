// Bounded fuzz of the runner HTTP service (issue 14): a few thousand hostile requests from a
// tenant against a real server on port 0; no 5xx, well-formed JSON errors, no hang, and nothing
// of another tenant's thread in any answer or changed in the store.
import { createGuardrailEngine } from '@baton/guardrail-server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createRunnerServer, createTokenAuthenticator, parseTokensFile, type RunnerServer } from '../../src/http/index.js';
import { createMemoryThreadStore, loadAgentRegistry, Runner, type ThreadStore } from '../../src/index.js';
import { OfflineModelProvider } from '../../src/models/offline-model.js';
import { parseScenario } from '../../src/models/scenario-loader.js';
import { runRunnerFuzz } from '../../src/testing/http-fuzz.js';
import { testTools, writeTwoAgents } from '../wire/fixtures.js';

vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 });

const VICTIM_TOKEN = 'victim-token-0123456789abcdef';
const ATTACKER_TOKEN = 'attacker-token-0123456789abcdef';
const MARKERS = ['VICTIM-SECRET-7f3a91', 'VICTIM-STATE-c0ffee'];
const SEED = Number(process.env.BATON_FUZZ_SEED ?? 20261130);

let server: RunnerServer;
let url: string;
let store: ThreadStore;
let victimThread: string;
let cleanup: () => void;

beforeAll(async () => {
  const agents = writeTwoAgents();
  cleanup = agents.cleanup;
  store = createMemoryThreadStore();
  const runner = new Runner({
    registry: await loadAgentRegistry({ dir: agents.dir }),
    tools: testTools,
    guardrails: createGuardrailEngine(),
    store,
    modelProvider: new OfflineModelProvider(
      parseScenario(`
version: 1
name: fuzz
agents:
  io.test.triage:
    rules:
      - message: 'Noted.'
  io.test.refunds:
    rules:
      - message: 'ok'
`),
    ),
  });
  const tokens = parseTokensFile(
    `tokens:
  - { token: ${VICTIM_TOKEN}, tenant: victim, subject: v, roles: [support_agent] }
  - { token: ${ATTACKER_TOKEN}, tenant: attacker, subject: a, roles: [support_agent] }
`,
    'tokens.yml',
  );
  server = createRunnerServer({ runner, store, port: 0, authenticator: createTokenAuthenticator({ tokens }) });
  url = (await server.listen()).url;
  const res = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${VICTIM_TOKEN}` },
    body: JSON.stringify({ agent_id: 'io.test.triage', input: `my account note ${MARKERS[0]}` }),
  });
  victimThread = ((await res.json()) as { thread_id: string }).thread_id;
  await store.mergeState(victimThread, { note: MARKERS[1] });
});
afterAll(async () => {
  await server.close();
  cleanup();
});

it('survives a few thousand hostile requests: no 5xx, JSON errors, no hang, no cross-tenant data', async () => {
  const snapshot = async () =>
    JSON.stringify([
      await store.getThread(victimThread),
      await store.listRuns(victimThread),
      await store.listItems(victimThread),
      await store.listAudit(victimThread),
    ]);
  const before = await snapshot();
  const report = await runRunnerFuzz({
    target: { url, token: ATTACKER_TOKEN, agentId: 'io.test.triage', victimThreadId: victimThread, victimMarkers: MARKERS },
    count: 2500,
    seed: SEED,
    concurrency: 8,
    timeoutMs: 120_000,
  });
  expect(report.requests).toBe(2500);
  expect(report.problems, `seed ${SEED}`).toEqual([]);
  expect(report.serverErrors).toBe(0);
  expect(report.hangs).toBe(0);
  // Every kind of case was tried, and real runs happened among them.
  expect(Object.keys(report.byKind).length).toBeGreaterThanOrEqual(15);
  expect(report.byStatus['200'] ?? 0).toBeGreaterThan(0);
  // The victim's thread is exactly as it was; no prototype was polluted; the service still answers.
  expect(await snapshot()).toBe(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
  const own = await fetch(`${url}/v1/threads/${victimThread}`, { headers: { authorization: `Bearer ${VICTIM_TOKEN}` } });
  expect(own.status).toBe(200);
});
