// Porter stems of words as the FTS5 index stores them (diacritics folded), memoised per word and
// cached per row: BM25 and the turn ranker score the same stems.
import { stemmer } from 'stemmer';
import { indexTokens } from './text.ts';

const NON_ASCII = /[^\x00-\x7f]/;
/** A word without its diacritics (café -> cafe), as FTS5's remove_diacritics stores it. */
const folded = (word: string) => (NON_ASCII.test(word) ? word.normalize('NFD').replace(/\p{M}+/gu, '') : word);

// Porter stems of the folded words, as the FTS5 index stores them. Words repeat across turns, so
// stems are memoised.
const STEMS = new Map<string, string>();
export function stem(word: string): string {
  let out = STEMS.get(word);
  if (out === undefined) {
    if (STEMS.size > 50_000) STEMS.clear();
    STEMS.set(word, (out = stemmer(folded(word))));
  }
  return out;
}
/**
 * Porter stems of the words of rows already seen, by row id (row text never changes; checked
 * anyway): every query's scoring reads them, so each row is tokenised and stemmed once.
 */
export type WordCache = Map<number, { text: string; stems: string[] }>;

const wordCaches = new WeakMap<object, Record<'turns' | 'memories', WordCache>>();
/** A store's cache of stemmed words per row of `table` (the ranker's and the small-user scorer's). */
export function wordCache(store: object, table: 'turns' | 'memories' = 'turns'): WordCache {
  let caches = wordCaches.get(store);
  if (!caches) wordCaches.set(store, (caches = { turns: new Map(), memories: new Map() }));
  return caches[table];
}
const CACHE_LIMIT = 20_000;

export function cachedStems(cache: WordCache, id: number, text: string): string[] {
  const hit = cache.get(id);
  if (hit && hit.text === text) return hit.stems;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  const stems = indexTokens(text).map(stem);
  cache.set(id, { text, stems });
  return stems;
}
