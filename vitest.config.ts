import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'domain/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // No test file starts in the last minutes of a Damascus day (test/support/damascus-day.ts).
    setupFiles: ['test/support/one-damascus-day.setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
