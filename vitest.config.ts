import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build (the package has no exports map) for yoga and Pothos;
    // Vite would hand our sources index.mjs instead: two GraphQLError classes, and expected
    // errors masked as unexpected. One copy, as in production.
    alias: [{ find: /^graphql$/, replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // CLI and server tests spawn processes; two workers match the 2-core machines.
    maxWorkers: 2,
    // Expected failures (LLM errors, retries) log warnings; keep test output readable.
    env: { SM_LOG_LEVEL: 'error' },
  },
});
