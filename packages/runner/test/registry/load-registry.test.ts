import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentRegistry, RegistryError } from '../../src/index.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/agents');

function agentYml(id: string, version: string, extra = ''): string {
  return `schema_version: "1.0"
id: ${id}
version: ${version}
name: Test agent
instructions: |
  Be helpful.
model:
  provider: openai
  name: gpt-4.1-mini
tools: []
${extra}`;
}

async function expectProblems(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RegistryError);
  return (error as RegistryError).problems.map((p) => `${path.basename(p.file)}:${p.line}:${p.col}: ${p.message}`);
}

describe('loadAgentRegistry({ dir })', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'baton-registry-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the examples with their deployment config', async () => {
    const reg = await loadAgentRegistry({ dir: EXAMPLES });
    expect(reg.list().map((a) => a.manifest.id)).toEqual(['io.baton.examples.refunds', 'io.baton.examples.triage']);
    expect(reg.get('io.baton.examples.triage')!.deployment.handoffs).toEqual(['io.baton.examples.refunds']);
    expect(reg.get('io.baton.examples.refunds')!.deployment.input_guardrail).toBe('racing');
    expect(reg.limits.maxHandoffs).toBe(3);
  });

  it('picks the highest semver unless a version is pinned', async () => {
    await mkdir(path.join(dir, 'v'), { recursive: true });
    await writeFile(path.join(dir, 'a1.agent.yml'), agentYml('io.test.a', '1.2.0'));
    await writeFile(path.join(dir, 'a2.agent.yml'), agentYml('io.test.a', '1.10.0'));
    await writeFile(path.join(dir, 'v', 'agent.yml'), agentYml('io.test.a', '2.0.0-rc.1'));
    const reg = await loadAgentRegistry({ dir });
    expect(reg.get('io.test.a')!.manifest.version).toBe('2.0.0-rc.1');
    expect(reg.get('io.test.a', '1.2.0')!.manifest.version).toBe('1.2.0');
    expect(reg.get('io.test.a', '3.0.0')).toBeUndefined();
    expect(reg.list().map((a) => a.manifest.version)).toEqual(['1.2.0', '1.10.0', '2.0.0-rc.1']);
  });

  it('refuses invalid manifests, listing every problem as file:line:col', async () => {
    await writeFile(path.join(dir, 'bad.agent.yml'), agentYml('Not-An-Id', '1.0', 'extra_key: 1\n'));
    const problems = await expectProblems(loadAgentRegistry({ dir }));
    expect(problems.length).toBeGreaterThanOrEqual(3);
    for (const p of problems) expect(p).toMatch(/^bad\.agent\.yml:\d+:\d+: /);
    expect(problems.some((p) => p.startsWith('bad.agent.yml:2:') && /id/.test(p))).toBe(true);
  });

  it('refuses duplicate id+version', async () => {
    await writeFile(path.join(dir, 'a.agent.yml'), agentYml('io.test.a', '1.0.0'));
    await writeFile(path.join(dir, 'b.agent.yml'), agentYml('io.test.a', '1.0.0'));
    const problems = await expectProblems(loadAgentRegistry({ dir }));
    expect(problems.join('\n')).toMatch(/io\.test\.a@1\.0\.0/);
  });

  it('validates baton.yml with located errors', async () => {
    await writeFile(path.join(dir, 'a.agent.yml'), agentYml('io.test.a', '1.0.0'));
    await writeFile(
      path.join(dir, 'baton.yml'),
      [
        'agents:',
        '  io.test.a:',
        '    handoffs: [io.test.missing]',
        '    mode: subprocess',
        '    colour: blue',
        '  io.test.ghost:',
        '    mode: in_process',
        'limits:',
        '  max_turns: 0',
        '',
      ].join('\n'),
    );
    const problems = await expectProblems(loadAgentRegistry({ dir }));
    const text = problems.join('\n');
    expect(text).toMatch(/baton\.yml:5:5: .*colour/);
    expect(text).toMatch(/baton\.yml:9:14: limits\.max_turns/);
    expect(text).toMatch(/baton\.yml:\d+:\d+: agents\.io\.test\.a\.process: mode: subprocess needs/);
  });

  it('cross-checks baton.yml against the loaded agents', async () => {
    await writeFile(path.join(dir, 'a.agent.yml'), agentYml('io.test.a', '1.0.0'));
    await writeFile(
      path.join(dir, 'baton.yml'),
      ['agents:', '  io.test.a:', '    handoffs: [io.test.missing, io.test.a]', '  io.test.ghost: {}', ''].join('\n'),
    );
    const problems = await expectProblems(loadAgentRegistry({ dir }));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^baton\.yml:3:\d+: .*unknown handoff target 'io\.test\.missing'/),
        expect.stringMatching(/^baton\.yml:3:\d+: .*cannot hand off to itself/),
        expect.stringMatching(/^baton\.yml:4:\d+: agents\.io\.test\.ghost: no agent with this id/),
      ]),
    );
  });

  it('reports a missing directory or an empty one clearly', async () => {
    expect(await expectProblems(loadAgentRegistry({ dir: path.join(dir, 'nope') }))).toEqual([expect.stringMatching(/does not exist/)]);
    expect(await expectProblems(loadAgentRegistry({ dir }))).toEqual([expect.stringMatching(/no agent manifests/)]);
  });
});

describe('loadAgentRegistry({ urls })', () => {
  let server: Server;
  let base: string;
  beforeEach(async () => {
    server = createServer((req, res) => {
      if (req.url === '/a.yml') return res.end(agentYml('io.test.remote', '1.0.0'));
      if (req.url === '/big.yml') return res.end(agentYml('io.test.big', '1.0.0') + '#'.repeat(10_000));
      if (req.url === '/slow.yml') return; // never answers
      if (req.url === '/baton.yml') return res.end('agents:\n  io.test.remote:\n    mode: subprocess\n    process: { command: sh }\n');
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('loads manifests over HTTP', async () => {
    const reg = await loadAgentRegistry({ urls: [`${base}/a.yml`] });
    expect(reg.get('io.test.remote')!.source).toBe(`${base}/a.yml`);
  });

  it('enforces the size limit, the timeout and HTTP status, reporting each URL', async () => {
    const problems = await expectProblems(
      loadAgentRegistry({
        urls: [`${base}/big.yml`, `${base}/slow.yml`, `${base}/missing.yml`, 'file:///etc/passwd'],
        maxBytes: 2000,
        timeoutMs: 300,
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/big\.yml:1:1: .*limit of 2000 bytes|big\.yml:1:1: .*the limit is 2000/),
      expect.stringMatching(/slow\.yml:1:1: timed out after 300 ms/),
      expect.stringMatching(/missing\.yml:1:1: HTTP 404/),
      expect.stringMatching(/passwd:1:1: unsupported URL scheme 'file:'/),
    ]);
  });

  it('never lets a remote deployment config start local processes', async () => {
    const problems = await expectProblems(loadAgentRegistry({ urls: [`${base}/a.yml`], deploymentUrl: `${base}/baton.yml` }));
    expect(problems.join('\n')).toMatch(/subprocess agents cannot be configured from a URL/);
  });
});
