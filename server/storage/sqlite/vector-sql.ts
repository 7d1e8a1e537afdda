// SQLite's vector statements: sqlite-vec's vec_distance_cosine reranks the candidates in SQL;
// group_concat and hex() read a user's codes in one row. Vectors need sqlite-vec's functions, and
// turning them on moves the sqlite-vec vec0 tables of earlier releases into the plain tables.
import type { Store, VectorDialect, StoredVector } from '../../core/kernel/store.ts';
import { write } from '../../core/kernel/store.ts';
import { writeRows } from '../../core/vectors/vector-rows.ts';
import { LEGACY_VECTOR_TABLES, VECTOR_TABLES, type VectorTable } from '../../core/vectors/vector-state.ts';

const blobOf = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/**
 * Moves the vectors of a vec0 table of an earlier release (partitioned by user, or older, without
 * users) into the plain table, each under its row's owner, and drops it. Vectors whose row is gone
 * are left behind. Needs sqlite-vec loaded (vec0 is its module).
 */
async function moveLegacyVectors(store: Store, spec: { dimensions: number }) {
  for (const table of Object.keys(VECTOR_TABLES) as VectorTable[]) {
    const legacy = LEGACY_VECTOR_TABLES[table];
    if (!(await store.sql.get('select 1 from sqlite_master where name = ?', [legacy]))) continue;
    await write(store, async () => {
      // The owner table is named as the key (turns, memories). CROSS JOIN keeps vec0 the outer
      // loop: one scan of it, not a vec0 point read per row.
      const rows = await store.sql.all<{ id: number | bigint; userId: string; embedding: Buffer }>(
        `select v.rowid as id, o.user_id as userId, v.embedding as embedding from ${legacy} v cross join ${table} o on o.id = v.rowid`,
      );
      const moved = rows
        .filter((r) => r.embedding.length === spec.dimensions * 4)
        .map((r) => ({
          id: Number(r.id),
          userId: r.userId,
          vector: new Float32Array(new Uint8Array(r.embedding).buffer),
        }));
      await writeRows(store, table, moved);
      await store.sql.run(`drop table ${legacy}`);
    });
  }
}

export const SQLITE_VECTORS: VectorDialect = {
  key: 'sqlite',
  unavailable: (store) => (store.features.vec ? null : 'sqlite-vec is not loaded'),
  upsertText(name, rows) {
    const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ');
    return `insert into ${name} (id, user_id, seq, code, embedding) values ${values} on conflict (id) do update set user_id = excluded.user_id, seq = excluded.seq, code = excluded.code, embedding = excluded.embedding`;
  },
  upsertCells: (row: StoredVector) => [row.id, row.userId, row.seq, row.code, blobOf(row.vector)],
  codesColumns: { ids: 'group_concat(id)', codes: "group_concat(hex(code), '')" },
  async rerank(store, name, { userId, candidates, vector }) {
    // `+user_id` keeps the planner on the primary key rather than the user's index.
    const rows = (await store.sql.values(
      `select id, distance from (select id, vec_distance_cosine(embedding, ?) as distance from ${name}
       where id in (select value from sm_ids(?)) and +user_id = ? and length(embedding) = ?) order by distance, id limit ?`,
      [blobOf(vector), JSON.stringify(candidates), userId, vector.length * 4, candidates.length],
    )) as [number, number][];
    return rows.map(([id, distance]) => ({ id, distance }));
  },
  async prepare(store, spec) {
    // The rerank reads rows by id all over the table: memory-mapped, a page costs no read() call
    // (400 ids of 100k 256-d rows: 1.3 -> 0.8 ms). A connection setting; SQLite maps at most this much.
    store.sqlite.pragma(`mmap_size = ${2 ** 30}`);
    await moveLegacyVectors(store, spec);
  },
};
