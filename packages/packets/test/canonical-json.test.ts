import { describe, expect, it } from 'vitest';
import { canonicalJson, deriveReference, keyedDigest } from '../src/index.js';

describe('canonicalJson (RFC 8785)', () => {
  it('matches the RFC 8785 section 3.2.2 example', () => {
    const input = {
      // The RFC's own example literal, precision loss included.
      // eslint-disable-next-line no-loss-of-precision
      numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
      string: '\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/',
      literals: [null, true, false],
    };
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const keys = Object.keys(JSON.parse(canonicalJson(input)) as object);
    // JSON.parse re-orders integer-like keys, so compare the raw text order instead.
    expect(keys).toHaveLength(7);
    const text = canonicalJson(input);
    const order = ['\\r', '"1"', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'].map((k) => text.indexOf(k));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('is independent of key order and rejects what JSON cannot carry', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: 'x' } })).toBe(
      canonicalJson({ a: { c: 'x', d: [1, { y: 1, z: 0 }] }, b: 1 }),
    );
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });
});

describe('keys', () => {
  const scope = { key: 'k', recipient: 'io.a.refunds', purpose: 'p', tenant: 'acme', kind: 'case' };
  it('derives opaque references scoped per recipient and purpose', () => {
    const ref = deriveReference({ ...scope, value: 'C-1001' });
    expect(ref).toMatch(/^ref_[A-Za-z0-9_-]{32}$/);
    expect(ref).not.toContain('1001');
    expect(deriveReference({ ...scope, value: 'C-1001' })).toBe(ref);
    expect(deriveReference({ ...scope, purpose: 'other', value: 'C-1001' })).not.toBe(ref);
    expect(deriveReference({ ...scope, recipient: 'io.a.other', value: 'C-1001' })).not.toBe(ref);
    expect(deriveReference({ ...scope, key: 'k2', value: 'C-1001' })).not.toBe(ref);
  });
  it('digests canonical JSON with a key', () => {
    const d = keyedDigest('k', { a: 1, b: 2 });
    expect(d).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(keyedDigest('k', { b: 2, a: 1 })).toBe(d);
    expect(keyedDigest('k2', { a: 1, b: 2 })).not.toBe(d);
  });
});

describe('packetKeysFromEnv', () => {
  const long = (c: string) => c.repeat(32);
  it('reads two distinct keys of at least 32 bytes', async () => {
    const { packetKeysFromEnv } = await import('../src/index.js');
    expect(packetKeysFromEnv({ env: { BATON_PACKET_REFERENCE_KEY: long('r'), BATON_PACKET_AUDIT_KEY: long('a') } })).toEqual({
      referenceKey: long('r'),
      auditKey: long('a'),
      ephemeral: false,
    });
    expect(() => packetKeysFromEnv({ env: {} })).toThrow(/BATON_PACKET_REFERENCE_KEY is not set/);
    expect(() => packetKeysFromEnv({ env: { BATON_PACKET_REFERENCE_KEY: 'short', BATON_PACKET_AUDIT_KEY: long('a') } })).toThrow(
      /at least 32/,
    );
    expect(() => packetKeysFromEnv({ env: { BATON_PACKET_REFERENCE_KEY: long('a'), BATON_PACKET_AUDIT_KEY: long('a') } })).toThrow(
      /must differ/,
    );
    const eph = packetKeysFromEnv({ env: {}, allowEphemeral: true });
    expect(eph.ephemeral).toBe(true);
    expect(Buffer.from(eph.auditKey as Uint8Array).equals(Buffer.from(eph.referenceKey as Uint8Array))).toBe(false);
  });
});
