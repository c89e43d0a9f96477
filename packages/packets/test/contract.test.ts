import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContractInvalidError,
  PolicyStoreUnavailableError,
  approvalsFor,
  createFilePolicyStore,
  loadRecipientContract,
  parseRecipientContract,
} from '../src/index.js';
import { CONTRACT_YAML, PURPOSE, REFUNDS } from './helpers/fixtures.js';

function problemsOf(text: string): string[] {
  try {
    parseRecipientContract(text, { file: 'c.yml' });
  } catch (err) {
    expect(err).toBeInstanceOf(ContractInvalidError);
    return (err as ContractInvalidError).problems;
  }
  throw new Error('expected the contract to be rejected');
}

describe('recipient contract', () => {
  it('parses recipients, purposes, field classes and provider boundaries', () => {
    const c = parseRecipientContract(CONTRACT_YAML);
    expect(c.contract_version).toBe('2026-11-29.1');
    const purpose = c.recipients[REFUNDS]!.purposes[PURPOSE]!;
    expect(purpose.fields.order_id).toEqual({ class: 'identifier', as: 'value' });
    expect(purpose.fields.customer_email).toEqual({ class: 'contact_pii', path: 'customer.email', as: 'value' });
    expect(purpose.fields.customer_id!.as).toBe('reference');
    expect(c.recipients[REFUNDS]!.provider).toEqual({ name: 'openai', retention_days: 30, zero_data_retention: false });
  });

  it('loads the example contract shipped in examples/contracts', async () => {
    const c = await loadRecipientContract(new URL('../../../examples/contracts/refunds.contract.yml', import.meta.url).pathname);
    const purpose = c.recipients['io.baton.examples.refunds']!.purposes.refund_eligibility_review!;
    expect(Object.keys(purpose.fields).sort()).toEqual(['currency', 'order_id', 'product_category', 'refund_amount', 'region']);
    for (const forbidden of ['notes', 'prior_messages', 'customer_email', 'email', 'phone', 'card'])
      expect(purpose.fields).not.toHaveProperty(forbidden);
  });

  it('reports every problem with file:line:col', () => {
    const problems = problemsOf(
      [
        'contract_version: 7',
        'recipients:',
        '  io.a.b:',
        '    provider: { name: openai, retention_days: 1, zero_data_retention: false }',
        '    purposes:',
        '      p:',
        '        task: t',
        '        data_classes: [identifier]',
        '        fields:',
        '          email: contact_pii',
        'surprise: 1',
      ].join('\n'),
    );
    expect(problems).toContain('c.yml:1:19: contract_version: Invalid input: expected string, received number');
    expect(problems.some((p) => p.startsWith('c.yml:10:18:') && p.includes("data class 'contact_pii'"))).toBe(true);
    expect(problems).toContain("c.yml:11:1: (root): unknown key 'surprise'");
  });

  it('rejects duplicate keys, bad recipient ids and YAML syntax errors at their line', () => {
    expect(problemsOf('contract_version: "1"\ncontract_version: "2"\nrecipients: {}\n')[0]).toMatch(/^c\.yml:2:1: .*unique/);
    expect(problemsOf('contract_version: "1"\nrecipients:\n  Refunds:\n    provider: {}\n')[0]).toMatch(
      /^c\.yml:4:5: recipients\.Refunds:/,
    );
    expect(problemsOf('contract_version: "1"\nrecipients: [\n')[0]).toMatch(/^c\.yml:\d+:\d+: /);
  });

  it('refuses an alias bomb quickly', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
      );
    expect(problemsOf(`${bomb.join('\n')}\n`)[0]).toMatch(/alias/i);
  });

  it('picks the most specific approvals', () => {
    const c = parseRecipientContract(CONTRACT_YAML);
    expect(approvalsFor(c, 'acme', 'C-1001').roles.support_agent).not.toContain('customer_email');
    expect(approvalsFor(c, 'acme', 'C-PRIVILEGED').roles.support_agent).toContain('customer_email');
    expect(approvalsFor({ ...c, approvals: [] }, 'acme', 'C-1001').roles).toEqual({});
  });
});

describe('file policy store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-packets-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the contract and approvals from a file', async () => {
    const file = join(dir, 'ok.yml');
    await writeFile(file, CONTRACT_YAML);
    const store = createFilePolicyStore({ file });
    expect((await store.getContract()).contract_version).toBe('2026-11-29.1');
    expect((await store.getContract('2026-11-29.1')).recipients).toHaveProperty(REFUNDS);
    expect((await store.getApprovals('acme', 'C-1')).roles.support_agent).toContain('order_id');
  });

  it('is unavailable when the file is missing, invalid or the version is unknown', async () => {
    const missing = createFilePolicyStore({ file: join(dir, 'nope.yml') });
    await expect(missing.getContract()).rejects.toBeInstanceOf(PolicyStoreUnavailableError);
    await expect(missing.getApprovals('acme', 'C-1')).rejects.toMatchObject({ code: 'POLICY_STORE_UNAVAILABLE' });
    const bad = join(dir, 'bad.yml');
    await writeFile(bad, 'contract_version: [\n');
    await expect(createFilePolicyStore({ file: bad }).getContract()).rejects.toMatchObject({ code: 'POLICY_STORE_UNAVAILABLE' });
    const ok = join(dir, 'ok2.yml');
    await writeFile(ok, CONTRACT_YAML);
    await expect(createFilePolicyStore({ file: ok }).getContract('9.9.9')).rejects.toMatchObject({ code: 'POLICY_STORE_UNAVAILABLE' });
  });
});
