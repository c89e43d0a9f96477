import { describe, expect, it } from 'vitest';
import { createProgram } from '../src/index.js';

describe('baton program', () => {
  it('is named baton', () => {
    expect(createProgram().name()).toBe('baton');
  });
});
