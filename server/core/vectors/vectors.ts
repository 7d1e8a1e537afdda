// Embeddings of turns and memories, and KNN over one user's. The dimension count and model are
// locked in meta when vectors are first turned on; a different configuration disables vectors
// with a warning (mixing vector spaces would rank garbage) until they are rebuilt (reembed reset).
//
// Storage and search, chosen by measurement (100k 256-d vectors of one user, 2 cores, loaded):
// sqlite-vec's vec0 tables (partitioned by user) took 80 ms for a KNN of 10 and 93 ms for 400;
// a vec0 bit[] table 2.6 ms for 10 but 55 ms for 400 (its top-k cost grows with k), and point
// reads of vec0 rows by id 0.15 ms each, too slow to rerank. So vectors live in plain tables
// (drizzle/schema.ts: id, user, seq, sign-bit code, float32 embedding; written by
// vector-rows.ts), and a KNN is
//   1. a Hamming scan of the user's sign bits held in memory (vector-index.ts, ~1.6 ms at 100k;
//      a plain-table SQL scan with vec_distance_hamming took ~20 ms),
//   2. an exact cosine rerank of the best candidates, read by id in SQL with sqlite-vec's
//      vec_distance_cosine (400 ids ~0.8 ms), filtered by user again, so a row deleted since
//      the index read it, or any other user's, never comes back.
// sqlite-vec stays for those SQL functions (and vec_to_json); its vec0 tables of earlier
// releases are moved here when vectors go on. On Postgres the same index feeds a rerank by
// pgvector's `<=>`, or by JavaScript where pgvector is missing: each backend's statements are in
// server/storage/ (the store's `dialect.vectors`).
import { meta } from '../../../drizzle/schema.ts';
import { eq } from 'drizzle-orm';
import type { Space } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';
import { dropIndexes, hammingNearest, reportFound, signBits } from './vector-index.ts';
import { forgetMeans, meanOf, writeRows } from './vector-rows.ts';
import { rerank, type Near } from './vector-sql.ts';
import {
  LEGACY_VECTOR_TABLES,
  setVectorState,
  VECTOR_TABLES,
  vectorState,
  vectorsReady,
  type VectorSpec,
  type VectorState,
  type VectorTable,
} from './vector-state.ts';

export const EMBEDDING_META_KEY = 'embedding';
export { vectorState, vectorsReady, VECTOR_TABLES, type VectorSpec, type VectorState, type VectorTable };

/**
 * Candidates reranked exactly for a KNN of k: at least 400, k when more. Search reranks 400 of a
 * user's turns (their cosines are a ranker feature) and 4 facts a hit it can use. Recall@10 of
 * 100k 256-d clustered vectors whose topics overlap (noise 1.5) by candidates: 100 0.84, 200
 * 0.90, 400 0.935, 800 0.97, 1600 0.997; the rerank costs ~2 us a candidate, so 400 keeps KNN
 * within budget where 800 would add ~0.8 ms. On LoCoMo with a sentence model, 200 or 100 of the
 * turns lowered R@10 (0.825, 0.826 against 0.830).
 */
export const rerankPool = (k: number) => Math.max(k, 400);

export async function lockedSpec(store: Store): Promise<VectorSpec | null> {
  const row = await store.db.select().from(meta).where(eq(meta.key, EMBEDDING_META_KEY)).get();
  return (row?.value as VectorSpec | undefined) ?? null;
}

/** Why vectors cannot go on in this store (a backend's missing extension), as a state; else null. */
const unavailable = (store: Store): VectorState | null => {
  const reason = store.dialect.vectors.unavailable(store);
  return reason === null ? null : { ready: false, reason };
};

/**
 * Turns vectors on for this store with `spec` (called when an embedder is configured). The first
 * call locks the spec in meta; later opens must match it, or vectors stay off with the reason.
 */
export async function initVectors(store: Store, spec: VectorSpec): Promise<VectorState> {
  const off = unavailable(store);
  if (off) return setState(store, off);
  const locked = await lockedSpec(store);
  if (locked && (locked.dimensions !== spec.dimensions || locked.model !== spec.model)) {
    return setState(store, {
      ready: false,
      reason:
        `stored vectors are ${locked.dimensions}-dimensional from model "${locked.model}", but embedding is configured as ` +
        `${spec.dimensions} dimensions of "${spec.model}": vector search is off. Restore the old embedding settings, or ` +
        `rebuild the vectors with \`sm reembed --reset\`.`,
    });
  }
  if (!locked)
    await store.db
      .insert(meta)
      .values({ key: EMBEDDING_META_KEY, value: spec })
      .onConflictDoUpdate({ target: meta.key, set: { value: spec } })
      .run();
  await store.dialect.vectors.prepare(store, spec);
  return setState(store, { ready: true, spec });
}

/** Drops every stored vector and locks `spec` instead (the reset path of reembed). */
export async function resetVectors(store: Store, spec: VectorSpec): Promise<VectorState> {
  const off = unavailable(store);
  if (off) return setState(store, off);
  await write(store, async () => {
    for (const table of Object.values(VECTOR_TABLES)) await store.sql.run(`delete from ${table}`);
    for (const table of Object.values(LEGACY_VECTOR_TABLES)) await store.sql.run(`drop table if exists ${table}`);
    await store.db.delete(meta).where(eq(meta.key, EMBEDDING_META_KEY)).run();
    await forgetMeans(store);
  });
  dropIndexes(store);
  return initVectors(store, spec);
}

const setState = setVectorState;

/** Stores (or replaces) vectors, each under its row's user. A replaced vector takes a new seq, so indexes read it again. */
export async function putVectors(
  store: Store,
  table: VectorTable,
  rows: { id: number; userId: string; vector: Float32Array }[],
) {
  // One transaction: the seqs taken and the rows written commit together (joins the caller's, if any).
  await write(store, () => writeRows(store, table, rows));
}

const HAS_VECTOR: Record<VectorTable, string> = {
  memories: `select 1 from ${VECTOR_TABLES.memories} where id = ?`,
  turns: `select 1 from ${VECTOR_TABLES.turns} where id = ?`,
};

export async function hasVector(store: Store, table: VectorTable, id: number): Promise<boolean> {
  return (await store.sql.get(HAS_VECTOR[table], [id])) !== undefined;
}

export async function countVectors(store: Store, table: VectorTable): Promise<number> {
  return (await store.sql.get<{ n: number }>(`select count(*) as n from ${VECTOR_TABLES[table]}`))!.n;
}

/** A KNN: the `k` nearest of `table` to `vector`, reranked exactly among `pool` candidates (rerankPool(k) by default). */
export type KnnQuery = { table: VectorTable; vector: Float32Array; k: number; pool?: number };

/**
 * The user's nearest ids by cosine distance, nearest first (that user's vectors only: the index
 * is the user's, and the rerank reads rows of that user). Other filters apply afterwards (hydrate).
 */
export async function knnIds(store: Store, space: Space, query: KnnQuery): Promise<number[]> {
  return (await knnPool(store, space, query)).slice(0, query.k).map((near) => near.id);
}

/**
 * Every candidate the KNN of k reranked exactly (`pool` of them, or all of the user's rows when
 * fewer), with its distance, nearest first.
 */
export async function knnPool(store: Store, space: Space, query: KnnQuery): Promise<Near[]> {
  const { table, vector, k, pool = rerankPool(k) } = query;
  const state = vectorState(store);
  if (!state.ready || vector.length !== state.spec.dimensions || k <= 0) return [];
  const mean = await meanOf(store, table);
  const code = signBits(vector, mean.values);
  // A second pass only when the first found much of its index deleted (it is rebuilt for it).
  for (let pass = 0; ; pass++) {
    const candidates = await hammingNearest(store, {
      table,
      userId: space.userId,
      query: code,
      mean: mean.key,
      m: Math.max(k, pool),
    });
    if (candidates.length === 0) return [];
    const found = await rerank(store, table, space.userId, candidates, vector);
    if (pass === 0 && reportFound(store, table, space.userId, candidates.length, found.length)) continue;
    return found;
  }
}
