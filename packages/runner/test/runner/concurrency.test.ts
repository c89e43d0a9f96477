import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteThreadStore, Runner, type ThreadStore } from '../../src/index.js';
import { manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { requestText, createScriptedProvider } from '../../src/testing/index.js';

const A = 'io.baton.test.alpha';
const B = 'io.baton.test.beta';
const YML = `
agents:
  ${A}:
    handoffs: [${B}]
`;

describe('concurrent runs on one thread (SQLite store)', () => {
  let dir: string;
  let store: ThreadStore;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'baton-runner-'));
    store = createSqliteThreadStore({ file: path.join(dir, 'threads.db') });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serialises the calls and loses no state merge', async () => {
    // Each call hands off with its own key; beta waits a little so the calls would overlap unlocked.
    let active = 0;
    let maxActive = 0;
    const models = createScriptedProvider({
      scripts: {
        alpha: (req) => {
          active++;
          maxActive = Math.max(maxActive, active);
          // The newest message's key: earlier turns of the thread are replayed before it.
          const key = [...requestText(req).matchAll(/key-(\w+)/g)].pop()![1]!;
          return {
            toolCalls: [{ name: 'system__handoff', arguments: { target_agent_id: B, input: `finish ${key}`, state: { [key]: true } } }],
          };
        },
        beta: () => {
          active--;
          return { delayMs: 30, message: 'done' };
        },
      },
    });
    const runner = new Runner({
      registry: registry([manifest(A), manifest(B)], YML),
      guardrails: scriptedGuardrail().validator,
      store,
      modelProvider: models.provider,
    });
    const thread = await store.createThread({ state: { base: 1 } });
    const results = await Promise.all(
      ['one', 'two', 'three'].map((k) => runner.run({ agentId: A, input: `key-${k}`, threadId: thread.id })),
    );
    for (const r of results) expect(r.status).toBe('completed');
    expect(maxActive).toBe(1);
    expect((await store.getThread(thread.id))!.state).toEqual({ base: 1, one: true, two: true, three: true });
    const runs = await store.listRuns(thread.id);
    expect(runs).toHaveLength(6);
    // Each call's two runs are adjacent: source, then its target.
    for (let i = 0; i < 6; i += 2) expect(runs[i + 1]!.parentRunId).toBe(runs[i]!.id);
  });
});
