// sqlite-vec storage for embeddings: one vec0 table for memories and one for turns (rowid =
// memory / turn id, the names forget.ts deletes from). The dimension count and model are locked
// in meta when the tables are created; a different configuration disables vectors with a
// warning (mixing vector spaces would rank garbage) until the vectors are rebuilt (reembed reset).
import { meta } from '../../../drizzle/schema.ts';
import { eq } from 'drizzle-orm';
import { VECTOR_TABLES } from '../forget.ts';
import type { Space } from '../space.ts';
import { prepared, type Store } from '../store.ts';
import { setVectorState, vectorState, vectorsReady, type VectorSpec, type VectorState } from './vector-state.ts';

export const EMBEDDING_META_KEY = 'embedding';
export type VectorTable = keyof typeof VECTOR_TABLES;
export { vectorState, vectorsReady, type VectorSpec, type VectorState };

export function lockedSpec(store: Store): VectorSpec | null {
  const row = store.db.select().from(meta).where(eq(meta.key, EMBEDDING_META_KEY)).get();
  return (row?.value as VectorSpec | undefined) ?? null;
}

/** Each user is a partition (D11): a user's KNN reads that user's vectors only. */
const definition = (table: string, dimensions: number) =>
  `create virtual table ${table} using vec0(user_id text partition key, embedding float[${dimensions}] distance_metric=cosine)`;

const OWNER = { vec_memories: 'memories', vec_turns: 'turns' } as const;

function createTables(store: Store, spec: VectorSpec) {
  for (const table of Object.values(VECTOR_TABLES)) {
    const existing = store.sqlite.prepare('select sql from sqlite_master where name = ?').get(table) as { sql: string } | undefined;
    if (!existing) {
      store.sqlite.exec(definition(table, spec.dimensions));
      continue;
    }
    if (existing.sql.includes('partition key')) continue;
    // A table from before spaces: its vectors move to a partitioned one, each under its row's
    // user (vec0 cannot be renamed, so they go through a scratch table).
    store.sqlite
      .transaction(() => {
        const scratch = `${table}_moving`;
        store.sqlite.exec(`drop table if exists ${scratch}`);
        store.sqlite.exec(definition(scratch, spec.dimensions));
        store.sqlite.exec(
          `insert into ${scratch}(rowid, user_id, embedding) select v.rowid, o.user_id, v.embedding from ${table} v join ${OWNER[table]} o on o.id = v.rowid`,
        );
        store.sqlite.exec(`drop table ${table}`);
        store.sqlite.exec(definition(table, spec.dimensions));
        store.sqlite.exec(`insert into ${table}(rowid, user_id, embedding) select rowid, user_id, embedding from ${scratch}`);
        store.sqlite.exec(`drop table ${scratch}`);
      })
      .immediate();
  }
}

/**
 * Turns vectors on for this store with `spec` (called when an embedder is configured). The first
 * call locks the spec in meta; later opens must match it, or vectors stay off with the reason.
 */
export function initVectors(store: Store, spec: VectorSpec): VectorState {
  if (!store.features.vec) return setState(store, { ready: false, reason: 'sqlite-vec is not loaded' });
  const locked = lockedSpec(store);
  if (locked && (locked.dimensions !== spec.dimensions || locked.model !== spec.model)) {
    return setState(store, {
      ready: false,
      reason:
        `stored vectors are ${locked.dimensions}-dimensional from model "${locked.model}", but embedding is configured as ` +
        `${spec.dimensions} dimensions of "${spec.model}": vector search is off. Restore the old embedding settings, or ` +
        `rebuild the vectors with \`sm reembed --reset\`.`,
    });
  }
  if (!locked) store.db.insert(meta).values({ key: EMBEDDING_META_KEY, value: spec }).onConflictDoUpdate({ target: meta.key, set: { value: spec } }).run();
  createTables(store, spec);
  return setState(store, { ready: true, spec });
}

/** Drops every stored vector and locks `spec` instead (the reset path of reembed). */
export function resetVectors(store: Store, spec: VectorSpec): VectorState {
  if (!store.features.vec) return setState(store, { ready: false, reason: 'sqlite-vec is not loaded' });
  store.sqlite.transaction(() => {
    for (const table of Object.values(VECTOR_TABLES)) store.sqlite.exec(`drop table if exists ${table}`);
    store.db.delete(meta).where(eq(meta.key, EMBEDDING_META_KEY)).run();
  }).immediate();
  for (const key of store.statements.keys()) if (key.startsWith('vec.')) store.statements.delete(key);
  return initVectors(store, spec);
}

const setState = setVectorState;

/** Stores (or replaces) vectors, each in its row's user partition; vec0 has no upsert, so it is delete + insert. */
export function putVectors(store: Store, table: VectorTable, rows: { id: number; userId: string; vector: Float32Array }[]) {
  const name = VECTOR_TABLES[table];
  const remove = prepared(store, `vec.delete.${table}`, () => store.sqlite.prepare(`delete from ${name} where rowid = ?`));
  const insert = prepared(store, `vec.insert.${table}`, () => store.sqlite.prepare(`insert into ${name}(rowid, user_id, embedding) values (?, ?, ?)`));
  for (const { id, userId, vector } of rows) {
    // vec0 refuses a JS number as its integer primary key: bind a BigInt.
    remove.run(BigInt(id));
    insert.run(BigInt(id), userId, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  }
}

export function hasVector(store: Store, table: VectorTable, id: number): boolean {
  const stmt = prepared(store, `vec.has.${table}`, () => store.sqlite.prepare(`select 1 from ${VECTOR_TABLES[table]} where rowid = ?`));
  return stmt.get(BigInt(id)) !== undefined;
}

export function countVectors(store: Store, table: VectorTable): number {
  if (!store.sqlite.prepare('select 1 from sqlite_master where name = ?').get(VECTOR_TABLES[table])) return 0;
  return (store.sqlite.prepare(`select count(*) as n from ${VECTOR_TABLES[table]}`).get() as { n: number }).n;
}

/** The user's nearest ids by cosine distance (its partition only). Other filters apply afterwards (hydrate). */
export function knnIds(store: Store, space: Space, table: VectorTable, vector: Float32Array, k: number): number[] {
  const state = vectorState(store);
  if (!state.ready || vector.length !== state.spec.dimensions) return [];
  const stmt = prepared(store, `vec.knn.${table}`, () =>
    store.sqlite.prepare(`select rowid as id from ${VECTOR_TABLES[table]} where embedding match ? and k = ? and user_id = ? order by distance`),
  );
  const rows = stmt.all(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), Math.min(4096, k), space.userId) as { id: number | bigint }[];
  return rows.map((r) => Number(r.id));
}
