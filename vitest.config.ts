import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The conformance suite (docs/architecture.md#store-port): core behaviour through the domain functions, run on every backend
 * with the same assertions. The rest of the suite runs on SQLite only.
 */
const CONFORMANCE: string[] = [
  'core-memories',
  'core-gc',
  'entities',
  'spaces',
  'time-phrases',
  'extraction-heuristics',
  'lifecycle',
  'entity-enrichment',
  'extraction-llm',
  'ner-pipeline',
  'search-core',
  'search-passages',
  'search-context',
  'search-ranker',
  'search-vectors',
  'search-vector-index',
  'search-semantic',
  'jobs-batch',
  'digests',
].map((name) => `test/**/${name}.test.ts`);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build (the package has no exports map) for yoga and Pothos;
    // Vite would hand our sources index.mjs instead: two GraphQLError classes, and expected
    // errors masked as unexpected. One copy, as in production.
    alias: [
      { find: /^graphql$/, replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)) },
      // The AI SDK package imports the typed client by its package name; in tests, its sources.
      {
        find: /^@symbiosis-memory\/client$/,
        replacement: fileURLToPath(new URL('./client/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    projects: [
      {
        extends: true as const,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], globalSetup: ['test/global-setup.ts'] },
      },
      ...(CONFORMANCE.length === 0
        ? []
        : [
            {
              extends: true as const,
              test: { name: 'pglite', include: CONFORMANCE, env: { SM_TEST_BACKEND: 'pglite' } },
            },
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: CONFORMANCE,
                env: { SM_TEST_BACKEND: 'postgres' },
                globalSetup: ['test/postgres-setup.ts'],
              },
            },
          ]),
    ],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // CLI and server tests spawn processes; two workers match the 2-core machines.
    maxWorkers: 2,
    // Expected failures (LLM errors, retries) log warnings; keep test output readable.
    // A data folder of the suite's own: a command run without --db never touches the real default
    // database; and a cache folder, so the word vectors are never read from or converted into the real one.
    env: {
      SM_LOG_LEVEL: 'error',
      XDG_DATA_HOME: mkdtempSync(join(tmpdir(), 'sm-test-data-')),
      XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'sm-test-cache-')),
    },
  },
});
