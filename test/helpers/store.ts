// A real store with a movable clock, for core tests. The backend comes from SM_TEST_BACKEND
// (set per vitest project, see vitest.config.ts): the conformance files run once on SQLite, once
// on PGlite and once on a real Postgres server, with the same assertions.
import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import { DAY_MS } from '../../server/core/kernel/clock.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { closeStore, openStore, type OpenOptions } from '../../server/storage/sqlite/open.ts';
import { openPostgresStore } from '../../server/storage/postgres/open-postgres.ts';

export const T0 = Date.UTC(2026, 0, 1, 12);

export type TestBackend = 'sqlite' | 'pglite' | 'postgres';
export const testBackend = (process.env.SM_TEST_BACKEND ?? 'sqlite') as TestBackend;

/** A migrated PGlite's data folder, made once per test file: copies start in ~0.3 s instead of ~2.5. */
let pgliteTemplate: Promise<Blob> | undefined;
async function freshPglite() {
  const [{ PGlite }, { vector }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
  ]);
  pgliteTemplate ??= (async () => {
    const template = new PGlite({ extensions: { vector } });
    const migrated = await openPostgresStore({ url: 'pglite:', env: {}, pglite: template });
    const dump = await template.dumpDataDir('none');
    await closeStore(migrated);
    return dump;
  })();
  return new PGlite({ loadDataDir: await pgliteTemplate, extensions: { vector } });
}

let databases = 0;
/** A database of the run's Postgres server: a copy of its migrated template, or the one a path names (to reopen). */
async function serverDatabase(path: string): Promise<string> {
  const server = new URL(inject('postgresUrl'));
  const name =
    path === ':memory:'
      ? `t_${process.pid}_${++databases}`
      : `f_${createHash('sha1').update(path).digest('hex').slice(0, 16)}`;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: server.href });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`create database "${name}" template "${inject('postgresTemplate')}"`);
  } finally {
    await admin.end();
  }
  server.pathname = `/${name}`;
  return server.href;
}

/** Opens a store on this run's backend: `path` ':memory:' is a fresh database, a file path one that a second call reopens. */
export async function openTestStore(options: Omit<OpenOptions, 'path'> & { path?: string }): Promise<Store> {
  const path = options.path ?? ':memory:';
  if (testBackend === 'sqlite') return openStore({ ...options, path });
  const common = { clock: options.clock, env: options.env ?? {}, config: options.config };
  if (testBackend === 'pglite') {
    if (path === ':memory:') return openPostgresStore({ ...common, url: 'pglite:', pglite: await freshPglite() });
    return openPostgresStore({ ...common, url: `pglite:${path}.pglite` });
  }
  return openPostgresStore({ ...common, url: await serverDatabase(path) });
}

export async function testStore(config: Record<string, unknown> = {}, path = ':memory:') {
  let now = T0;
  const clock = { now: () => now };
  const store = await openTestStore({ path, clock, env: {}, config });
  return {
    store,
    advanceDays: (days: number) => (now += days * DAY_MS),
    setNow: (at: number) => (now = at),
  };
}

/** How many rows `table` holds, on any backend. */
export async function countRows(
  store: Store,
  table: string,
  where = '',
  params: (string | number | null)[] = [],
): Promise<number> {
  return Number(await store.sql.pluck(`select count(*) as n from ${table}${where ? ` where ${where}` : ''}`, params));
}

/**
 * The ids the full-text index of `table` finds for one word: FTS5's external-content index on
 * SQLite (its rowids), the generated tsvector column on Postgres. Both stem in English, so a
 * test asks for the word as written.
 */
export async function textIndexIds(store: Store, table: 'memories' | 'turns', word: string): Promise<number[]> {
  const column = table === 'memories' ? 'content_search' : 'text_search';
  const text =
    store.sql.dialect === 'sqlite'
      ? `select rowid as id from ${table}_fts where ${table}_fts match ? order by rowid`
      : `select id from ${table} where ${column} @@ plainto_tsquery('english', ?) order by id`;
  const rows = await store.sql.all<{ id: number }>(text, [
    store.sql.dialect === 'sqlite' ? `"${word.replaceAll('"', '""')}"` : word,
  ]);
  return rows.map((row) => Number(row.id));
}

/**
 * Runs `text` on a second connection to the database that `path` names, as a CLI next to the
 * server would. PGlite has one connection only: there it runs on the store's own, past the domain
 * functions (no change events), the nearest thing to a write from elsewhere.
 */
export async function runOnAnotherConnection(store: Store, path: string, text: string): Promise<void> {
  if (testBackend === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const other = new Database(path);
    try {
      other.exec(text);
    } finally {
      other.close();
    }
  } else if (testBackend === 'pglite') {
    await store.sql.run(text);
  } else {
    const { default: pg } = await import('pg');
    const other = new pg.Client({ connectionString: await serverDatabase(path) });
    await other.connect();
    try {
      await other.query(text);
    } finally {
      await other.end();
    }
  }
}

const TABLES = {
  // Virtual tables' shadow tables included (FTS5's data), and the virtual tables themselves.
  sqlite: "select name from sqlite_master where type = 'table' order by name",
  postgres: 'select tablename from pg_tables where schemaname = current_schema() order by tablename',
} as const;

/** Every table of the store with all its rows (cells in column order): for scans that nothing is left behind. */
export async function everyTableRows(store: Store): Promise<Map<string, unknown[][]>> {
  const out = new Map<string, unknown[][]>();
  for (const row of await store.sql.values(TABLES[store.sql.dialect])) {
    const table = String(row[0]);
    try {
      out.set(table, await store.sql.values(`select * from "${table}"`));
    } catch (error) {
      // A virtual table whose module is not loaded here (its shadow tables are read instead).
      if (store.sql.dialect === 'postgres') throw error;
    }
  }
  return out;
}
