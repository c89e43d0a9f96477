import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/**/*.test.ts'], exclude: ['test/fixtures/**'], testTimeout: 20_000, hookTimeout: 20_000 },
});
