// The statements of vector storage and search that differ by backend, chosen by the store's
// dialect (and on Postgres by whether pgvector is installed):
//  - SQLite: sqlite-vec's vec_distance_cosine reranks the candidates in SQL; group_concat and
//    hex() read a user's codes in one row.
//  - Postgres with pgvector (PGlite has it): each row also keeps its embedding as a `vector` in
//    an `embedding_vector` column, added when vectors go on (pgvector may not exist, so the
//    migrations cannot create it), and `<=>` reranks in SQL. No HNSW index: a KNN is the user's
//    sign bits scanned in memory (vector-index.ts), exact per user, where an HNSW index over every
//    user's rows filters by user after its search and misses a small user's neighbours (and
//    costs every insert a graph update).
//  - Postgres without pgvector (a plain Debian server): the candidates' float32 embeddings are
//    read and reranked here, in JavaScript. Slower (the vectors cross the connection), but exact.
import type { Store } from '../kernel/store.ts';
import { VECTOR_TABLES, type VectorTable } from './vector-state.ts';

/** Rows read per statement by the index's catch-up: bounds the strings it builds (100-d to 1536-d codes: 2 to 25 MB). */
export const READ_BATCH = 65536;

/** The pgvector column of Postgres's vector tables. */
const VECTOR_COLUMN = 'embedding_vector';

type Backend = 'sqlite' | 'pgvector' | 'postgres';
const backendOf = (store: Store): Backend =>
  store.sql.dialect === 'sqlite' ? 'sqlite' : store.features.vec ? 'pgvector' : 'postgres';

const perTable = (text: (table: VectorTable, name: string) => string) =>
  Object.fromEntries(
    Object.entries(VECTOR_TABLES).map(([table, name]) => [table, text(table as VectorTable, name)]),
  ) as Record<VectorTable, string>;

/** Rows stored per statement: one round trip for many (a Postgres server is across a connection). */
const UPSERT_BATCH = 64;

const upsertText = (name: string, vector: boolean, rows: number) => {
  const columns = `id, user_id, seq, code, embedding${vector ? `, ${VECTOR_COLUMN}` : ''}`;
  const values = Array.from({ length: rows }, () => `(?, ?, ?, ?, ?${vector ? ', cast(? as vector)' : ''})`).join(', ');
  const set = `user_id = excluded.user_id, seq = excluded.seq, code = excluded.code, embedding = excluded.embedding${vector ? `, ${VECTOR_COLUMN} = excluded.${VECTOR_COLUMN}` : ''}`;
  return `insert into ${name} (${columns}) values ${values} on conflict (id) do update set ${set}`;
};
/** The statement for each backend, table and row count (counts up to UPSERT_BATCH), built once. */
const upserts = new Map<string, string>();

/** pgvector's text form of a vector (each float32 printed exactly enough to read back the same). */
const vectorText = (vector: Float32Array) => `[${vector.join(',')}]`;
const blobOf = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/** A row near a query: its id and cosine distance (1 - cosine similarity). */
export type Near = { id: number; distance: number };

export type StoredRow = { id: number; userId: string; seq: number; code: Buffer; vector: Float32Array };

/** Stores (or replaces) rows, in the caller's transaction: a statement per UPSERT_BATCH rows. */
export async function upsertRows(store: Store, table: VectorTable, rows: StoredRow[]) {
  const backend = backendOf(store);
  for (let from = 0; from < rows.length; from += UPSERT_BATCH) {
    const batch = rows.slice(from, from + UPSERT_BATCH);
    const key = `${backend}:${table}:${batch.length}`;
    let text = upserts.get(key);
    if (text === undefined)
      upserts.set(key, (text = upsertText(VECTOR_TABLES[table], backend === 'pgvector', batch.length)));
    const args = batch.flatMap((row) => {
      const cells = [row.id, row.userId, row.seq, row.code, blobOf(row.vector)];
      return backend === 'pgvector' ? [...cells, vectorText(row.vector)] : cells;
    });
    await store.sql.run(text, args);
  }
}

// A batch of a user's codes past a seq, as one row: both lists aggregate the same rows in the
// same order, and a code of another size (vectors reset to other dimensions elsewhere) is left out.
const codesText = (name: string, dialect: 'sqlite' | 'postgres') => {
  const [ids, codes] =
    dialect === 'sqlite'
      ? ['group_concat(id)', "group_concat(hex(code), '')"]
      : ["string_agg(id::text, ',' order by seq)", "string_agg(encode(code, 'hex'), '' order by seq)"];
  return `select count(*) as rows, max(seq) as seq, count(*) filter (where length(code) = ?) as n,
          ${ids} filter (where length(code) = ?) as ids,
          ${codes} filter (where length(code) = ?) as codes
   from (select id, seq, code from ${name} where user_id = ? and seq > ? order by seq limit ${READ_BATCH}) x`;
};
const CODES = {
  sqlite: perTable((_, name) => codesText(name, 'sqlite')),
  postgres: perTable((_, name) => codesText(name, 'postgres')),
};

export const codesStatement = (store: Store, table: VectorTable) => CODES[store.sql.dialect][table];

// The rerank reads the candidates by id, filtered by user again (a deleted row, or another
// user's, never comes back); the length check skips a row of other dimensions (a reset by
// another process). `+user_id` (SQLite) and `user_id || ''` (Postgres) keep the planner on the
// primary key rather than the user's index: without statistics Postgres took the user's rows
// joined to every candidate (400 ids in 2,000 rows: 610 ms on PGlite, against 20 by key).
const RERANK = {
  sqlite: perTable(
    (_, name) => `select id, distance from (select id, vec_distance_cosine(embedding, ?) as distance from ${name}
     where id in (select value from sm_ids(?)) and +user_id = ? and length(embedding) = ?) order by distance, id limit ?`,
  ),
  pgvector: perTable(
    (_, name) => `select id, distance from (select id, ${VECTOR_COLUMN} <=> cast(? as vector) as distance from ${name}
     where id in (select value from sm_ids(?)) and user_id || '' = ? and length(embedding) = ?) as near order by distance, id limit ?`,
  ),
  postgres: perTable(
    (_, name) =>
      `select id, embedding from ${name} where id in (select value from sm_ids(?)) and user_id || '' = ? and length(embedding) = ?`,
  ),
};

/** The candidates that still exist for the user, nearest to `vector` first by cosine distance (ties by id). */
export async function rerank(
  store: Store,
  table: VectorTable,
  userId: string,
  candidates: number[],
  vector: Float32Array,
): Promise<Near[]> {
  const backend = backendOf(store);
  const list = JSON.stringify(candidates);
  if (backend === 'postgres') {
    const rows = (await store.sql.values(RERANK.postgres[table], [list, userId, vector.length * 4])) as [
      number,
      Buffer,
    ][];
    return rows
      .map(([id, blob]) => ({ id, distance: cosineDistance(vector, new Float32Array(new Uint8Array(blob).buffer)) }))
      .sort((a, b) => a.distance - b.distance || a.id - b.id);
  }
  const query = backend === 'sqlite' ? blobOf(vector) : vectorText(vector);
  const rows = (await store.sql.values(RERANK[backend][table], [
    query,
    list,
    userId,
    vector.length * 4,
    candidates.length,
  ])) as [number, number][];
  return rows.map(([id, distance]) => ({ id, distance }));
}

/** 1 - cosine similarity, as vec_distance_cosine and `<=>` compute it. */
function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb);
}

const HAS_COLUMN =
  'select 1 from information_schema.columns where table_schema = current_schema() and table_name = ? and column_name = ?';
/** Rows written before pgvector was there: their vector column is filled from the stored float32, a batch at a time. */
const MISSING = perTable((_, name) => `select id, embedding from ${name} where ${VECTOR_COLUMN} is null limit 1000`);
const FILL = perTable((_, name) => `update ${name} set ${VECTOR_COLUMN} = cast(? as vector) where id = ?`);

/**
 * Makes the store ready to keep and search vectors, in the caller's transaction. Postgres with
 * pgvector: the vector column (created once; a database that has it is only read), and any row
 * written without it filled in.
 */
export async function prepareVectorTables(store: Store) {
  if (backendOf(store) !== 'pgvector') return;
  for (const table of Object.keys(VECTOR_TABLES) as VectorTable[]) {
    const name = VECTOR_TABLES[table];
    if (await store.sql.get(HAS_COLUMN, [name, VECTOR_COLUMN])) continue;
    await store.sql.run(`alter table ${name} add column if not exists ${VECTOR_COLUMN} vector`);
    for (;;) {
      const rows = (await store.sql.values(MISSING[table])) as [number, Buffer][];
      for (const [id, blob] of rows)
        await store.sql.run(FILL[table], [vectorText(new Float32Array(new Uint8Array(blob).buffer)), id]);
      if (rows.length < 1000) break;
    }
  }
}
