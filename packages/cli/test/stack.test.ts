// createBatonStack: the composition root `baton run`, `serve`, `worker` and the demo share.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuardrailRequest, GuardrailValidator } from '@baton/manifest';
import { allowAllGuardrail } from '@baton/manifest/testing';
import { createSqliteThreadStore, type RunnerEvent, type ThreadStore } from '@baton/runner';
import { afterAll, describe, expect, it } from 'vitest';
import { createBatonStack, StackCloseError, StackConfigError } from '../src/stack/index.js';
import { EXAMPLES, offlineEnv } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-stack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AGENTS = join(EXAMPLES, 'agents');
const SLOW = 120_000;
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);

/** A real SQLite store whose close() is recorded in `log` and fails when told to. */
function recordedStore(log: string[], fail = false): ThreadStore {
  const store = createSqliteThreadStore({ file: `${fresh('s')}.db` });
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'close') {
        return async () => {
          log.push('store');
          await target.close();
          if (fail) throw new Error('store would not close');
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

const allow = allowAllGuardrail();

describe('createBatonStack', () => {
  it(
    'builds a working runner from the examples (offline model, in-process engine, packets) and closes once',
    async () => {
      const capture = fresh('capture');
      const events: RunnerEvent[] = [];
      const stack = await createBatonStack({
        agentsDir: AGENTS,
        env: offlineEnv(),
        store: { file: `${fresh('s')}.db` },
        guardrail: { engine: { canaries: [] } },
        scenarioFile: join(EXAMPLES, 'scenarios', 'support.scenario.yml'),
        toolModules: [join(EXAMPLES, 'tools', 'support-tools.mjs')],
        packets: { contractFile: join(EXAMPLES, 'contracts', 'refunds.contract.yml'), casesFile: join(EXAMPLES, 'data', 'cases.json') },
        capture: { dir: capture, layout: 'flat' },
        onEvent: (e) => void events.push(e),
      });
      expect(stack.model.label).toBe('offline model');
      expect(stack.packets?.ephemeralKeys).toBe(true);
      const result = await stack.runner.run({
        agentId: 'io.baton.examples.triage',
        input: 'Refund for case CASE-1001, please.',
        auth: { tenant: 'acme-retail', subject: 'agent-7', roles: ['support_agent'] },
      });
      expect(result.status, JSON.stringify(result.error)).toBe('completed');
      expect(result.agent_id).toBe('io.baton.examples.refunds');
      // One call, flat layout: its requests sit in the directory itself, numbered in order.
      const files = readdirSync(capture).sort();
      expect(files[0]).toBe('0001-io.baton.examples.triage.json');
      expect(files.some((f) => f.endsWith('-io.baton.examples.refunds.json'))).toBe(true);
      const audit = await stack.store.listAudit(result.thread_id);
      const handoffDecision = audit.find((r) => r.kind === 'handoff_decision');
      expect(handoffDecision).toBeDefined();
      // onEvent sees every run's events: one per recorded decision, and the packet handoff with its packet id.
      expect(events.filter((e) => e.type === 'guardrail_decision')).toHaveLength(result.guardrail_decisions.length);
      const handoff = events.find((e) => e.type === 'handoff');
      expect(handoff).toMatchObject({ to_agent_id: 'io.baton.examples.refunds', packet_id: handoffDecision?.data.packet_id });

      const first = stack.close();
      expect(stack.close()).toBe(first);
      await first;
      await expect(stack.runner.run({ agentId: 'io.baton.examples.triage', input: 'again' })).rejects.toMatchObject({
        code: 'STACK_CLOSED',
      });
    },
    SLOW,
  );

  it(
    'releases every part in reverse order even when some fail, and reports every failure',
    async () => {
      const log: string[] = [];
      const stack = await createBatonStack({
        agentsDir: AGENTS,
        env: offlineEnv(),
        store: { store: recordedStore(log, true) },
        guardrail: {
          validator: allow,
          close: () => {
            log.push('guardrail');
            return Promise.reject(new Error('guardrail would not close'));
          },
        },
        packets: undefined,
      });
      const err = await stack.close().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StackCloseError);
      // The guardrail was taken over after the store, so it goes first; the store is still closed.
      expect(log).toEqual(['guardrail', 'store']);
      expect((err as StackCloseError).errors.map((e) => (e as Error).message)).toEqual([
        'guardrail would not close',
        'store would not close',
      ]);
      expect((err as Error).message).toMatch(/guardrail, store/);
      // Closing again neither repeats the releases nor hides the failure.
      await expect(stack.close()).rejects.toBe(err);
      expect(log).toEqual(['guardrail', 'store']);
    },
    SLOW,
  );

  it(
    'releases what it built when start-up fails, and says what was wrong',
    async () => {
      const log: string[] = [];
      const broken = join(dir, 'broken-tools.mjs');
      writeFileSync(broken, 'export const tools = { lookup: 42 };\n');
      const err = await createBatonStack({
        agentsDir: AGENTS,
        env: offlineEnv(),
        store: { store: recordedStore(log) },
        guardrail: { validator: allow, close: async () => void log.push('guardrail') },
        toolModules: [broken],
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StackConfigError);
      expect((err as Error).message).toBe(`tool module ${broken}: tools.lookup is not a function`);
      // What was handed in belongs to the stack: released, last given first.
      expect(log).toEqual(['guardrail', 'store']);
    },
    SLOW,
  );

  it(
    'refuses a configuration without agents, and a tool given twice',
    async () => {
      await expect(createBatonStack({ store: { store: recordedStore([]) }, guardrail: { validator: allow } })).rejects.toThrow(
        /agentsDir or registry/,
      );
      await expect(createBatonStack({ agentsDir: AGENTS, guardrail: { validator: allow } } as never)).rejects.toThrow(
        /needs store: \{ file \} or \{ store \}/,
      );
      await expect(createBatonStack({ agentsDir: AGENTS, store: { store: recordedStore([]) } } as never)).rejects.toMatchObject({
        code: 'STACK_CONFIG',
        message: expect.stringMatching(/needs guardrail/),
      });
      await expect(
        createBatonStack({
          agentsDir: AGENTS,
          env: offlineEnv(),
          store: { store: recordedStore([]) },
          guardrail: { validator: allow },
          toolModules: [join(EXAMPLES, 'tools', 'support-tools.mjs')],
          tools: { get_case: () => 'shadowed' },
        }),
      ).rejects.toThrow(/tool 'get_case' is given twice/);
    },
    SLOW,
  );

  it(
    "checks delegation through the runner's guardrail checker: its timeout and its fail-open setting apply",
    async () => {
      const workspace = fresh('workspace');
      mkdirSync(workspace, { recursive: true });
      const allowed = allowAllGuardrail();
      /** AGENT_INPUT: never answers (until aborted) or throws; everything else allowed. */
      const validator = (mode: 'hang' | 'throw'): GuardrailValidator => ({
        validate: (request: GuardrailRequest, options) => {
          if (request.action_type !== 'AGENT_INPUT') return allowed.validate(request, options);
          if (mode === 'throw') return Promise.reject(new Error('guardrail service down'));
          return new Promise((_, reject) =>
            options?.signal?.addEventListener('abort', () => reject(options.signal?.reason as Error), { once: true }),
          );
        },
      });
      const stackWith = (mode: 'hang' | 'throw', extra: { limits?: { guardrailTimeoutMs: number }; guardrailFailOpen?: ['AGENT_INPUT'] }) =>
        createBatonStack({
          agentsDir: AGENTS,
          env: offlineEnv(),
          store: { file: `${fresh('s')}.db` },
          guardrail: { validator: validator(mode) },
          delegation: { skillsDir: join(EXAMPLES, 'skills'), workspace },
          ...extra,
        });
      const task = { subagent_type: 'reviewer', instruction_set: 'Review nothing.', input_data: {} };

      // The runner's guardrail timeout (from the stack's limits), not the checker default of 2000 ms.
      const timed = await stackWith('hang', { limits: { guardrailTimeoutMs: 1500 } });
      try {
        expect(timed.delegation).toBeDefined();
        const res = await timed.delegation!.delegate(task);
        expect(res.status).toBe('FAILURE');
        expect(JSON.stringify(res)).toMatch(/AGENT_INPUT guardrail blocked \(fail closed\).*within 1500 ms/);
      } finally {
        await timed.close();
      }

      // A failing check: closed by default, open when the runner is told so.
      const closed = await stackWith('throw', {});
      try {
        expect(JSON.stringify(await closed.delegation!.delegate(task))).toMatch(/AGENT_INPUT guardrail blocked \(fail closed\)/);
      } finally {
        await closed.close();
      }
      const open = await stackWith('throw', { guardrailFailOpen: ['AGENT_INPUT'] });
      try {
        const res = await open.delegation!.delegate(task);
        expect(JSON.stringify(res)).not.toMatch(/guardrail blocked/);
        // Past the input check, the reviewer process itself answered (it was given nothing to review).
        expect(res.status).toBe('BLOCKED_AWAITING_CLARIFICATION');
      } finally {
        await open.close();
      }
    },
    SLOW,
  );
});
