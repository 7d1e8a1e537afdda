// SQLite numbers a row whose integer key is given as null; drizzle's SQLite builder, which the
// domain uses on both backends, sends exactly that (`insert into turns ("id", …) values (null, …)`).
// Postgres refuses a null key, so each table with an identity key gets a trigger that fills a
// null id from the identity sequence before the row is checked. It also moves the sequence past
// an id given explicitly (an import), as SQLite's autoincrement does, so the next numbered row
// does not collide with it.
//
// Created at open time, like SQLite's FTS5 indexes (server/storage/sqlite/search-index.ts): drizzle-kit
// generates the migrations from drizzle/pg-schema.ts and has no notion of triggers.
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import * as pgTables from '../../../drizzle/pg-schema.ts';

type Query = (text: string) => Promise<unknown[][]>;

const FUNCTION = 'sm_number_row';
const triggerName = (table: string) => `${table}_number_row`;

/** The tables whose `id` is an identity column, from the schema (not a list to keep in step). */
export const numberedTables = (): string[] =>
  (Object.values(pgTables) as unknown[])
    .filter((table): table is PgTable => is(table, PgTable))
    .filter((table) => (getTableColumns(table) as Record<string, PgColumn>).id?.generatedIdentity !== undefined)
    .map((table) => getTableName(table));

// pg_sequence_last_value is null before the first nextval; setval only when the id is past it.
const CREATE_FUNCTION = `create or replace function ${FUNCTION}() returns trigger language plpgsql as $$
begin
  if new.id is null then
    new.id := nextval(tg_argv[0]::regclass);
  elsif new.id > coalesce(pg_sequence_last_value(tg_argv[0]::regclass), 0) then
    perform setval(tg_argv[0]::regclass, new.id);
  end if;
  return new;
end $$`;

/** Creates the function and the triggers that are missing; a database that has them is not written to. */
export async function ensureRowNumbering(query: Query): Promise<void> {
  const tables = numberedTables();
  const names = tables.map((table) => `'${triggerName(table)}'`).join(', ');
  const present = new Set(
    (await query(`select tgname from pg_trigger where tgname in (${names}) and not tgisinternal`)).map((row) => row[0]),
  );
  const missing = tables.filter((table) => !present.has(triggerName(table)));
  if (missing.length === 0) return;
  await query(CREATE_FUNCTION);
  for (const table of missing) {
    const [[sequence]] = (await query(`select pg_get_serial_sequence('"${table}"', 'id')`)) as [[string]];
    await query(
      `create trigger "${triggerName(table)}" before insert on "${table}" for each row execute function ${FUNCTION}('${sequence}')`,
    );
  }
}
