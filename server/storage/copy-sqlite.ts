// `sm migrate`: a SQLite file copied into Postgres, row for row with the same ids. The tables and
// columns are the Postgres schema's (drizzle/pg-schema.ts, which mirrors the SQLite one), copied
// parents first so every foreign key finds its row; rows in rowid order (the id for numbered
// tables), in batches of multi-row inserts. The id triggers (postgres/id-triggers.ts) move each identity
// sequence past the ids given, so the next row numbered on Postgres follows the copied ones.
//
// The whole copy is one transaction on the target, holding the write lock: a copy that fails,
// or whose counts differ from the source's, leaves the target as it was. The source is read
// in one read transaction (a consistent snapshot, while a server may keep writing to it).
import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite/native-handles.ts';
import { getTableName, is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as pgTables from '../../drizzle/pg-schema.ts';
import { badInput } from '../core/kernel/errors.ts';
import type { Store } from '../core/kernel/store.ts';
import { closeStore, migrated, openStore } from './sqlite/open.ts';
import { isPostgresUrl, parsePostgresUrl } from './postgres/url.ts';

export type TableCount = { table: string; rows: number };

export type CopyReport = {
  dryRun: boolean;
  /** The SQLite file. */
  from: string;
  /** Where the target is, without its password. */
  to: string;
  /** Every table, in the order copied, with the source's rows. */
  tables: TableCount[];
  rows: number;
  /** Rows the target held before (null: not known, e.g. a dry run on a target that does not exist yet). */
  targetRows: number | null;
  /** The target's rows were deleted first (--replace). */
  replaced: boolean;
  /** The source's schema was older than this release's and was upgraded first (a dry run only says it would be). */
  upgradeSource: boolean;
  ms: number;
};

export type CopyOptions = {
  from: string;
  to: string;
  dryRun?: boolean;
  /** Empty a target that holds rows instead of refusing it. */
  replace?: boolean;
  /** Rows per insert statement (at most what fits Postgres's 65,535 parameters). */
  batch?: number;
  onStart?: (rows: number) => void;
  onProgress?: (copied: number, table: string) => void;
};

/** The copy refused or failed in a way the command reports as such (exit 1), never with the password. */
export class CopyError extends Error {
  override name = 'CopyError';
}

type TableSpec = { name: string; columns: string[] };

/** The schema's tables, each after the tables its foreign keys point at; its columns without the generated ones (tsvectors). */
export function copyOrder(): TableSpec[] {
  const tables = (Object.values(pgTables) as unknown[]).filter((t): t is PgTable => is(t, PgTable));
  const parents = new Map(
    tables.map((t) => [
      getTableName(t),
      getTableConfig(t).foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)),
    ]),
  );
  const ordered: TableSpec[] = [];
  const placed = new Set<string>();
  const place = (table: PgTable) => {
    const name = getTableName(table);
    if (placed.has(name)) return;
    placed.add(name);
    for (const parent of parents.get(name) ?? [])
      if (parent !== name) place(tables.find((t) => getTableName(t) === parent)!);
    ordered.push({
      name,
      columns: getTableConfig(table)
        .columns.filter((c) => !c.generated)
        .map((c) => c.name),
    });
  };
  for (const table of tables) place(table);
  return ordered;
}

const quote = (name: string) => `"${name}"`;

/** The source file, checked to be a SQLite database of this service, with its rows per table. */
function openSource(path: string) {
  if (!existsSync(path)) throw badInput(`--from: no such file: ${path}`);
  if (statSync(path).isDirectory()) throw badInput(`--from: ${path} is a directory, not a SQLite database file`);
  let sqlite: Database.Database;
  try {
    sqlite = openDatabase(path, { fileMustExist: true });
    sqlite.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    throw badInput(`--from: ${path} is not a SQLite database (${(error as Error).message})`);
  }
  const present = new Set(
    sqlite.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[],
  );
  if (!present.has('turns') || !present.has('__drizzle_migrations')) {
    sqlite.close();
    throw badInput(`--from: ${path} is a SQLite database, but not one of Symbiosis Memory (it has no turns table)`);
  }
  return { sqlite, present };
}

const countRows = (sqlite: Database.Database, specs: TableSpec[], present: Set<string>): TableCount[] =>
  specs.map(({ name }) => ({
    table: name,
    rows: present.has(name)
      ? (sqlite
          .prepare(`select count(*) from ${quote(name)}`)
          .pluck()
          .get() as number)
      : 0,
  }));

/** Rows per table of the target, for the tables it has: `query` runs plain SQL there. */
async function targetCounts(query: (text: string) => Promise<unknown[][]>, specs: TableSpec[]): Promise<number> {
  const existing = new Set(
    (await query('select table_name from information_schema.tables where table_schema = current_schema()')).map(
      ([name]) => name as string,
    ),
  );
  let rows = 0;
  for (const { name } of specs)
    if (existing.has(name)) rows += Number((await query(`select count(*) from ${quote(name)}`))[0]![0]);
  return rows;
}

/** A dry run's look at the target, writing nothing: how many rows it holds (0 when its schema does not exist yet). */
async function probeTarget(url: string, specs: TableSpec[]): Promise<number> {
  const target = parsePostgresUrl(url);
  if (target.kind === 'pglite') {
    if (!target.dir || !existsSync(target.dir)) return 0;
    const [{ PGlite }, { vector }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite-pgvector'),
    ]);
    const pglite = new PGlite({ dataDir: target.dir, extensions: { vector } });
    try {
      return await targetCounts(
        async (text) => (await pglite.query<unknown[]>(text, [], { rowMode: 'array' })).rows,
        specs,
      );
    } finally {
      await pglite.close();
    }
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new CopyError(
      `cannot reach Postgres at ${target.where}: ${(error as Error).message || (error as { code?: string }).code || String(error)}`,
    );
  }
  try {
    return await targetCounts(
      async (text) => (await client.query({ text, rowMode: 'array' })).rows as unknown[][],
      specs,
    );
  } finally {
    await client.end();
  }
}

/** Inserts one table's rows in batches, in rowid order (the id's, for numbered tables). */
async function copyTable(
  store: Store,
  sqlite: Database.Database,
  spec: TableSpec,
  batch: number,
  copied: (rows: number) => void,
) {
  const columns = spec.columns.map(quote).join(', ');
  const read = sqlite
    .prepare(`select rowid, ${columns} from ${quote(spec.name)} where rowid > ? order by rowid limit ?`)
    .raw(true);
  const size = Math.max(1, Math.min(batch, Math.floor(60_000 / spec.columns.length)));
  const tuple = `(${spec.columns.map(() => '?').join(', ')})`;
  let last: number | bigint = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = read.all(last, size) as unknown[][];
    if (rows.length === 0) return;
    last = rows.at(-1)![0] as number;
    const params = rows.flatMap((row) => row.slice(1)) as (string | number | null | Uint8Array)[];
    await store.sql.run(
      `insert into ${quote(spec.name)} (${columns}) values ${Array.from(rows, () => tuple).join(', ')}`,
      params,
    );
    copied(rows.length);
  }
}

export async function copySqliteToPostgres(options: CopyOptions): Promise<CopyReport> {
  const started = performance.now();
  if (!isPostgresUrl(options.to))
    throw badInput('--to: expected postgres://user:password@host:port/database, pglite: or pglite:<directory>');
  let where: string;
  try {
    where = parsePostgresUrl(options.to).where;
  } catch (error) {
    throw badInput(`--to: ${(error as Error).message}`);
  }
  const specs = copyOrder();
  let { sqlite, present } = openSource(options.from);
  const upgradeSource = !migrated(sqlite);
  const report = (tables: TableCount[], targetRows: number | null, replaced: boolean): CopyReport => ({
    dryRun: Boolean(options.dryRun),
    from: options.from,
    to: where,
    tables,
    rows: tables.reduce((n, t) => n + t.rows, 0),
    targetRows,
    replaced,
    upgradeSource,
    ms: Math.round(performance.now() - started),
  });
  try {
    if (options.dryRun) return report(countRows(sqlite, specs, present), await probeTarget(options.to, specs), false);
    if (upgradeSource) {
      // The source is brought to this release's schema first, as any sm command on it would.
      sqlite.close();
      await closeStore(await openStore({ path: options.from, env: {} }));
      ({ sqlite, present } = openSource(options.from));
    }
    const { openPostgresStore } = await import('./postgres/open-postgres.ts');
    const store = await openPostgresStore({ url: options.to });
    try {
      const held = await targetCounts((text) => store.sql.values(text), specs);
      if (held > 0 && !options.replace) {
        throw new CopyError(
          `the target (${where}) already holds ${held} rows: pass --replace to delete them and copy, or pick an empty database`,
        );
      }
      // One snapshot of the source for the counts and every batch.
      sqlite.exec('begin');
      let tables: TableCount[];
      try {
        tables = countRows(sqlite, specs, present);
        const total = tables.reduce((n, t) => n + t.rows, 0);
        options.onStart?.(total);
        await store.sql.transaction(async () => {
          if (held > 0) await store.sql.run(`truncate ${specs.map((s) => quote(s.name)).join(', ')}`);
          let copied = 0;
          for (const spec of specs) {
            await copyTable(store, sqlite, spec, options.batch ?? 1000, (rows) =>
              options.onProgress?.((copied += rows), spec.name),
            );
          }
          // Counted inside the transaction: a difference rolls the whole copy back.
          for (const { table, rows } of tables) {
            const copiedRows = Number(await store.sql.pluck(`select count(*) from ${quote(table)}`));
            if (copiedRows !== rows)
              throw new CopyError(
                `counts differ after copying: ${table} has ${rows} rows in the source and ${copiedRows} in the target; nothing was kept`,
              );
          }
        });
      } finally {
        sqlite.exec('commit');
      }
      // Fresh statistics for the planner: the tables went from empty to full in one go.
      await store.sql.run('analyze');
      return report(tables, held, held > 0);
    } finally {
      await closeStore(store);
    }
  } finally {
    if (sqlite.open) sqlite.close();
  }
}
