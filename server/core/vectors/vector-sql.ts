// The vector statements, run as the store's backend spells them (`store.dialect.vectors`, from
// server/storage/: sqlite-vec on SQLite; pgvector, or a rerank in JavaScript, on Postgres).
// What is the same everywhere stays here: batching, the statements' cache, the codes' query.
import type { Store, StoredVector } from '../kernel/store.ts';
import { VECTOR_TABLES, type VectorTable } from './vector-state.ts';

/** Rows read per statement by the index's catch-up: bounds the strings it builds (100-d to 1536-d codes: 2 to 25 MB). */
export const READ_BATCH = 65536;

/** Rows stored per statement: one round trip for many (a Postgres server is across a connection). */
const UPSERT_BATCH = 64;

/** Statements by backend, table and shape, built once (the port prepares them by their text). */
const texts = new Map<string, string>();
const cached = (key: string, build: () => string) => {
  let text = texts.get(key);
  if (text === undefined) texts.set(key, (text = build()));
  return text;
};

/** A row near a query: its id and cosine distance (1 - cosine similarity). */
export type Near = { id: number; distance: number };

export type { StoredVector as StoredRow } from '../kernel/store.ts';

/** Stores (or replaces) rows, in the caller's transaction: a statement per UPSERT_BATCH rows. */
export async function upsertRows(store: Store, table: VectorTable, rows: StoredVector[]) {
  const vectors = store.dialect.vectors;
  for (let from = 0; from < rows.length; from += UPSERT_BATCH) {
    const batch = rows.slice(from, from + UPSERT_BATCH);
    const text = cached(`${vectors.key}:upsert:${table}:${batch.length}`, () =>
      vectors.upsertText(VECTOR_TABLES[table], batch.length),
    );
    await store.sql.run(
      text,
      batch.flatMap((row) => vectors.upsertCells(row)),
    );
  }
}

// A batch of a user's codes past a seq, as one row: both lists aggregate the same rows in the
// same order, and a code of another size (vectors reset to other dimensions elsewhere) is left out.
export const codesStatement = (store: Store, table: VectorTable) => {
  const { key, codesColumns } = store.dialect.vectors;
  return cached(
    `${key}:codes:${table}`,
    () => `select count(*) as rows, max(seq) as seq, count(*) filter (where length(code) = ?) as n,
          ${codesColumns.ids} filter (where length(code) = ?) as ids,
          ${codesColumns.codes} filter (where length(code) = ?) as codes
   from (select id, seq, code from ${VECTOR_TABLES[table]} where user_id = ? and seq > ? order by seq limit ${READ_BATCH}) x`,
  );
};

/**
 * The candidates that still exist for the user, nearest to `vector` first by cosine distance
 * (ties by id): read by id, filtered by user again (a deleted row, or another user's, never comes
 * back), skipping a row of other dimensions (a reset by another process).
 */
export const rerank = (store: Store, table: VectorTable, userId: string, candidates: number[], vector: Float32Array) =>
  store.dialect.vectors.rerank(store, VECTOR_TABLES[table], { userId, candidates, vector });
