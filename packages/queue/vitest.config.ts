import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // One Redis for all test files: REDIS_URL, or a redis-server started for the run.
    globalSetup: ['test/global-setup.ts'],
  },
});
