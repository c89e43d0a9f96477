import { describe, expect, it } from 'vitest';
import { toProtocolName, toWireName, wireNameProblem } from '../src/index.js';

describe('wire names', () => {
  it('maps system::handoff both ways', () => {
    expect(toWireName('system::handoff')).toBe('system__handoff');
    expect(toProtocolName('system__handoff')).toBe('system::handoff');
  });
  it('names the offending character', () => {
    expect(wireNameProblem('get:case')).toContain("':' at position 4");
    expect(wireNameProblem('x'.repeat(65))).toContain('65 characters');
    expect(wireNameProblem('get_case')).toBeUndefined();
  });
});
