import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, PolicyError, createGuardrailEngine, loadPolicyFile, parsePolicy } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('policy', () => {
  it('defaults to DESIGN.md’s default policy', () => {
    expect(parsePolicy('')).toEqual(DEFAULT_POLICY);
    expect(DEFAULT_POLICY.pii.tool_call).toBe('MODIFY');
    expect(DEFAULT_POLICY.secrets.tool_call).toBe('BLOCK');
    expect(DEFAULT_POLICY.injection.agent_input).toBe('BLOCK');
    expect(DEFAULT_POLICY.injection.tool_output).toBe('BLOCK');
    expect(DEFAULT_POLICY.injection.agent_handoff).toBe('BLOCK');
    expect(DEFAULT_POLICY.exfiltration.images).toBe('BLOCK');
  });

  it('merges a partial file with defaults', () => {
    const p = parsePolicy('injection:\n  tool_output: MODIFY\nexfiltration:\n  allowed_domains: [docs.example.com]\n');
    expect(p.injection.tool_output).toBe('MODIFY');
    expect(p.injection.agent_input).toBe('BLOCK');
    expect(p.exfiltration.allowed_domains).toEqual(['docs.example.com']);
  });

  it('reports a bad value with file:line:col and the path', () => {
    const err = (() => {
      try {
        parsePolicy('version: 1\npii:\n  tool_call: REDACT\n', { file: 'p.yml' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(PolicyError);
    expect((err as PolicyError).code).toBe('POLICY_INVALID');
    expect((err as PolicyError).message).toMatch(/^p\.yml:3:14: pii\.tool_call: /);
  });

  it('reports unknown keys, duplicate keys and YAML syntax errors', () => {
    expect(() => parsePolicy('pii:\n  tool_cal: MODIFY\n', { file: 'p.yml' })).toThrow(/p\.yml:2:3: pii: unknown key\(s\): tool_cal/);
    expect(() => parsePolicy('pii: {}\npii: {}\n', { file: 'p.yml' })).toThrow(/p\.yml:2:1: invalid YAML/);
    expect(() => parsePolicy('pii: [\n', { file: 'p.yml' })).toThrow(PolicyError);
    expect(() => parsePolicy('injection:\n  threshold: 2\n')).toThrow(/injection\.threshold/);
  });

  it('loads a file and reports a missing one', async () => {
    const file = join(dir, 'policy.yml');
    writeFileSync(file, 'secrets:\n  tool_output: BLOCK\n');
    expect((await loadPolicyFile(file)).secrets.tool_output).toBe('BLOCK');
    await expect(loadPolicyFile(join(dir, 'missing.yml'))).rejects.toThrow(/cannot read policy file \(ENOENT\)/);
  });

  it('refuses an invalid policy object at engine creation', () => {
    expect(() => createGuardrailEngine({ policy: { pii: { tool_call: 'NOPE' } } as never })).toThrow(PolicyError);
  });
});
