import { describe, expect, it } from 'vitest';
import { GuardrailClientConfigError } from '@baton/guardrail-client';
import { PolicyError } from '@baton/guardrail-server';
import { CaseNotBoundError, InvalidKeysError } from '@baton/packets';
import { QueueConfigError, QueueUnavailableError } from '@baton/queue';
import {
  AgentNotFoundError,
  InvalidRunRequestError,
  RegistryError,
  RunTimeoutError,
  ScenarioError,
  ThreadNotFoundError,
} from '@baton/runner';
import { RunnerHttpConfigError } from '@baton/runner/http';
import { SkillsConfigError } from '@baton/skills';
import { InvalidTraceContextError } from '@baton/tracing';
import { ManifestUsageError } from '@baton/manifest';
import { BatonError } from '@baton/manifest/contracts';
import { AuthInputError, UsageError, exitCodeFor } from '../src/errors.js';

describe('exit codes from the error kind', () => {
  it.each([
    ['UsageError', new UsageError('--agent is required'), 2],
    ['AuthInputError', new AuthInputError('--tenant is malformed'), 2],
    ['AGENT_NOT_FOUND', new AgentNotFoundError('no agent a.b'), 2],
    ['INVALID_REQUEST', new InvalidRunRequestError('bad request'), 2],
    ['STORE_THREAD_NOT_FOUND', new ThreadNotFoundError('t1'), 2],
    ['QUEUE_CONFIG', new QueueConfigError('bad URL'), 2],
    ['RUNNER_HTTP_CONFIG', new RunnerHttpConfigError('no token'), 2],
    ['GUARDRAIL_CLIENT_CONFIG', new GuardrailClientConfigError('bad URL'), 2],
    ['REGISTRY_INVALID', new RegistryError([]), 1],
    ['SCENARIO_INVALID', new ScenarioError(['x.yml:1:1: cannot read scenario file']), 1],
    ['POLICY_INVALID', new PolicyError('bad policy'), 1],
    ['INVALID_KEYS', new InvalidKeysError('short key'), 1],
    ['CONFINEMENT_UNAVAILABLE', new SkillsConfigError('CONFINEMENT_UNAVAILABLE', 'no bwrap'), 1],
    ['RUN_TIMEOUT', new RunTimeoutError('slow'), 1],
    ['QUEUE_UNAVAILABLE', new QueueUnavailableError('down'), 1],
    ['CASE_NOT_BOUND (usage, but a run result, not thrown to the CLI)', new CaseNotBoundError('x'), 2],
    ['a plain Error', new Error('boom'), 1],
    ['a thrown string', 'boom', 1],
    ['an object pretending a kind', { kind: 'whatever' }, 1],
  ])('%s → %i', async (_what, error, code) => {
    expect(await exitCodeFor(error)).toBe(code);
  });
});

describe('one error root', () => {
  it.each([
    ['UsageError', new UsageError('--agent is required'), 'CliError'],
    ['AgentNotFoundError', new AgentNotFoundError('no agent a.b'), 'RunnerError'],
    ['QueueConfigError', new QueueConfigError('bad URL'), 'QueueError'],
    ['GuardrailClientConfigError', new GuardrailClientConfigError('bad URL'), 'GuardrailClientError'],
    ['PolicyError', new PolicyError('bad policy'), 'GuardrailError'],
    ['InvalidKeysError', new InvalidKeysError('short key'), 'PacketError'],
    ['SkillsConfigError', new SkillsConfigError('CONFINEMENT_UNAVAILABLE', 'no bwrap'), 'SkillsError'],
    ['InvalidTraceContextError', new InvalidTraceContextError('bad traceparent'), 'TracingError'],
    ['ManifestUsageError', new ManifestUsageError('not a manifest'), 'ManifestError'],
  ])('%s is a BatonError with code, kind and its package base', (_what, error, base) => {
    expect(error).toBeInstanceOf(BatonError);
    expect(error).toBeInstanceOf(Error);
    let proto = Object.getPrototypeOf(error) as { constructor: { name: string } } | null;
    const chain: string[] = [];
    for (; proto && proto.constructor.name !== 'Object'; proto = Object.getPrototypeOf(proto)) chain.push(proto.constructor.name);
    expect(chain).toContain(base);
    expect(chain.at(-2)).toBe('BatonError');
    expect(typeof error.code).toBe('string');
    expect(['usage', 'config', 'upstream', 'internal']).toContain(error.kind);
  });

  it('keeps a given cause and has no cause key without one', () => {
    const root = new Error('socket hang up');
    expect(new QueueUnavailableError('down', { cause: root }).cause).toBe(root);
    expect('cause' in new QueueUnavailableError('down')).toBe(false);
  });
});
