// The local semantic signal in search: the query's SIF vector (word-table.ts) against the turns'.
// It is not a list fused by rank: the similarity is a feature of the turn ranker, weighed with the
// lexical ones (fitted like them, bench:fit), and the user's nearest turns by stored vector join
// the scored candidates, so a turn that shares no word with the query can still rank. On LoCoMo
// RRF-style fusion of a semantic list lost recall where a weighted sum gained (docs/benchmarks.md).
//
// The table is set per store by the runtime (../../services/semantic.ts) when the word vectors are
// available and no embedding endpoint is configured; without it search runs as before.
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import type { AnalyzedQuery } from '../text/query.ts';
import { knnIds, knnPool, rerankPool, vectorState } from './vectors.ts';
import { dot, embedText, localModel, type WordTable } from './word-table.ts';

/** A table, or how to get it: loading costs ~40 ms, so a process that never searches never pays it. */
type Source = { table: WordTable | null; load: () => WordTable | null };
const sources = new WeakMap<object, Source>();

/** Puts the local signal on for `store` (null: off). */
export function setWordTable(store: object, load: (() => WordTable | null) | null) {
  if (load) sources.set(store, { table: null, load });
  else sources.delete(store);
}

/** The store's word table, loaded on first use; null when the signal is off (or the table failed to load). */
export function wordTableOf(store: object): WordTable | null {
  const source = sources.get(store);
  if (!source) return null;
  if (!source.table) source.table = source.load();
  if (!source.table) sources.delete(store);
  return source.table;
}

export const semanticOn = (store: object) => sources.has(store);

/** What a turn is embedded as, stored or not: its speaker is part of what it says about. */
export const turnText = (turn: { name: string | null; text: string }) =>
  turn.name ? `${turn.name}: ${turn.text}` : turn.text;

/** Turn vectors the ranker computed, by id (a turn's text never changes, ids are never reused). */
const vectorCaches = new WeakMap<object, Map<number, Float32Array | null>>();
const CACHE_LIMIT = 20_000;

export type SemanticSignal = {
  /** The ranker feature it feeds: the word vectors' or an embedding model's (weighed apart: their cosines differ in scale). */
  feature: 'semantic' | 'vector';
  /** The user's turns nearest the query by stored vector, nearest first: scored in full. */
  nearest: number[];
  /** Cosine of each turn with the query (0 for a question about when, see below). */
  similarity(turns: Iterable<{ id: number; name: string | null; text: string }>): Map<number, number>;
};

/**
 * The signal for one query, or null when it is off or no query word is in the table. `k` nearest
 * turns come from the stored vectors when they are this table's (none while they are being built).
 */
export async function semanticSignal(
  store: Store,
  space: Space,
  query: AnalyzedQuery,
  k: number,
): Promise<SemanticSignal | null> {
  const table = wordTableOf(store);
  const vector = table && embedText(table, query.raw);
  if (!table || !vector) return null;
  const state = vectorState(store);
  const nearest =
    k > 0 && state.ready && state.spec.model === localModel(table.source)
      ? await knnIds(store, space, { table: 'turns', vector, k })
      : [];
  let cache = vectorCaches.get(store);
  if (!cache) vectorCaches.set(store, (cache = new Map()));
  const vectors = cache;
  // A when-question is answered by the turn that says when, which the time features find; topic
  // similarity lifted other turns of the same topic above it (temporal recall@10 -0.02 on LoCoMo).
  const weighed = !query.temporal;
  return {
    feature: 'semantic',
    nearest,
    similarity(turns) {
      const out = new Map<number, number>();
      for (const turn of turns) {
        if (!weighed) {
          out.set(turn.id, 0);
          continue;
        }
        let own = vectors.get(turn.id);
        if (own === undefined) {
          if (vectors.size >= CACHE_LIMIT) vectors.clear();
          vectors.set(turn.id, (own = embedText(table, turnText(turn))));
        }
        out.set(turn.id, own ? dot(own, vector) : 0);
      }
      return out;
    },
  };
}

/**
 * The same signal from an embedding model's vectors (the query's, and the turns' the embed jobs
 * stored): a ranker feature too, where fusing the model's nearest turns by rank had lost recall
 * (a sentence model on LoCoMo: R@10 0.816 without it, 0.737 fused by rank, 0.830 as a feature).
 * The cosines are the KNN's own, for the candidates it reranked (every turn of a user with fewer
 * than that); a turn past them is at most as near as the last of them, and counts as that.
 */
export async function vectorSignal(
  store: Store,
  space: Space,
  query: AnalyzedQuery,
  vector: Float32Array,
  k: number,
): Promise<SemanticSignal> {
  const pool = await knnPool(store, space, { table: 'turns', vector, k });
  const near = new Map(pool.map((n) => [n.id, 1 - n.distance]));
  const floor = pool.length >= rerankPool(k) ? 1 - pool.at(-1)!.distance : 0;
  const weighed = !query.temporal;
  return {
    feature: 'vector',
    nearest: pool.slice(0, k).map((n) => n.id),
    similarity(turns) {
      const out = new Map<number, number>();
      for (const turn of turns) out.set(turn.id, weighed ? (near.get(turn.id) ?? floor) : 0);
      return out;
    },
  };
}
