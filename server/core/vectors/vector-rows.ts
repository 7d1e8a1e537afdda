// Writing vector rows: each takes a seq (a counter in meta that never goes back, so an in-memory
// index knows which rows are newer than it) and a code, the sign bits of its embedding around the
// table's mean.
//
// Why a mean: embeddings share a common direction (a model's outputs are not centred at zero;
// averaged word vectors even less), and sign bits around zero then agree on most dimensions for
// every row. On clustered synthetic vectors with a common offset as large as the topics' spread,
// recall@10 of 400 reranked candidates fell from 0.935 to 0.49 with signs around zero, and came
// back to 0.915 around the mean of the first 1,000 vectors. So a table's codes are made around
// zero until it holds MEAN_AFTER vectors, then the mean of those is locked in meta and every code
// is remade (once, ~1,000 rows); later rows use it. A reset (reembed --reset) forgets it.
import type { Store } from '../kernel/store.ts';
import { codeBlob, signBits } from './vector-index.ts';
import { upsertRows } from './vector-sql.ts';
import { VECTOR_TABLES, type VectorTable } from './vector-state.ts';

const SEQ_META_KEY = 'vector_seq';
export const meanMetaKey = (table: VectorTable) => `vector_mean.${table}`;
/** Vectors a table holds before its mean is taken: enough for the common direction to show. */
export const MEAN_AFTER = 1000;

export type VectorRow = { id: number; userId: string; vector: Float32Array };
/** The locked mean of a table; `key` names it (the stored text), '' when there is none yet. */
export type Mean = { key: string; values: Float32Array | null };

const means = new WeakMap<Store, Map<VectorTable, Mean>>();

const META_VALUE = 'select value from meta where key = ?';
const TAKE_SEQS = `insert into meta (key, value) values ('${SEQ_META_KEY}', ?) on conflict (key) do update set value = cast(meta.value as bigint) + ? returning value`;
const SET_META = 'insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value';

/** The table's mean as stored now (another connection may have locked it), parsed once per change. */
export async function meanOf(store: Store, table: VectorTable): Promise<Mean> {
  const key = (await store.sql.pluck<string>(META_VALUE, [meanMetaKey(table)])) ?? '';
  let cache = means.get(store);
  if (!cache) means.set(store, (cache = new Map()));
  const cached = cache.get(table);
  if (cached?.key === key) return cached;
  const mean = { key, values: key ? Float32Array.from(JSON.parse(key) as number[]) : null };
  cache.set(table, mean);
  return mean;
}

/** Takes `n` seqs (a range ending at the returned value) in the caller's transaction. */
async function takeSeqs(store: Store, n: number): Promise<number> {
  return Number(await store.sql.pluck(TAKE_SEQS, [n, n]));
}

const asVector = (blob: Buffer) => new Float32Array(new Uint8Array(blob).buffer);

/** Stores (or replaces) rows, in the caller's transaction. A replaced row takes a new seq, so indexes read it again. */
export async function writeRows(store: Store, table: VectorTable, given: VectorRow[]) {
  // An id given twice is written once, the last as a row at a time would leave it (Postgres
  // refuses a statement that upserts one row twice).
  const rows = [...new Map(given.map((row) => [row.id, row])).values()];
  if (rows.length === 0) return;
  const mean = (await meanOf(store, table)).values;
  let seq = (await takeSeqs(store, rows.length)) - rows.length;
  await upsertRows(
    store,
    table,
    rows.map(({ id, userId, vector }) => ({ id, userId, seq: ++seq, code: codeBlob(signBits(vector, mean)), vector })),
  );
  if (!mean) await lockMeanWhenDue(store, table);
}

/** Once the table holds MEAN_AFTER vectors: their mean is locked, and their codes remade around it (with new seqs). */
async function lockMeanWhenDue(store: Store, table: VectorTable) {
  const name = VECTOR_TABLES[table];
  // Cheap while no mean is locked: the table holds at most MEAN_AFTER rows and the last batch.
  if (((await store.sql.pluck<number>(`select count(*) from ${name}`)) ?? 0) < MEAN_AFTER) return;
  const rows = (await store.sql.values(`select id, embedding, user_id from ${name}`)) as [number, Buffer, string][];
  const dimensions = rows[0]![1].length / 4;
  const sum = new Float64Array(dimensions);
  let counted = 0;
  for (const [, blob] of rows) {
    if (blob.length !== dimensions * 4) continue;
    const vector = asVector(blob);
    for (let d = 0; d < dimensions; d++) sum[d]! += vector[d]!;
    counted++;
  }
  const mean = Float32Array.from(sum, (s) => s / counted);
  await store.sql.run(SET_META, [meanMetaKey(table), JSON.stringify(Array.from(mean))]);
  // Rewritten whole, many rows a statement (the same upsert as new rows).
  let seq = (await takeSeqs(store, rows.length)) - rows.length;
  const recoded = rows
    .filter(([, blob]) => blob.length === dimensions * 4)
    .map(([id, blob, userId]) => ({ id, userId, vector: asVector(blob) }))
    .map((row) => ({ ...row, seq: ++seq, code: codeBlob(signBits(row.vector, mean)) }));
  await upsertRows(store, table, recoded);
}

/** Forgets the tables' means with their vectors (a reset: the next model's vectors get their own). */
export async function forgetMeans(store: Store) {
  for (const table of Object.keys(VECTOR_TABLES) as VectorTable[])
    await store.sql.run('delete from meta where key = ?', [meanMetaKey(table)]);
}
