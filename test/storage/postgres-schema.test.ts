// The Postgres schema (drizzle/pg-schema.ts, built from drizzle/schema.ts) mirrors the SQLite one: the
// domain's SQL, built over the SQLite tables, must find every table and column there with a type
// that takes and gives back what SQLite does; and its migrations are generated, never stale.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { getTableColumns, getTableName, is, SQL, type Column } from 'drizzle-orm';
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgTables from '../../drizzle/pg-schema.ts';
import * as sqliteTables from '../../drizzle/schema.ts';

const ROOT = join(import.meta.dirname, '../..');

const tablesOf = <T>(module: Record<string, unknown>, kind: new (...args: never[]) => T) =>
  new Map(
    (Object.values(module) as unknown[])
      .filter((t): t is T => is(t, kind as never))
      .map((t) => [getTableName(t as never), t]),
  );
const sqlite = tablesOf(sqliteTables, SQLiteTable);
const postgres = tablesOf(pgTables, PgTable);

/**
 * What each SQLite column may be on Postgres: integers are bigint (ids, epoch-ms times, read back
 * as numbers), 0/1 flags stay integer, JSON stays text, real is double precision, blobs bytea.
 */
function postgresTypeFor(column: Column): string {
  if (column.columnType === 'SQLiteBoolean') return 'integer';
  const type = column.getSQLType();
  return (
    { integer: 'bigint', text: 'text', real: 'double precision', blob: 'bytea' }[type] ??
    `(no Postgres type for SQLite ${type})`
  );
}

/** A default as the database sees it: drizzle's SQLite JSON and boolean modes store them as text and 0/1. */
const storedDefault = (column: Column) => {
  const value = column.default;
  if (value === undefined || is(value, SQL)) return value === undefined ? undefined : '(sql)';
  if (column.columnType === 'SQLiteTextJson') return JSON.stringify(value);
  if (typeof value === 'boolean') return Number(value);
  return value;
};

const describeColumn = (column: Column, type: string) => ({
  name: column.name,
  type,
  notNull: column.notNull,
  primary: column.primary,
  default: storedDefault(column),
});
const indexColumns = (columns: unknown[]) =>
  columns.map((c) => (is(c, SQL) ? '(expression)' : (c as { name: string }).name));

describe('the Postgres schema', () => {
  it('drizzle/pg-migrations are up to date with drizzle/pg-schema.ts', () => {
    const out = mkdtempSync(join(tmpdir(), 'sm-pg-migrations-'));
    cpSync(join(ROOT, 'drizzle/pg-migrations'), out, { recursive: true });
    const before = readdirSync(out, { recursive: true }).sort();
    const output = execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/drizzle-kit/bin.cjs'), 'generate', '--config', 'drizzle.pg.config.ts'],
      {
        cwd: ROOT,
        // drizzle-kit resolves `out` relative to the project, so hand it a relative path.
        env: { ...process.env, SM_MIGRATIONS_OUT: relative(ROOT, out) },
        encoding: 'utf8',
      },
    );
    expect(output).toContain('No schema changes');
    expect(readdirSync(out, { recursive: true }).sort(), `run npm run db:generate\n${output}`).toEqual(before);
  });

  it('has every table of the SQLite schema, and no other', () => {
    expect([...postgres.keys()].sort()).toEqual([...sqlite.keys()].sort());
  });

  it('has every column of each table, under the same name, with a type that holds what SQLite holds', () => {
    for (const [name, table] of sqlite) {
      const pgTable = postgres.get(name)!;
      const sqliteColumns = getTableColumns(table as SQLiteTable) as Record<string, Column>;
      const pgColumns = getTableColumns(pgTable as PgTable) as Record<string, Column>;
      for (const [key, column] of Object.entries(sqliteColumns)) {
        const mirror = pgColumns[key];
        expect(mirror, `${name}.${column.name} is missing`).toBeDefined();
        expect(describeColumn(mirror!, mirror!.getSQLType()), `${name}.${column.name}`).toEqual(
          describeColumn(column, postgresTypeFor(column)),
        );
      }
      // What Postgres adds is computed by the database (tsvector columns): the SQLite code never writes it.
      const extra = Object.entries(pgColumns).filter(([key]) => !(key in sqliteColumns));
      for (const [key, column] of extra)
        expect(column.generated?.type, `${name}.${key} is not in the SQLite schema`).toBe('always');
    }
  });

  it('has the same keys, foreign keys (with their cascades), indexes and checks', () => {
    for (const [name, table] of sqlite) {
      const s = sqliteConfig(table as SQLiteTable);
      const p = pgConfig(postgres.get(name) as PgTable);
      const keys = (config: typeof s | typeof p) => config.primaryKeys.map((k) => k.columns.map((c) => c.name));
      const references = (config: typeof s | typeof p) =>
        config.foreignKeys
          .map((fk) => {
            const ref = fk.reference();
            return `${ref.columns.map((c) => c.name)} -> ${getTableName(ref.foreignTable)}(${ref.foreignColumns.map((c) => c.name)}) on delete ${fk.onDelete ?? 'no action'}`;
          })
          .sort();
      const indexes = (config: typeof s | typeof p) =>
        config.indexes
          .map((i) => ({
            name: i.config.name,
            unique: i.config.unique,
            partial: i.config.where !== undefined,
            columns: indexColumns(i.config.columns),
          }))
          .sort((a, b) => a.name!.localeCompare(b.name!));
      expect(keys(p), `${name} primary key`).toEqual(keys(s));
      expect(references(p), `${name} foreign keys`).toEqual(references(s));
      // The full-text indexes (GIN over the tsvector columns) are Postgres's own.
      expect(
        indexes(p).filter((i) => !i.name!.endsWith('_search')),
        `${name} indexes`,
      ).toEqual(indexes(s));
      expect(p.checks.map((c) => c.name).sort(), `${name} checks`).toEqual(s.checks.map((c) => c.name).sort());
    }
  });

  it('indexes the texts SQLite indexes with FTS5 for full-text search', () => {
    const search = [...postgres].flatMap(([name, table]) =>
      pgConfig(table as PgTable)
        .indexes.filter((i) => i.config.method === 'gin')
        .map((i) => `${name}.${indexColumns(i.config.columns)}`),
    );
    expect(search.sort()).toEqual(['memories.content_search', 'turns.text_search']);
  });
});
