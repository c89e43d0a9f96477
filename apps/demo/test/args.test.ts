import { describe, expect, it } from 'vitest';
import { DemoUsageError, parseDemoArgs } from '../src/args.js';

describe('parseDemoArgs', () => {
  it('defaults to .baton/demo and full output', () => {
    expect(parseDemoArgs([])).toEqual({ out: '.baton/demo', quiet: false, help: false });
  });

  it('reads --out and --quiet', () => {
    expect(parseDemoArgs(['--out', '/tmp/x', '--quiet'])).toEqual({ out: '/tmp/x', quiet: true, help: false });
  });

  it('refuses unknown flags, positionals, a missing or empty --out, with the reason', () => {
    expect(() => parseDemoArgs(['--verbose'])).toThrow(DemoUsageError);
    expect(() => parseDemoArgs(['--verbose'])).toThrow(/--verbose/);
    expect(() => parseDemoArgs(['extra'])).toThrow(DemoUsageError);
    expect(() => parseDemoArgs(['--out'])).toThrow(/--out/);
    expect(() => parseDemoArgs(['--out', ' '])).toThrow('--out must name a directory');
  });
});
