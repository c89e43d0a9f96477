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

describe('reserved runner names', () => {
  it('holds the handoff tool under both names, and delegate_task / yield_control', async () => {
    const { RESERVED_TOOL_NAMES, HANDOFF_PROTOCOL_NAME, HANDOFF_WIRE_NAME } = await import('../src/index.js');
    expect(RESERVED_TOOL_NAMES).toEqual(
      expect.arrayContaining([HANDOFF_PROTOCOL_NAME, HANDOFF_WIRE_NAME, 'delegate_task', 'yield_control']),
    );
    expect(toWireName(HANDOFF_PROTOCOL_NAME)).toBe(HANDOFF_WIRE_NAME);
    expect(wireNameProblem(HANDOFF_WIRE_NAME)).toBeUndefined();
    expect(wireNameProblem(HANDOFF_PROTOCOL_NAME)).toContain("':' at position 7");
    expect(wireNameProblem('')).toBe('tool name is empty');
  });
});
