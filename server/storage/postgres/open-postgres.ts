// Opening a store on Postgres (docs/architecture.md#store-port): a server (`postgres://…`, a `pg` Pool) or PGlite, the
// embedded build (`pglite:` in memory, `pglite:/some/dir` on disk). Then the same steps as a
// SQLite file: the extensions there are, the migrations (drizzle/pg-migrations), the triggers
// the migrations cannot express, and the layered config.
import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { systemClock, type Clock } from '../../core/kernel/clock.ts';
import { queryBuilder } from '../../core/kernel/query-builder.ts';
import type { Store } from '../../core/kernel/store.ts';
import { configFilePath, outerConfigLayers, rememberConfigSources, resolveStoreConfig } from '../config-layers.ts';
import { logger } from '../../logger.ts';
import { lockFolder } from './folder-lock.ts';
import { ensureRowNumbering } from './id-triggers.ts';
import { postgresSql } from './postgres-sql.ts';
import { postgresDialect } from './dialect.ts';
import { parsePostgresUrl } from './url.ts';
import { ensureSqlFunctions } from './sql-functions.ts';
import { POSTGRES_MIGRATIONS as MIGRATIONS } from '../migrations.ts';

export type PostgresOpenOptions = {
  /** `postgres://user:password@host:port/database`, `pglite:` (in memory) or `pglite:<dir>`. */
  url: string;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Highest-precedence overrides (tests, CLI flags). */
  config?: Record<string, unknown>;
  /** A PGlite made by the caller (a test's copy of a migrated template) instead of one from `url`. */
  pglite?: import('@electric-sql/pglite').PGlite;
};

/** Runs the migrations with drizzle's migrator for the driver (the schema "drizzle" keeps its journal). */
async function migrate(target: pg.Pool | import('@electric-sql/pglite').PGlite) {
  if ('connect' in target) {
    const [{ drizzle }, { migrate }] = await Promise.all([
      import('drizzle-orm/node-postgres'),
      import('drizzle-orm/node-postgres/migrator'),
    ]);
    await migrate(drizzle(target), { migrationsFolder: MIGRATIONS });
  } else {
    const [{ drizzle }, { migrate }] = await Promise.all([
      import('drizzle-orm/pglite'),
      import('drizzle-orm/pglite/migrator'),
    ]);
    await migrate(drizzle(target), { migrationsFolder: MIGRATIONS });
  }
}

/** A lock for the setup steps, so two processes opening one new database do not both create it. */
const SETUP_LOCK = 0x736d7375; // "smsu"

async function connectServer(url: string, where: string): Promise<{ pool: pg.Pool; setupLock: pg.PoolClient }> {
  // A server that drops packets would otherwise keep the open waiting for ever.
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // An idle pooled connection the server closed is reported here; the next query gets a new one.
  pool.on('error', (error) => logger.warn({ err: error.message }, 'a Postgres connection of the pool failed'));
  try {
    const setupLock = await pool.connect();
    await setupLock.query(`select pg_advisory_lock(${SETUP_LOCK})`);
    return { pool, setupLock };
  } catch (error) {
    await pool.end().catch(() => undefined);
    // A refused connection may come as an AggregateError (IPv4 and IPv6) with no message of its own.
    const reason = (error as Error).message || (error as { code?: string }).code || String(error);
    throw new Error(`cannot reach Postgres at ${where}: ${reason}`, { cause: error });
  }
}

async function openPglite(dir: string | null) {
  const [{ PGlite }, { vector }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
  ]);
  const pglite = new PGlite({ ...(dir ? { dataDir: dir } : {}), extensions: { vector } });
  await pglite.waitReady;
  return pglite;
}

/** Creates pgvector's extension when the server has it; whether vectors can be searched here. */
async function ensureVector(query: (text: string) => Promise<unknown[][]>): Promise<boolean> {
  const [[available]] = (await query("select count(*) from pg_available_extensions where name = 'vector'")) as [
    [number],
  ];
  if (!available) {
    logger.warn('this Postgres has no pgvector extension: vector search is off');
    return false;
  }
  try {
    await query('create extension if not exists vector');
    return true;
  } catch (error) {
    logger.warn(
      { err: (error as Error).message },
      'pgvector could not be created (it needs a privileged role once): vector search is off',
    );
    return false;
  }
}

export async function openPostgresStore(options: PostgresOpenOptions): Promise<Store> {
  const target = parsePostgresUrl(options.url);
  const env = options.env ?? process.env;
  // Config beside the data directory, where a SQLite file keeps it; a server has none.
  // A PGlite folder has its config.json beside it, like a SQLite file.
  const sources = outerConfigLayers(
    target.kind === 'pglite' && target.dir ? configFilePath(target.dir) : null,
    env,
    options.config,
  );

  let client: pg.Pool | import('@electric-sql/pglite').PGlite;
  let setupLock: pg.PoolClient | undefined;
  let release: (() => void) | undefined;
  if (options.pglite) client = options.pglite;
  else if (target.kind === 'pglite') {
    if (target.dir) {
      mkdirSync(target.dir, { recursive: true });
      release = lockFolder(target.dir);
    }
    client = await openPglite(target.dir).catch((error: unknown) => {
      release?.();
      throw error;
    });
  } else ({ pool: client, setupLock } = await connectServer(target.url, target.where));
  const sql = postgresSql(client, target.where);
  if (release) {
    const close = sql.close;
    sql.close = async () => {
      await close();
      release();
    };
  }
  try {
    const query = (text: string) => sql.values(text);
    const vec = await ensureVector(query);
    await migrate(client);
    await ensureRowNumbering(query);
    await ensureSqlFunctions(query);
    if (setupLock) {
      await setupLock.query(`select pg_advisory_unlock(${SETUP_LOCK})`);
      setupLock.release();
      setupLock = undefined;
    }

    const db = queryBuilder(sql);
    const config = await resolveStoreConfig(db, sources);
    const store: Store = {
      db,
      sql,
      // phase 2 makes the SQLite connection optional
      sqlite: undefined as unknown as Store['sqlite'],
      config,
      clock: options.clock ?? systemClock,
      dialect: postgresDialect(vec),
      features: { fts: true, vec },
      listeners: new Set(),
      statements: new Map(),
    };
    rememberConfigSources(store, sources);
    return store;
  } catch (error) {
    // A connection dropped from the pool ends its session, and with it the setup lock.
    setupLock?.release(true);
    await sql.close();
    throw error;
  }
}
