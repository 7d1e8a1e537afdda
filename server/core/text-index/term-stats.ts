// Document frequency of query terms, to keep very common words out of the OR-query. FTS5 scores
// every row any term matches (no early termination), and every match is read and scored here on
// Postgres, so one word that appears in a large share of a 100k-turn history costs tens of
// milliseconds while adding almost no ranking information. Counting (by the store's text index,
// text-index.ts) is capped and cached per store (frequencies drift slowly).
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import type { TextIndex, TextTable } from '../kernel/store.ts';

/** A term in more rows than this is "common". Small histories never reach it. */
export const COMMON_DF = 500;
const CACHE_SIZE = 5000;

/** Per user and table: the row count it was taken at, and the document frequencies counted since. */
type Cache = { rows: number; df: Map<string, number> };
type Counted = { rows: number; atMaxId: number };
type StoreCaches = { df: Map<string, Cache>; rows: Map<string, Counted> };
const caches = new WeakMap<Store, StoreCaches>();
/** Users whose statistics are kept at once; past it the oldest are dropped (and re-counted when asked). */
const MAX_KEYS = 2000;

function cachesOf(store: Store): StoreCaches {
  let found = caches.get(store);
  if (!found) caches.set(store, (found = { df: new Map(), rows: new Map() }));
  return found;
}

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_KEYS) map.delete(map.keys().next().value!);
  return value;
}

/** Which counts: the user's rows of `table` (`rows` of them) as `index` counts them. */
export type CountScope = { index: TextIndex; table: TextTable; rows: number };

function cacheFor(store: Store, space: Space, { index, table, rows }: CountScope): Cache {
  const byKey = cachesOf(store).df;
  // Indexes count a little differently (FTS5 tokens, Postgres lexemes, LIKE substrings): one cache each.
  const key = `${space.userId}\u0000${table}:${index.kind}`;
  let cache = byKey.get(key);
  // Frequencies are re-counted once the user's table has grown by a tenth.
  if (!cache || rows > cache.rows * 1.1 + 100 || rows < cache.rows)
    cache = remember(byKey, key, { rows, df: new Map() });
  return cache;
}

/** In how many of the user's rows the term appears (capped at COMMON_DF + 1). */
export async function documentFrequency(
  store: Store,
  space: Space,
  scope: CountScope & { term: string },
): Promise<number> {
  const { term } = scope;
  const cache = cacheFor(store, space, scope);
  let df = cache.df.get(term);
  if (df === undefined) {
    df = await scope.index.count(store, space, scope.table, term);
    if (cache.df.size >= CACHE_SIZE) cache.df.clear();
    cache.df.set(term, df);
  }
  return df;
}

/** Frequencies counted elsewhere (a tiny user's rows, all read): later lookups skip the SQL. */
export function rememberFrequencies(
  store: Store,
  space: Space,
  scope: CountScope & { terms: string[]; counts: number[] },
) {
  const { terms, counts } = scope;
  const cache = cacheFor(store, space, scope);
  terms.forEach((term, i) => {
    if (cache.df.size >= CACHE_SIZE) cache.df.clear();
    cache.df.set(term, counts[i]!);
  });
}

const MAX_ID = { turns: 'select max(id) as n from turns', memories: 'select max(id) as n from memories' } as const;
const USER_ROWS = {
  turns: 'select count(*) as n from turns where user_id = ?',
  memories: 'select count(*) as n from memories where user_id = ?',
} as const;

export const maxId = async (store: Store, table: TextTable) =>
  (await store.sql.get<{ n: number | null }>(MAX_ID[table]))!.n ?? 0;

const rowsKey = (space: Space, table: TextTable) => `${space.userId}\u0000${table}`;
/** The count tableRows last took for the user, if any, with no statement (it may be out of date). */
export const countedRows = (store: Store, space: Space, table: TextTable): number | undefined =>
  cachesOf(store).rows.get(rowsKey(space, table))?.rows;

/**
 * About how many rows the user has in `table`. Counting walks the user's index range, so the
 * count is kept and taken again only once the file's largest id has grown by a tenth since.
 */
export async function tableRows(store: Store, space: Space, table: TextTable): Promise<number> {
  const top = await maxId(store, table);
  const byKey = cachesOf(store).rows;
  const key = rowsKey(space, table);
  const counted = byKey.get(key);
  if (counted && top <= counted.atMaxId * 1.1 + 100 && top >= counted.atMaxId) return counted.rows;
  const rows = (await store.sql.get<{ n: number }>(USER_ROWS[table], [space.userId]))!.n;
  return remember(byKey, key, { rows, atMaxId: top }).rows;
}

/**
 * The terms worth an OR-query: common ones dropped, unless every term is common, in which case
 * the two rarest stay (the query must still find something) and `everyCommon` says so.
 * `rows`: the user's (tableRows).
 */
export async function selectiveTerms(
  store: Store,
  space: Space,
  scope: CountScope & { terms: string[] },
): Promise<{ terms: string[]; everyCommon: boolean }> {
  const { terms, rows } = scope;
  if (rows <= COMMON_DF || terms.length === 0) return { terms, everyCommon: false };
  const scored: { term: string; df: number }[] = [];
  for (const term of terms) scored.push({ term, df: await documentFrequency(store, space, { ...scope, term }) });
  const rare = scored.filter((t) => t.df <= COMMON_DF).map((t) => t.term);
  if (rare.length > 0) return { terms: rare, everyCommon: false };
  const rarest = scored
    .sort((a, b) => a.df - b.df)
    .slice(0, 2)
    .map((t) => t.term);
  return { terms: rarest, everyCommon: true };
}
