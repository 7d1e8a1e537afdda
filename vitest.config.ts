import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // CLI and server tests spawn processes; two workers match the 2-core machines.
    maxWorkers: 2,
    // Expected failures (LLM errors, retries) log warnings; keep test output readable.
    env: { SM_LOG_LEVEL: 'error' },
  },
});
