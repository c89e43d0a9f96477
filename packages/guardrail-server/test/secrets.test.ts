import { describe, expect, it } from 'vitest';
import { detectSecrets, shannonEntropy } from '../src/index.js';
import { FAKE } from './helpers.js';

const ruleIds = (text: string) => detectSecrets(text).map((s) => s.type);

describe('detectSecrets positives', () => {
  it.each([
    ['GitHub token', `token: ${FAKE.githubToken}`, 'github-token'],
    ['AWS access key id', `aws_access_key_id = ${FAKE.awsKeyId}`, 'aws-access-key'],
    ['Slack bot token', `SLACK=${FAKE.slackBot}`, 'slack-bot-token'],
    ['Stripe secret key', `stripe.api_key = "${FAKE.stripe}"`, 'stripe-key'],
    ['JWT', `Authorization: Bearer ${FAKE.jwt}`, 'jwt'],
    ['PEM private key', `${FAKE.pemHeader}\n${'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun'}\n`, 'private-key'],
    ['basic-auth URL', 'postgres://app:Xk29vLq8rT@db.internal.example.com/prod', 'basic-auth-url'],
    ['high-entropy assignment', 'client_secret: "6da89121079f83b2eb6acccf8219ea982c3d79bc"', 'generic-secret-assignment'],
  ])('finds a %s', (_name, text, rule) => {
    expect(ruleIds(text)).toContain(rule);
  });

  it('returns the span of the secret value only', () => {
    const text = `export GITHUB_TOKEN=${FAKE.githubToken}\n`;
    const [s] = detectSecrets(text);
    expect(text.slice(s!.start, s!.end)).toBe(FAKE.githubToken);
  });
});

describe('detectSecrets hard negatives', () => {
  it.each([
    ['a placeholder', 'api_key = "<your-api-key>"'],
    ['an env reference', 'password = process.env.DB_PASSWORD'],
    ['repeated x', 'token: xxxxxxxxxxxxxxxxxxxxxxxx'],
    ['a template URL', 'https://${user}:${password}@api.example.com'],
    ['an identifier', 'const keyStr = Ed25519.BlindKeySignatures'],
    ['a low-entropy value', 'password = "aaaaaaaaaaaa"'],
    ['prose', 'Remember to rotate your API key every 90 days and never share your password.'],
    ['a UUID that is an id', 'credentialsId: "29f63271-dc2f-4734-8221-5b31b5169bac"'],
  ])('%s is not a secret', (_name, text) => {
    expect(detectSecrets(text)).toEqual([]);
  });
});

describe('shannonEntropy', () => {
  it('is 0 for one repeated character and log2(n) for n distinct ones', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});

describe('keyword gating', () => {
  it('still runs a rule whose keyword overlaps another keyword ("ask_key")', () => {
    const text = 'ask_key = "Zq8Lm3Xv7Rt2Np5Kw9Hy4Bc"';
    expect(detectSecrets(text).map((s) => s.type)).toEqual(['generic-secret-assignment']);
  });
});
