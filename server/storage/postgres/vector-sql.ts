// Postgres's vector statements, with pgvector or without it:
//  - With pgvector (PGlite has it): each row also keeps its embedding as a `vector` in an
//    `embedding_vector` column, added when vectors go on (pgvector may not exist, so the
//    migrations cannot create it), and `<=>` reranks in SQL. No HNSW index: a KNN is the user's
//    sign bits scanned in memory (core/vectors/vector-index.ts), exact per user, where an HNSW
//    index over every user's rows filters by user after its search and misses a small user's
//    neighbours (and costs every insert a graph update).
//  - Without pgvector (a plain Debian server): the candidates' float32 embeddings are read and
//    reranked here, in JavaScript. Slower (the vectors cross the connection), but exact.
import { type StoredVector, type VectorDialect, write } from '../../core/kernel/store.ts';
import { VECTOR_TABLES } from '../../core/vectors/vector-state.ts';

/** The pgvector column of Postgres's vector tables. */
const VECTOR_COLUMN = 'embedding_vector';

/** pgvector's text form of a vector (each float32 printed exactly enough to read back the same). */
const vectorText = (vector: Float32Array) => `[${vector.join(',')}]`;
const blobOf = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

const upsertText = (name: string, rows: number, vector: boolean) => {
  const columns = `id, user_id, seq, code, embedding${vector ? `, ${VECTOR_COLUMN}` : ''}`;
  const values = Array.from({ length: rows }, () => `(?, ?, ?, ?, ?${vector ? ', cast(? as vector)' : ''})`).join(', ');
  const set = `user_id = excluded.user_id, seq = excluded.seq, code = excluded.code, embedding = excluded.embedding${vector ? `, ${VECTOR_COLUMN} = excluded.${VECTOR_COLUMN}` : ''}`;
  return `insert into ${name} (${columns}) values ${values} on conflict (id) do update set ${set}`;
};
const cellsOf = (row: StoredVector) => [row.id, row.userId, row.seq, row.code, blobOf(row.vector)];

const CODES = {
  ids: "string_agg(id::text, ',' order by seq)",
  codes: "string_agg(encode(code, 'hex'), '' order by seq)",
};

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

// In the reranks, `user_id || ''` keeps the planner on the primary key rather than the user's
// index: without statistics Postgres took the user's rows joined to every candidate (400 ids in
// 2,000 rows: 610 ms on PGlite, against 20 by key).
export const PGVECTOR_VECTORS: VectorDialect = {
  key: 'pgvector',
  unavailable: () => null,
  upsertText: (name, rows) => upsertText(name, rows, true),
  upsertCells: (row) => [...cellsOf(row), vectorText(row.vector)],
  codesColumns: CODES,
  async rerank(store, name, { userId, candidates, vector }) {
    const rows = (await store.sql.values(
      `select id, distance from (select id, ${VECTOR_COLUMN} <=> cast(? as vector) as distance from ${name}
       where id in (select value from sm_ids(?)) and user_id || '' = ? and length(embedding) = ?) as near order by distance, id limit ?`,
      [vectorText(vector), JSON.stringify(candidates), userId, vector.length * 4, candidates.length],
    )) as [number, number][];
    return rows.map(([id, distance]) => ({ id, distance }));
  },
  /** The vector column (created once; a database that has it is only read), and any row written without it filled in. */
  prepare: (store) =>
    write(store, async () => {
      for (const name of Object.values(VECTOR_TABLES)) {
        if (await store.sql.get(HAS_COLUMN, [name, VECTOR_COLUMN])) continue;
        await store.sql.run(`alter table ${name} add column if not exists ${VECTOR_COLUMN} vector`);
        for (;;) {
          const rows = (await store.sql.values(
            `select id, embedding from ${name} where ${VECTOR_COLUMN} is null limit 1000`,
          )) as [number, Buffer][];
          for (const [id, blob] of rows)
            await store.sql.run(`update ${name} set ${VECTOR_COLUMN} = cast(? as vector) where id = ?`, [
              vectorText(new Float32Array(new Uint8Array(blob).buffer)),
              id,
            ]);
          if (rows.length < 1000) break;
        }
      }
    }),
};

export const PLAIN_VECTORS: VectorDialect = {
  key: 'postgres',
  unavailable: () => null,
  upsertText: (name, rows) => upsertText(name, rows, false),
  upsertCells: cellsOf,
  codesColumns: CODES,
  async rerank(store, name, { userId, candidates, vector }) {
    const rows = (await store.sql.values(
      `select id, embedding from ${name} where id in (select value from sm_ids(?)) and user_id || '' = ? and length(embedding) = ?`,
      [JSON.stringify(candidates), userId, vector.length * 4],
    )) as [number, Buffer][];
    return rows
      .map(([id, blob]) => ({ id, distance: cosineDistance(vector, new Float32Array(new Uint8Array(blob).buffer)) }))
      .sort((a, b) => a.distance - b.distance || a.id - b.id);
  },
  prepare: async () => {},
};
