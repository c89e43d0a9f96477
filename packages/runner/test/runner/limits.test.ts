import { describe, expect, it } from 'vitest';
import { AgentNotFoundError, createMemoryThreadStore, InvalidRunRequestError, Runner, type SystemTool } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

const AGENT = 'io.baton.test.worker';

describe('limits, cancellation and caller errors', () => {
  it('expires a run that exceeds runTimeoutMs, even if a tool ignores the abort', async () => {
    const models = createScriptedProvider({
      scripts: { worker: [{ toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1' } }] }] },
    });
    const store = createMemoryThreadStore();
    const runner = new Runner({
      registry: registry([manifest(AGENT, { tools: [lookupTool()] })]),
      tools: { lookup_order: () => new Promise(() => undefined) },
      guardrails: scriptedGuardrail().validator,
      store,
      modelProvider: models.provider,
      limits: { runTimeoutMs: 1500 },
    });
    const result = await runner.run({ agentId: AGENT, input: 'x' });
    expect(result.status).toBe('expired');
    expect(result.error?.code).toBe('RUN_TIMEOUT');
    expect(result.runs.at(-1)?.status).toBe('expired');
    expect((await store.getRun(result.run_id))?.status).toBe('expired');
    // the thread is usable again
    const lock = await store.acquireThreadLock(result.thread_id, { owner: 'test', waitMs: 1000 });
    await lock.release();
  });

  it('cancels when the caller aborts', async () => {
    const models = createScriptedProvider({ scripts: { worker: [{ delayMs: 60_000, message: 'late' }] } });
    const runner = new Runner({
      registry: registry([manifest(AGENT)]),
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    const controller = new AbortController();
    const pending = runner.run({ agentId: AGENT, input: 'x', signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result.status).toBe('cancelled');
    expect(result.error?.code).toBe('ABORTED');
  });

  it('fails with MAX_TURNS_EXCEEDED when the model keeps calling tools', async () => {
    const models = createScriptedProvider({
      scripts: { worker: () => ({ toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1' } }] }) },
    });
    const runner = new Runner({
      registry: registry([manifest(AGENT, { tools: [lookupTool()] })]),
      tools: { lookup_order: () => 'again' },
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    const result = await runner.run({ agentId: AGENT, input: 'x', maxTurns: 3 });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('MAX_TURNS_EXCEEDED');
    expect(models.requests['worker']).toHaveLength(3);
  });

  it('a terminal system tool ends the run and reports its arguments', async () => {
    const yieldControl: SystemTool = {
      name: 'yield_control',
      description: 'Return to the parent.',
      parameters: {
        type: 'object',
        properties: { status: { type: 'string', enum: ['SUCCESS', 'FAILURE'] } },
        required: ['status'],
        additionalProperties: false,
      },
      terminal: true,
      execute: () => 'yielded',
    };
    const models = createScriptedProvider({
      scripts: { worker: [{ toolCalls: [{ name: 'yield_control', arguments: { status: 'SUCCESS' } }] }, { message: 'never asked' }] },
    });
    const runner = new Runner({
      registry: registry([manifest(AGENT)]),
      guardrails: scriptedGuardrail().validator,
      modelProvider: models.provider,
    });
    const result = await runner.run({ agentId: AGENT, input: 'x', systemTools: [yieldControl], depth: 1 });
    expect(result.status).toBe('completed');
    expect(result.terminal).toEqual({ name: 'yield_control', arguments: { status: 'SUCCESS' } });
    expect(models.requests['worker']).toHaveLength(1);
  });

  it('system tools named in baton.yml must be given to the Runner', () => {
    const reg = registry([manifest(AGENT)], `agents:\n  ${AGENT}:\n    system_tools: [delegate_task]\n`);
    expect(
      () =>
        new Runner({
          registry: reg,
          guardrails: scriptedGuardrail().validator,
          modelProvider: createScriptedProvider({ scripts: {} }).provider,
        }),
    ).toThrow(/system tool 'delegate_task'/);
  });

  it('throws caller errors for unknown agents and malformed requests', async () => {
    const runner = new Runner({
      registry: registry([manifest(AGENT)]),
      guardrails: scriptedGuardrail().validator,
      modelProvider: createScriptedProvider({ scripts: {} }).provider,
    });
    await expect(runner.run({ agentId: 'io.baton.test.nobody', input: 'x' })).rejects.toBeInstanceOf(AgentNotFoundError);
    await expect(runner.run({ agentId: AGENT, agentVersion: '9.9.9', input: 'x' })).rejects.toThrow(/has no version 9.9.9/);
    await expect(runner.run({ agentId: AGENT, input: 42 as unknown as string })).rejects.toBeInstanceOf(InvalidRunRequestError);
    await expect(runner.run({ agentId: AGENT, input: 'x', threadId: 'bad id with spaces' })).rejects.toThrow(/threadId/);
  });

  it('requires guardrails and a model provider', () => {
    expect(
      () => new Runner({ registry: registry([manifest(AGENT)]), modelProvider: createScriptedProvider({ scripts: {} }).provider } as never),
    ).toThrow(/guardrails/);
    expect(() => new Runner({ registry: registry([manifest(AGENT)]), guardrails: scriptedGuardrail().validator } as never)).toThrow(
      /modelProvider/,
    );
  });
});
