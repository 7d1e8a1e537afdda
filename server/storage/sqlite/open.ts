// Opening a database: pragmas, sqlite-vec, migrations, search indexes, then the layered config.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from './native-handles.ts';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as sqliteVec from 'sqlite-vec';
import { systemClock, type Clock } from '../../core/kernel/clock.ts';
import type { Store } from '../../core/kernel/store.ts';
import { normalizeText } from '../../core/text/text.ts';
import { logger } from '../../logger.ts';
import { flushAccess } from '../../core/memory/access.ts';
import { backfillTurnDates } from '../../core/turns/turn-dates.ts';
import { startCheckpointer, type Checkpointer } from './checkpointer.ts';
import { configFilePath, outerConfigLayers, rememberConfigSources, resolveStoreConfig } from '../config-layers.ts';
import { queryBuilder } from '../../core/kernel/query-builder.ts';
import { sqliteSql } from './sqlite-sql.ts';
import { SQLITE_DIALECT } from './dialect.ts';
import { dropSearchViews, ensureSearchIndexes, hasFts5 } from './search-index.ts';
import { defaultDbPath } from './paths.ts';
import { SQLITE_MIGRATIONS as MIGRATIONS } from '../migrations.ts';

export type OpenOptions = {
  path?: string;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Highest-precedence overrides (tests, CLI flags). */
  config?: Record<string, unknown>;
  /** WAL checkpoints on a worker thread instead of inside commits (long-running processes). */
  backgroundCheckpoints?: boolean;
};

const checkpointers = new WeakMap<Store, Checkpointer>();

let newestMigration: number | undefined;

/**
 * Whether the file has every migration of this release (or a later one's) already, as drizzle's
 * migrator decides it: by the time of the last one applied. Then an open skips the migrator,
 * which reads and hashes every migration file, and the search views it drops around migrating:
 * opening a current file writes nothing, which keeps a one-shot `sm search` quick and does not
 * invalidate the statements another connection (the server's) has prepared.
 */
export function migrated(sqlite: Database.Database): boolean {
  newestMigration ??= Math.max(
    ...(
      JSON.parse(readFileSync(join(MIGRATIONS, 'meta/_journal.json'), 'utf8')) as { entries: { when: number }[] }
    ).entries.map((e) => e.when),
  );
  const table = sqlite
    .prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'")
    .get();
  const last = table
    ? (sqlite.prepare('select max(created_at) from __drizzle_migrations').pluck().get() as number | null)
    : null;
  return last !== null && Number(last) >= newestMigration;
}

/**
 * Migrations rebuild tables (new keys: every owned row leads with its user). The migrator runs them in one transaction, where
 * `PRAGMA foreign_keys` is ignored: with keys on, dropping the old sessions table would cascade
 * into turns. So keys are off around the migration and checked once after it.
 */
function migrateSafely(sqlite: Database.Database) {
  if (migrated(sqlite)) return;
  dropSearchViews(sqlite);
  sqlite.pragma('foreign_keys = OFF');
  try {
    migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS });
    const broken = sqlite.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0)
      throw new Error(`the database has ${broken.length} rows with a broken reference after migrating`);
  } finally {
    sqlite.pragma('foreign_keys = ON');
  }
}

/** A JSON array's items, parsed; anything else is no items (as json_each of null is none). */
const listItems = (list: unknown): unknown[] => {
  const items: unknown = typeof list === 'string' ? JSON.parse(list) : null;
  return Array.isArray(items) ? items : [];
};

/**
 * `sm_ids(?)` and `sm_texts(?)`: a JSON array's integers or strings as rows of one column
 * `value`, under the same names as their Postgres twins (server/storage/postgres/sql-functions.ts), so
 * `id in (select value from sm_ids(?))` is one statement for both backends.
 */
function registerListFunctions(sqlite: Database.Database) {
  sqlite.table('sm_ids', {
    columns: ['value'],
    parameters: ['list'],
    // BigInts come out as SQLite integers (a JS number is a REAL), which compare with integer keys by index.
    *rows(list: unknown) {
      for (const item of listItems(list)) yield [item === null ? null : BigInt(item as number | string)];
    },
  });
  sqlite.table('sm_texts', {
    columns: ['value'],
    parameters: ['list'],
    *rows(list: unknown) {
      for (const item of listItems(list)) yield [item === null ? null : String(item)];
    },
  });
}

/** What the domain's SQL calls on a connection: the shared functions and sqlite-vec (false: it could not be loaded). */
function addFunctions(sqlite: Database.Database): boolean {
  sqlite.function('sm_normalize', { deterministic: true }, (text: unknown) => normalizeText(String(text ?? '')));
  registerListFunctions(sqlite);
  try {
    sqliteVec.load(sqlite);
    return true;
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'sqlite-vec could not be loaded: vector search is off');
    return false;
  }
}

export type ReadOnlyOptions = {
  path: string;
  /** The writer's config (a reader never resolves its own: the writer's may hold overrides). */
  config: Store['config'];
  clock: Clock;
  /** SQLite's page cache for this connection, in KiB (each reader holds its own). */
  cacheKiB?: number;
};

/**
 * A second connection to a file another connection of this process writes (read workers): read
 * only, no migrations, index creation or checkpoints, which are the writer's. Each statement
 * reads the latest commit (WAL), so what the writer committed is seen by the next read.
 */
export function openReadOnlyStore(options: ReadOnlyOptions): Store {
  const sqlite = openDatabase(options.path, { readonly: true, fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma(`cache_size = -${options.cacheKiB ?? 8192}`);
    const vec = addFunctions(sqlite);
    const sql = sqliteSql(sqlite);
    return {
      db: queryBuilder(sql),
      sql,
      sqlite,
      config: options.config,
      clock: options.clock,
      dialect: SQLITE_DIALECT,
      features: { fts: hasFts5(sqlite), vec },
      listeners: new Set(),
      statements: new Map(),
    };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

export async function openStore(options: OpenOptions = {}): Promise<Store> {
  const path = options.path ?? defaultDbPath();
  const memory = path === ':memory:' || path === '';
  const sources = outerConfigLayers(memory ? null : configFilePath(path), options.env ?? process.env, options.config);
  if (!memory) mkdirSync(dirname(path), { recursive: true });

  const sqlite = openDatabase(path);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const vec = addFunctions(sqlite);
    const sql = sqliteSql(sqlite);
    const db = queryBuilder(sql);
    migrateSafely(sqlite);
    const fts = hasFts5(sqlite);
    if (fts) ensureSearchIndexes(sqlite);
    else logger.warn('this SQLite build has no FTS5: text search uses LIKE');

    const config = await resolveStoreConfig(db, sources);
    const store: Store = {
      db,
      sql,
      sqlite,
      config,
      clock: options.clock ?? systemClock,
      dialect: SQLITE_DIALECT,
      features: { fts, vec },
      listeners: new Set(),
      statements: new Map(),
    };
    rememberConfigSources(store, sources);
    // Turns stored before their dates were resolved (an upgraded file): once, on the first open.
    await backfillTurnDates(store);
    if (options.backgroundCheckpoints && !memory) checkpointers.set(store, startCheckpointer(sqlite, path));
    return store;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/** Closes a store of either backend (a Postgres store's pool or PGlite too). */
export async function closeStore(store: Store) {
  // Accesses still queued are written now (waiting for the lock like any write); failing to
  // count them must not keep the database open.
  try {
    await flushAccess(store);
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'could not record memory access before closing');
  }
  checkpointers.get(store)?.stop();
  checkpointers.delete(store);
  await store.sql.close();
}
