// The Postgres tables, built from drizzle/schema.ts (docs/architecture.md#store-port): one
// definition, so the two cannot drift. The same tables, column names, keys, indexes and checks,
// so the SQL the domain writes for SQLite (drizzle's SQLite builder over schema.ts, and raw SQL
// with `?` parameters) runs here unchanged. Migrations in drizzle/pg-migrations are generated from
// this file by `npm run db:generate`; test/storage/postgres-schema.test.ts checks the mirror.
//
// Types: integers (ids, epoch-ms times, counters) are bigint, read back as JS numbers (the
// connection's int8 parser, server/storage/postgres/postgres-sql.ts); 0/1 flags stay integer because the
// SQLite code writes and reads 0/1, not booleans; JSON columns stay text (drizzle stringifies and
// parses them itself); real is double precision; blobs are bytea.
//
// What SQLite does not have (POSTGRES_ONLY below): each searched text (the ones search-index.ts
// indexes with FTS5) carries a stored tsvector column with a GIN index, for full-text search.
//
// Autoincrement ids: drizzle's SQLite builder sends `null` for an id it is not given (SQLite
// then picks the next rowid); Postgres refuses a null key, so a trigger created at open time
// (server/storage/postgres/id-triggers.ts) fills it from the identity sequence.
import { type Column, getTableColumns, is, SQL, sql } from 'drizzle-orm';
import {
  bigint,
  check,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { type SQLiteColumn, type SQLiteTable, getTableConfig } from 'drizzle-orm/sqlite-core';
import * as sqlite from './schema.ts';

type PgTable = PgTableWithColumns<{
  name: string;
  schema: undefined;
  // Built from the SQLite table at load time.
  columns: Record<string, any>;
  dialect: 'pg';
}>;

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** What Postgres adds to a table, keyed by table name. */
const POSTGRES_ONLY: Record<
  string,
  {
    /** Stored tsvector columns (English stemming, like FTS5's porter tokenizer), each under a GIN index `<table>_<name>`. */
    searchable?: { key: string; name: string; of: string }[];
    /** Index expressions SQLite spells its own way, by index name. */
    expressions?: Record<string, (t: Record<string, Column>) => SQL>;
  }
> = {
  turns: { searchable: [{ key: 'textSearch', name: 'text_search', of: 'text' }] },
  memories: { searchable: [{ key: 'contentSearch', name: 'content_search', of: 'content' }] },
  jobs: {
    // SQLite indexes `payload ->> '$.sessionId'`; the payload is text here, so it is read as jsonb.
    expressions: { jobs_consolidation_session: (t) => sql`(${t.payload}::jsonb ->> 'sessionId')` },
  },
};

/** The default as SQLite stores it: drizzle's JSON and boolean modes write text and 0/1. */
function storedDefault(column: SQLiteColumn): unknown {
  const value = column.default;
  if (is(value, SQL)) return value;
  if (column.columnType === 'SQLiteTextJson') return JSON.stringify(value);
  return typeof value === 'boolean' ? Number(value) : value;
}

/** The Postgres column that takes and gives back what the SQLite column does. */
function mirrorColumn(column: SQLiteColumn): PgColumnBuilderBase {
  const { name } = column;
  const enumValues = column.enumValues as [string, ...string[]] | undefined;
  const types: Record<string, () => PgColumnBuilderBase> = {
    SQLiteInteger: () => bigint(name, { mode: 'number' }),
    SQLiteBoolean: () => integer(name),
    SQLiteText: () => text(name, enumValues?.length ? { enum: enumValues } : {}),
    SQLiteTextJson: () => text(name),
    SQLiteReal: () => doublePrecision(name),
    SQLiteBlobBuffer: () => bytea(name),
  };
  // The builders' types differ; each takes the same modifiers.
  let built: any = types[column.columnType]?.();
  if (!built) throw new Error(`drizzle/pg-schema.ts: no Postgres type for ${name} (${column.columnType})`);
  if (column.primary) built = built.primaryKey();
  if ((column as { autoIncrement?: boolean }).autoIncrement) built = built.generatedByDefaultAsIdentity();
  if (column.notNull && !column.primary) built = built.notNull();
  if (column.hasDefault && column.default !== undefined) built = built.default(storedDefault(column));
  return built;
}

const mirrored = new Map<string, PgTable>();

/** The Postgres table of a SQLite table: its columns, keys, foreign keys, indexes and checks, plus POSTGRES_ONLY. */
function mirror(table: SQLiteTable): PgTable {
  const config = getTableConfig(table);
  const extra = POSTGRES_ONLY[config.name] ?? {};
  const sqliteColumns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const columns: Record<string, PgColumnBuilderBase> = {};
  for (const [key, column] of Object.entries(sqliteColumns)) columns[key] = mirrorColumn(column);
  for (const s of extra.searchable ?? [])
    columns[s.key] = tsvector(s.name).generatedAlwaysAs(sql.raw(`to_tsvector('english', ${s.of})`));
  const keyOf = new Map(Object.entries(sqliteColumns).map(([key, column]) => [column.name, key]));
  const built = pgTable(config.name, columns, (t) => {
    const col = (c: { name: string }) => t[keyOf.get(c.name)!]!;
    return [
      ...config.primaryKeys.map((k) => primaryKey({ columns: k.columns.map(col) as never })),
      ...config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        const target = mirrored.get(getTableConfig(ref.foreignTable).name)!;
        const targetKeys = getTableColumns(ref.foreignTable) as Record<string, SQLiteColumn>;
        const targetKey = (c: { name: string }) => Object.keys(targetKeys).find((k) => targetKeys[k]!.name === c.name)!;
        const builder = foreignKey({
          columns: ref.columns.map(col) as never,
          foreignColumns: ref.foreignColumns.map((c) => target[targetKey(c)]) as never,
        });
        return fk.onDelete ? builder.onDelete(fk.onDelete) : builder;
      }),
      ...config.indexes.map(({ config: i }) => {
        const on = i.columns.map((c) => (is(c, SQL) ? extra.expressions![i.name]!(t) : col(c as SQLiteColumn)));
        const built = (i.unique ? uniqueIndex(i.name) : index(i.name)).on(...(on as [never]));
        return i.where ? built.where(i.where) : built;
      }),
      ...(extra.searchable ?? []).map((s) => index(`${config.name}_${s.name}`).using('gin', t[s.key]!)),
      ...config.checks.map((c) => check(c.name, c.value)),
    ];
  }) as unknown as PgTable;
  mirrored.set(config.name, built);
  return built;
}

// One export per table (drizzle-kit collects a module's exported tables), in schema.ts's order.
export const users = mirror(sqlite.users);
export const accessTokens = mirror(sqlite.accessTokens);
export const sessions = mirror(sqlite.sessions);
export const turns = mirror(sqlite.turns);
export const sessionDigests = mirror(sqlite.sessionDigests);
export const turnDates = mirror(sqlite.turnDates);
export const memories = mirror(sqlite.memories);
export const memorySources = mirror(sqlite.memorySources);
export const memoryRelations = mirror(sqlite.memoryRelations);
export const memoryEvents = mirror(sqlite.memoryEvents);
export const entities = mirror(sqlite.entities);
export const memoryEntities = mirror(sqlite.memoryEntities);
export const turnEntities = mirror(sqlite.turnEntities);
export const meta = mirror(sqlite.meta);
export const jobs = mirror(sqlite.jobs);
export const turnVectors = mirror(sqlite.turnVectors);
export const memoryVectors = mirror(sqlite.memoryVectors);
