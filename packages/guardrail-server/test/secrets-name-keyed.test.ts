// Secrets in two grades (issue 13): a provider's token shape is refused; a credential-like value
// found only under a credential name is redacted (policy `secrets.name_keyed`). Also: a value
// under a credential-named JSON member (tool-call arguments, handoff state) is judged with that
// name, so splitting `password` and its value into a key and a value hides nothing.
import { describe, expect, it } from 'vitest';
import { createGuardrailEngine, detectSecrets, NAME_KEYED_SECRET_RULES, NAME_KEYED_SEVERITY } from '../src/index.js';
import { agentInput, agentResponse, FAKE, handoff, toolCall } from './helpers.js';

const engine = createGuardrailEngine();
// Values assembled at run time: the source holds no credential-shaped literal.
const RANDOM = 'a8Kd93jf' + 'Lq02mZx7' + 'PqR4tY6u';
const PASSWORD = 'tiger7' + 'horse!Q';

function argumentsOf(res: { modified_payload?: unknown }): unknown {
  const p = res.modified_payload as { function: { arguments: string } };
  return JSON.parse(p.function.arguments);
}

describe('name-keyed rules', () => {
  it('are marked in the rule list and exported by id', () => {
    expect(NAME_KEYED_SECRET_RULES).toEqual(
      expect.arrayContaining(['generic-secret-assignment', 'password-assignment', 'generic-key-value', 'vendor-key-assignment']),
    );
    expect(NAME_KEYED_SECRET_RULES).not.toContain('github-token');
    expect(NAME_KEYED_SECRET_RULES).not.toContain('basic-auth-url');
  });

  it('report their spans with the lower severity; provider rules stay critical', () => {
    expect(detectSecrets(`api_key = "${RANDOM}"`)).toEqual([
      { type: 'generic-secret-assignment', start: 11, end: 11 + RANDOM.length, severity: NAME_KEYED_SEVERITY },
    ]);
    expect(detectSecrets(`token = ${FAKE.githubToken}`).map((s) => [s.type, s.severity])).toEqual([['github-token', 'critical']]);
  });
});

describe('engine: block a provider token, redact an unverified credential', () => {
  it('redacts a random value under a credential name in a response (MODIFY, not BLOCK)', () => {
    const res = engine.validateSync(agentResponse(`Use api_key = "${RANDOM}" for the staging box.`));
    expect(res.decision).toBe('MODIFY');
    expect(res.reason_code).toBe('SECRET_REDACTED');
    expect(res.modified_payload).toBe('Use api_key = "[REDACTED:SECRET]" for the staging box.');
    expect(JSON.stringify(res)).not.toContain(RANDOM);
  });

  it('redacts a password a user pastes into an input', () => {
    const res = engine.validateSync(agentInput(`why does login fail? password: ${PASSWORD}`));
    expect(res.decision).toBe('MODIFY');
    expect(JSON.stringify(res)).not.toContain(PASSWORD);
  });

  it('blocks a provider-shaped token, and a text holding both', () => {
    expect(engine.validateSync(agentResponse(`GITHUB_TOKEN=${FAKE.githubToken}`)).decision).toBe('BLOCK');
    const both = engine.validateSync(agentResponse(`api_key = "${RANDOM}"\naws_access_key_id = ${FAKE.awsKeyId}`));
    expect(both.decision).toBe('BLOCK');
    expect(both.reason_code).toBe('SECRET_DETECTED');
  });

  it('a name-keyed hit that overlaps a provider token reports the provider (critical, BLOCK)', () => {
    const spans = detectSecrets(`secret_token = "${FAKE.githubToken}"`);
    expect(spans.map((s) => [s.type, s.severity])).toEqual([['github-token', 'critical']]);
  });

  it('secrets.name_keyed: BLOCK refuses them like any secret', () => {
    const strict = createGuardrailEngine({ policy: { secrets: { name_keyed: 'BLOCK' } } });
    expect(strict.validateSync(agentResponse(`api_key = "${RANDOM}"`)).decision).toBe('BLOCK');
    // ...and the action type's own MODIFY still wins where it is MODIFY.
    expect(strict.validateSync(toolCall('x', { note: `api_key = "${RANDOM}"` })).decision).toBe('BLOCK');
  });

  it('rejects an unknown name_keyed action', () => {
    expect(() => createGuardrailEngine({ policy: { secrets: { name_keyed: 'ALLOW' as 'BLOCK' } } })).toThrow(/name_keyed/);
  });
});

describe('secrets split across a JSON key and its value', () => {
  it.each([
    ['password', { password: PASSWORD }],
    ['a nested db_password', { config: { db_password: PASSWORD } }],
    ['api_key', { api_key: RANDOM }],
    ['clientSecret', { auth: { clientSecret: RANDOM } }],
    ['api_keys in an array', { api_keys: ['first', RANDOM] }],
  ])('%s in tool-call arguments is redacted, other values kept', (_name, args) => {
    const res = engine.validateSync(toolCall('deploy', { ...args, region: 'eu-west-1' }));
    expect(res.decision).toBe('MODIFY');
    const out = JSON.stringify(argumentsOf(res));
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toContain(RANDOM);
    expect(out).toContain('[REDACTED:SECRET]');
    expect(out).toContain('eu-west-1');
  });

  it('under __proto__ and constructor members (plain data, not prototypes)', () => {
    const args = `{"__proto__": {"password": "${PASSWORD}"}, "constructor": {"token": "${FAKE.githubToken}"}}`;
    const res = engine.validateSync(toolCall('x', args));
    expect(res.decision).toBe('BLOCK'); // the GitHub token
    expect(JSON.stringify(res)).not.toContain(PASSWORD);
    const onlyPassword = engine.validateSync(toolCall('x', `{"__proto__": {"password": "${PASSWORD}"}}`));
    expect(onlyPassword.decision).toBe('MODIFY');
    const p = (onlyPassword.modified_payload as { function: { arguments: string } }).function.arguments;
    expect(p).toBe('{"__proto__": {"password": "[REDACTED:SECRET]"}}');
    expect(({} as Record<string, unknown>)['password']).toBeUndefined();
  });

  it('in handoff state', () => {
    const res = engine.validateSync(handoff('continue', { creds: { api_token: RANDOM } }));
    expect(res.decision).toBe('MODIFY');
    expect(JSON.stringify(res)).not.toContain(RANDOM);
  });

  it('a member name made of invisible characters around the word still counts', () => {
    const res = engine.validateSync(toolCall('x', { 'pass\u200bword': PASSWORD }));
    expect(res.decision).toBe('MODIFY');
    expect(JSON.stringify(res)).not.toContain(PASSWORD);
  });

  it.each([
    ['a reference', { password: '${DB_PASSWORD}' }],
    ['a token type', { token_type: 'Bearer' }],
    ['a key that names a column', { primary_key: 'order_id' }],
    ['a secret name, not a value', { secret_name: 'prod/db/credentials' }],
    ['a placeholder', { api_key: '<your-api-key>' }],
    ['an ordinary member', { description: RANDOM }],
    ['a multi-line value', { password_help: 'Passwords need 12 characters.\nUse a passphrase.' }],
  ])('%s is left alone', (_name, args) => {
    expect(engine.validateSync(toolCall('x', args)).decision).toBe('ALLOW');
  });

  it('a 100,000-character member name is read by its last 80 characters only', () => {
    const key = 'k'.repeat(100_000) + '_password';
    expect(detectSecrets(PASSWORD, { memberName: key }).length).toBe(1);
    expect(detectSecrets(PASSWORD, { memberName: 'x'.repeat(100_000) }).length).toBe(0);
  });
});

describe('long credential names (up to 64 characters after the credential word)', () => {
  // `password_for_the_production_database` has 28 name characters after `password`: 20 were read,
  // so its value went through.
  const CHOSEN = 'hunter2' + '-xyz';
  const LONG = 'password_for_the_production_database';

  it.each([
    ['a quoted assignment', `${LONG}: "${CHOSEN}"`, CHOSEN],
    ['an env line', `${LONG.toUpperCase()}=${CHOSEN}`, CHOSEN],
    ['a generic secret name', `token_for_the_billing_service_api_v2 = "${RANDOM}"`, RANDOM],
    ['a 64-character tail', `password${'_abcdefg'.repeat(8)}: "${CHOSEN}"`, CHOSEN],
  ])('%s is redacted', (_name, text, value) => {
    const res = engine.validateSync(agentInput(`Config:\n${text}\nthanks`));
    expect(res.decision).toBe('MODIFY');
    expect(JSON.stringify(res)).not.toContain(value);
  });

  it('under a long credential-named JSON member', () => {
    const res = engine.validateSync(toolCall('deploy', { [LONG]: CHOSEN, region: 'eu-west-1' }));
    expect(res.decision).toBe('MODIFY');
    expect(JSON.stringify(argumentsOf(res))).not.toContain(CHOSEN);
  });

  it('stays bounded: a name running on past 64 characters is not read as one', () => {
    expect(detectSecrets(`password${'_abcdefg'.repeat(9)}: "${CHOSEN}"`)).toEqual([]);
  });

  it('a long name that describes rather than holds a password is left alone', () => {
    const res = engine.validateSync(agentInput(`password_reset_link_for_the_customer_message: "Click the link to reset"`));
    expect(res.decision).toBe('ALLOW');
  });
});
