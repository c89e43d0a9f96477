import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME } from '../src/index.js';

describe('package', () => {
  it('has its name', () => {
    expect(PACKAGE_NAME).toBe('@baton/packets');
  });
});
