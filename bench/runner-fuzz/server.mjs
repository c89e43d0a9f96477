// The service under fuzz, in its own process (so a crash is seen as an exit): the runner HTTP
// service with per-caller tokens, the in-process guardrail engine, a SQLite store and the offline
// model, on a loopback port. Prints one JSON line: { url, victimThreadId, markers, pid }.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuardrailEngine } from '@baton/guardrail-server';
import { createSqliteThreadStore, loadAgentRegistry, parseScenario, Runner, OfflineModelProvider } from '@baton/runner';
import { createRunnerServer, createTokenAuthenticator, parseTokensFile } from '@baton/runner/http';
import { writeAgents, getCase } from '../runner-overhead/fixture.mjs';

const [victimToken, attackerToken] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'baton-fuzz-'));
const store = createSqliteThreadStore({ file: join(dir, 'threads.db') });
const runner = new Runner({
  registry: await loadAgentRegistry({ dir: writeAgents('blocking') }),
  tools: { get_case: getCase },
  guardrails: createGuardrailEngine(),
  store,
  modelProvider: new OfflineModelProvider(parseScenario('version: 1\nname: fuzz\nagents:\n  "*":\n    rules:\n      - message: Noted.\n')),
});
const tokens = parseTokensFile(
  `tokens:\n  - { token: ${victimToken}, tenant: victim, subject: v, roles: [support_agent] }\n  - { token: ${attackerToken}, tenant: attacker, subject: a, roles: [support_agent] }\n`,
  'tokens.yml',
);
const server = createRunnerServer({ runner, store, port: 0, authenticator: createTokenAuthenticator({ tokens }) });
const { url } = await server.listen();
const markers = ['VICTIM-SECRET-7f3a91', 'VICTIM-STATE-c0ffee'];
const thread = await store.createThread({ tenant: 'victim', state: { note: markers[1] } });
const result = await runner.run({
  agentId: 'bench.agents.triage',
  input: `account note ${markers[0]}`,
  threadId: thread.id,
  auth: { tenant: 'victim', subject: 'v', roles: ['support_agent'] },
});
process.stdout.write(`${JSON.stringify({ url, victimThreadId: result.thread_id, markers, pid: process.pid })}\n`);
process.on(
  'SIGTERM',
  () =>
    void server
      .close()
      .then(() => store.close())
      .then(() => process.exit(0)),
);
