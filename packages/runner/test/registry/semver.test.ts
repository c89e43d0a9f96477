import { describe, expect, it } from 'vitest';
import { compareSemver } from '../../src/index.js';

describe('compareSemver (semver.org §11)', () => {
  it('orders the spec example chain', () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 0; i < chain.length - 1; i++) {
      expect(compareSemver(chain[i]!, chain[i + 1]!)).toBeLessThan(0);
      expect(compareSemver(chain[i + 1]!, chain[i]!)).toBeGreaterThan(0);
    }
  });
  it('compares numerically, ignores build metadata, handles huge numbers', () => {
    expect(compareSemver('1.10.0', '1.9.0')).toBeGreaterThan(0);
    expect(compareSemver('2.0.0', '10.0.0')).toBeLessThan(0);
    expect(compareSemver('1.0.0+build.1', '1.0.0+build.2')).toBe(0);
    expect(compareSemver('99999999999999999999.0.0', '99999999999999999998.0.0')).toBeGreaterThan(0);
  });
  it('throws on invalid versions', () => {
    expect(() => compareSemver('1.0', '1.0.0')).toThrow(/not a semantic version/);
  });
});
