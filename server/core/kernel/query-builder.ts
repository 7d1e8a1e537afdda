// Drizzle's query builder over the storage port, the same for every backend: queries are built
// from drizzle/schema.ts in the SQL both dialects share and run by `store.sql`, so the port is
// the one way to the database (its ordering of transactions covers builder queries too).
import { drizzle } from 'drizzle-orm/sqlite-proxy';
import * as tables from '../../../drizzle/schema.ts';
import type { Db, Sql } from './store.ts';

export function queryBuilder(sql: Sql): Db {
  return drizzle(
    async (text, params, method) => {
      if (method === 'run') return { rows: [], ...(await sql.run(text, params)) };
      // Builder queries ask for rows as arrays and map them by their selected fields.
      if (method === 'get') return { rows: (await sql.row(text, params)) ?? (undefined as unknown as unknown[]) };
      return { rows: await sql.values(text, params) };
    },
    { schema: tables },
  ) as unknown as Db;
}
