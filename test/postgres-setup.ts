// Before the Postgres project's files: one throwaway server for the run (Debian's binaries) with a
// migrated template database, so each test's database is a quick copy of it.
import type { TestProject } from 'vitest/node';
import { logger } from '../server/logger.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import { openPostgresStore } from '../server/storage/postgres/open-postgres.ts';
import { startPostgresServer } from './helpers/postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startPostgresServer();
  const template = 'sm_template';
  // Setup runs outside the projects' env (SM_LOG_LEVEL=error): Debian's Postgres has no pgvector,
  // an expected warning that would otherwise land in the run's output.
  logger.level = 'error';
  const store = await openPostgresStore({ url: await server.createDatabase(template), env: {} });
  await closeStore(store);
  project.provide('postgresUrl', server.url);
  project.provide('postgresTemplate', template);
  return () => server.stop();
}
