// The in-memory part of KNN: per (store, table, user), every vector's sign bits (one bit per
// dimension) and id, scanned by Hamming distance to pick the candidates vectors.ts reranks
// exactly in SQL. Why in memory: over 100k 256-d vectors this scan takes ~0.7 ms (WebAssembly,
// hamming-wasm.ts; ~1.5 ms in JS), where sqlite-vec's vec0 KNN took 80 ms (float) and SQL's
// vec_distance_hamming over stored codes ~20 ms (figures in vectors.ts).
//
// An index is built on its user's first KNN from the (user_id, seq, code) index of the table
// (codes only, never the embeddings), and catches up on every query with the rows whose seq is
// above the highest it has read: rows another connection wrote too (the CLI writing the file the
// server reads). Rows deleted elsewhere stay in it as garbage until rebuilt; they are harmless,
// because the rerank reads the current rows by id (a deleted id does not come back), and reports
// how many candidates it did not find, which marks the index for a rebuild once garbage shows.
// Deletions by this process (forget) are marked at once. Memory is capped per store, LRU over
// (table, user): 256-d costs 42 bytes a vector (32 of bits, 8 of id, 2 of distance), so the
// default 64 MiB hold 1.6M.
import type { Store } from '../kernel/store.ts';
import { scanJs } from './hamming-js.ts';
import { MAX_WASM_BLOCKS, wasmScanner, type WasmScan } from './hamming-wasm.ts';
import { codesStatement, READ_BATCH } from './vector-sql.ts';
import type { VectorTable } from './vector-state.ts';

/** 32-bit words of a code: one sign bit per dimension, the last word padded with zeros. */
export const codeWords = (dimensions: number) => Math.ceil(dimensions / 32);

/**
 * The sign bits of `vector` minus `mean`: bit d % 32 of word d / 32 is set when dimension d is
 * above the mean. The same for stored rows and queries, so the Hamming distance counts dimensions
 * on different sides. Why the mean (vector-rows.ts): embeddings share a common direction, and
 * signs taken around zero then barely differ between rows.
 */
export function signBits(vector: Float32Array, mean: Float32Array | null = null): Uint32Array {
  const out = new Uint32Array(codeWords(vector.length));
  for (let d = 0; d < vector.length; d++) if (vector[d]! > (mean ? mean[d]! : 0)) out[d >>> 5]! |= 1 << (d & 31);
  return out;
}

/** A code as stored in the `code` column (little-endian words, as typed arrays are on every platform Node runs). */
export const codeBlob = (code: Uint32Array) => Buffer.from(code.buffer, code.byteOffset, code.byteLength);

type Index = {
  words: number;
  /** Which centring mean the codes were made with (vector-rows.ts): another one means a rebuild. */
  mean: string;
  /** `words` per slot, in a JS array, or in `wasm.memory` for a large index (WASM_ROWS). */
  codes: Uint32Array;
  wasm: { memory: WebAssembly.Memory; exports: WasmScan } | null;
  /** The row id of each slot; -1 once this process deleted it. */
  ids: Float64Array;
  size: number;
  /** Slots this process deleted: set apart after each scan, so the scan loop needs no test. */
  dead: number[];
  /** Slots filled by the build; past it, slots came from catch-up (new rows, or replaced ones). */
  built: number;
  /** The highest seq read. */
  seq: number;
  /** Marked by the rerank when too many candidates were gone: rebuilt on the next query. */
  stale: boolean;
  /** Its bytes as counted in the cache's total (it grows while it catches up). */
  counted: number;
  /** The catch-up under way: one at a time, so two queries never append the same rows. */
  catching: Promise<void> | null;
};

let budgetBytes = 64 * 2 ** 20;
/** Catch-up may add this many slots before a rebuild is considered (replacements leave the old slot behind). */
const REBUILD_FLOOR = 1024;

type Cache = { indexes: Map<string, Index>; bytes: number };
const caches = new WeakMap<Store, Cache>();
const cacheOf = (store: Store) => {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = { indexes: new Map(), bytes: 0 }));
  return cache;
};
const keyOf = (table: VectorTable, userId: string) => `${table}\u0000${userId}`;
const bytesOf = (index: Index) =>
  (index.wasm ? index.wasm.memory.buffer.byteLength : index.codes.byteLength) + index.ids.byteLength;

/**
 * From this many slots an index keeps its codes in a WebAssembly memory of its own and is scanned
 * there (hamming-wasm.ts). Smaller ones stay in JS: a memory is at least 64 KiB, and 1,000 small
 * users would each hold one; their scan costs little in JS (4,096 256-d codes: ~0.08 ms).
 */
const WASM_ROWS = 4096;
/**
 * The layout of an index's WebAssembly memory: the query, the histogram (then the counting sort's
 * start offsets), the codes, the distances, then the slots collected (room made for each query's).
 */
const QUERY_AT = 0;
const HISTOGRAM_AT = 512;
const CODES_AT = HISTOGRAM_AT + 16384;
const PAGE = 65536;
const distancesAt = (index: Index) => CODES_AT + index.ids.length * index.words * 4;
const collectedAt = (index: Index) => (distancesAt(index) + index.ids.length * 2 + 3) & ~3;

/** The byte offset of room for `m` collected slots past the distances, the memory grown for them if needed. */
function collectRoom(index: Index, memory: WebAssembly.Memory, m: number): number {
  const at = collectedAt(index);
  const short = at + m * 4 - memory.buffer.byteLength;
  if (short > 0) {
    memory.grow(Math.ceil(short / PAGE));
    index.codes = new Uint32Array(memory.buffer, CODES_AT, index.ids.length * index.words);
  }
  return at;
}

/** Memory for indexes per store (tests and benchmarks shrink it to see eviction). */
export function setIndexBudget(bytes: number) {
  budgetBytes = bytes;
}

function remove(cache: Cache, key: string) {
  const index = cache.indexes.get(key);
  if (!index) return;
  cache.bytes -= index.counted;
  cache.indexes.delete(key);
}

/** Forgets the in-memory indexes of a user (forgetUser), or of every user (a vector reset). */
export function dropIndexes(store: Store, userId?: string) {
  const cache = caches.get(store);
  if (!cache) return;
  for (const key of [...cache.indexes.keys()])
    if (userId === undefined || key.endsWith(`\u0000${userId}`)) remove(cache, key);
}

/** Marks deleted rows of `users` in their indexes, so a forgotten row's bits do not linger in memory. */
export function dropFromIndexes(store: Store, table: VectorTable, users: string[], ids: number[]) {
  const cache = caches.get(store);
  if (!cache || ids.length === 0) return;
  const gone = new Set(ids);
  for (const userId of users) {
    const index = cache.indexes.get(keyOf(table, userId));
    if (!index) continue;
    for (let i = 0; i < index.size; i++) {
      if (!gone.has(index.ids[i]!)) continue;
      index.ids[i] = -1;
      index.codes.fill(0, i * index.words, (i + 1) * index.words);
      index.dead.push(i);
    }
  }
}

/**
 * The rerank found only `found` of `asked` candidates: the rest were deleted, maybe by another
 * connection. Past a fifth gone, the index is marked for a rebuild, and true is returned: the
 * caller asks again, since the candidates it got were partly garbage.
 */
export function reportFound(store: Store, table: VectorTable, userId: string, asked: number, found: number): boolean {
  const index = caches.get(store)?.indexes.get(keyOf(table, userId));
  if (!index || asked < 16 || asked - found <= asked / 5) return false;
  index.stale = true;
  return true;
}

/** Room for `needed` slots: capacity doubles; past WASM_ROWS, codes move to WebAssembly memory. */
function grow(index: Index, needed: number) {
  if (needed <= index.ids.length) return;
  const capacity = Math.max(needed, index.ids.length * 2, 64);
  const ids = new Float64Array(capacity);
  ids.set(index.ids.subarray(0, index.size));
  const used = index.codes.subarray(0, index.size * index.words);
  if (capacity >= WASM_ROWS && index.words % 4 === 0 && index.words / 4 <= MAX_WASM_BLOCKS) {
    // Codes and then distances: 4 bytes a word and 2 a slot after the query and histogram.
    const pages = Math.ceil((CODES_AT + capacity * (index.words * 4 + 2)) / PAGE);
    if (index.wasm) {
      // Growing keeps the codes where they are, but detaches the old views (the room for collected slots may have grown it already).
      index.wasm.memory.grow(Math.max(0, pages - index.wasm.memory.buffer.byteLength / PAGE));
      index.codes = new Uint32Array(index.wasm.memory.buffer, CODES_AT, capacity * index.words);
      index.ids = ids;
      return;
    }
    const memory = new WebAssembly.Memory({ initial: pages });
    const exports = wasmScanner(memory);
    if (exports) {
      index.wasm = { memory, exports };
      index.codes = new Uint32Array(memory.buffer, CODES_AT, capacity * index.words);
      index.codes.set(used);
      index.ids = ids;
      return;
    }
  }
  const codes = new Uint32Array(capacity * index.words);
  codes.set(used);
  index.codes = codes;
  index.ids = ids;
}

/**
 * Reads the user's rows past the index's seq (all of them for a new index) into it, from the
 * covering (user_id, seq, code) index. A batch is one row of aggregates: better-sqlite3 makes a
 * Buffer per blob cell, which made reading 100k codes row by row take ~360 ms, against ~60 ms
 * this way. Both lists aggregate the same rows in the same order; a code of another size (vectors
 * reset to other dimensions by another process) is left out of both.
 */
async function catchUp(store: Store, table: VectorTable, userId: string, index: Index) {
  const text = codesStatement(store, table);
  const width = index.words * 4;
  for (;;) {
    type Batch = { rows: number; seq: number | null; n: number; ids: string | null; codes: string | null };
    const batch = (await store.sql.get<Batch>(text, [width, width, width, userId, index.seq]))!;
    if (batch.rows === 0) return;
    index.seq = batch.seq!;
    if (batch.n > 0) {
      grow(index, index.size + batch.n);
      new Uint8Array(index.codes.buffer, index.codes.byteOffset).set(
        Buffer.from(batch.codes!, 'hex'),
        index.size * width,
      );
      for (const id of batch.ids!.split(',')) index.ids[index.size++] = Number(id);
    }
    if (batch.rows < READ_BATCH) return;
  }
}

const ignore = () => undefined;

/**
 * The user's index, built or caught up, most recently used last. It stays in the cache while it
 * catches up, so a query meanwhile shares it (waiting for that catch-up, then reading what came
 * after) and deletions meanwhile (dropFromIndexes, dropIndexes) reach it.
 */
async function indexFor(store: Store, table: VectorTable, userId: string, words: number, mean: string): Promise<Index> {
  const cache = cacheOf(store);
  const key = keyOf(table, userId);
  let index = cache.indexes.get(key);
  if (index) {
    const garbage = index.dead.length + index.size - index.built > Math.max(index.built, REBUILD_FLOOR);
    if (index.stale || index.words !== words || index.mean !== mean || garbage) {
      remove(cache, key);
      index = undefined;
    }
  }
  if (!index) {
    index = {
      words,
      mean,
      codes: new Uint32Array(0),
      ids: new Float64Array(0),
      wasm: null,
      size: 0,
      dead: [],
      built: 0,
      seq: 0,
      stale: false,
      counted: 0,
      catching: null,
    };
    cache.indexes.set(key, index);
  }
  // Another query's failed catch-up is that query's error: this one reads for itself.
  while (index.catching) await index.catching.then(ignore, ignore);
  const fresh = index.size === 0 && index.seq === 0;
  const caught = index;
  index.catching = catchUp(store, table, userId, index).finally(() => (caught.catching = null));
  await index.catching;
  if (fresh) index.built = index.size;
  // Dropped or replaced meanwhile (a forget, a reset): this query still uses what it read.
  if (cache.indexes.get(key) !== index) return index;
  cache.indexes.delete(key);
  cache.indexes.set(key, index);
  cache.bytes += bytesOf(index) - index.counted;
  index.counted = bytesOf(index);
  // Least recently used first; the index just used stays even when it alone is over budget.
  for (const [other, old] of cache.indexes) {
    if (cache.bytes <= budgetBytes || old === index) break;
    remove(cache, other);
  }
  return index;
}

let distances = new Uint16Array(0);

/**
 * Up to `m` distinct live ids of the user nearest to `query` by Hamming distance, nearest first;
 * every live id when the user has no more than `m`. Selecting is O(n): distances are counted in a
 * histogram, which gives the cut-off distance, then one pass collects what is under it.
 */
export async function hammingNearest(
  store: Store,
  near: { table: VectorTable; userId: string; query: Uint32Array; mean: string; m: number },
): Promise<number[]> {
  const { table, userId, query, mean, m } = near;
  const index = await indexFor(store, table, userId, query.length, mean);
  const { size, ids, codes, words } = index;
  if (size - index.dead.length <= m) return [...new Set(Array.from(ids.subarray(0, size)).filter((id) => id >= 0))];
  let dist: Uint16Array;
  let histogram: Uint32Array;
  if (index.wasm) {
    const { buffer } = index.wasm.memory;
    new Uint32Array(buffer, QUERY_AT, words).set(query);
    histogram = new Uint32Array(buffer, HISTOGRAM_AT, words * 32 + 2).fill(0);
    index.wasm.exports.scan(CODES_AT, QUERY_AT, size, words / 4, distancesAt(index), HISTOGRAM_AT);
    dist = new Uint16Array(buffer, distancesAt(index), size);
  } else {
    if (distances.length < size) distances = new Uint16Array(Math.max(size, distances.length * 2));
    dist = distances;
    histogram = new Uint32Array(words * 32 + 2);
    scanJs({ codes, size, words }, query, { dist, histogram });
  }
  // Deleted slots move past every real distance (bits + 1).
  for (const slot of index.dead) {
    histogram[dist[slot]!]!--;
    histogram[(dist[slot] = words * 32 + 1)]!++;
  }
  // The smallest distance `cut` with at least m rows at or under it; rows at `cut` fill what is left.
  let cut = 0;
  let below = 0;
  while (below + histogram[cut]! < m) below += histogram[cut++]!;
  // Counting sort of the selected rows by distance: offsets of each distance in the output.
  const order = new Float64Array(m);
  if (index.wasm) {
    // In place of the histogram, which is read no more; the pass over the distances in WebAssembly.
    const out = collectRoom(index, index.wasm.memory, m);
    const { buffer } = index.wasm.memory;
    const start = new Uint32Array(buffer, HISTOGRAM_AT, cut + 2);
    for (let d = 0, offset = 0; d <= cut; d++) {
      const count = start[d]!;
      start[d] = offset;
      offset += count;
    }
    index.wasm.exports.collect(distancesAt(index), size, cut, m - below, HISTOGRAM_AT, out);
    const slots = new Uint32Array(buffer, out, m);
    for (let j = 0; j < m; j++) order[j] = ids[slots[j]!]!;
  } else {
    const start = new Uint32Array(cut + 2);
    for (let d = 0; d < cut; d++) start[d + 1] = start[d]! + histogram[d]!;
    let atCut = m - below;
    for (let i = 0; i < size; i++) {
      const d = dist[i]!;
      if (d > cut) continue;
      if (d === cut) {
        if (atCut === 0) continue;
        atCut--;
      }
      order[start[d]!++] = ids[i]!;
    }
  }
  // A replaced row is in the index twice (old and new slot): the same id counts once.
  return [...new Set(order)];
}
