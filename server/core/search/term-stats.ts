// Document frequency of query terms, to keep very common words out of the FTS5 OR-query.
// FTS5 scores every row any term matches (no early termination), so one word that appears in
// a large share of a 100k-turn history costs tens of milliseconds while adding almost no
// ranking information. Counting is capped and cached per store (frequencies drift slowly).
import { scopedMatch, type Space } from '../space.ts';
import type { Store } from '../store.ts';
import { escapeLike } from '../text.ts';

/** A term in more rows than this is "common". Small histories never reach it. */
export const COMMON_DF = 500;
const CACHE_SIZE = 5000;

// Without FTS5 (a build without it, or fts.enabled false) rows are counted with LIKE, as the
// LIKE fallback finds them: a scan, but capped, and cached like the rest.
const useFts = (store: Store) => store.features.fts && store.config.fts.enabled;

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

function cacheFor(store: Store, space: Space, table: 'turns' | 'memories', rows: number): Cache {
  const byKey = cachesOf(store).df;
  // FTS5 and LIKE count a little differently (tokens vs substrings): one cache each.
  const key = `${space.userId}\u0000${table}:${useFts(store) ? 'fts' : 'like'}`;
  let cache = byKey.get(key);
  // Frequencies are re-counted once the user's table has grown by a tenth.
  if (!cache || rows > cache.rows * 1.1 + 100 || rows < cache.rows) cache = remember(byKey, key, { rows, df: new Map() });
  return cache;
}

const countText = (rows: string) => `select count(*) as n from (${rows} limit ${COMMON_DF + 1})`;
/** The counting statements, by table and by how rows are found (FTS5 match or LIKE). */
const COUNT = {
  turns: {
    fts: countText('select 1 from turns_fts where turns_fts match ?'),
    like: countText("select 1 from turns where user_id = ? and text like ? escape '\\'"),
  },
  memories: {
    fts: countText('select 1 from memories_fts where memories_fts match ?'),
    like: countText("select 1 from memories where user_id = ? and content_key like ? escape '\\'"),
  },
} as const;

const countArguments = async (store: Store, space: Space, table: 'turns' | 'memories', term: string) =>
  useFts(store) ? [(await ftsScope(store, space, table)).match(`"${term.replace(/"/g, '""')}"`)] : [space.userId, `%${escapeLike(term)}%`];

/** In how many of the user's rows the term appears (capped at COMMON_DF + 1). */
export async function documentFrequency(store: Store, space: Space, table: 'turns' | 'memories', rows: number, term: string): Promise<number> {
  const cache = cacheFor(store, space, table, rows);
  let df = cache.df.get(term);
  if (df === undefined) {
    const args = await countArguments(store, space, table, term);
    df = (await store.sql.get<{ n: number }>(COUNT[table][useFts(store) ? 'fts' : 'like'], args))!.n;
    if (cache.df.size >= CACHE_SIZE) cache.df.clear();
    cache.df.set(term, df);
  }
  return df;
}

/** Frequencies counted elsewhere (a tiny user's rows, all read): later lookups skip the SQL. */
export function rememberFrequencies(store: Store, space: Space, table: 'turns' | 'memories', rows: number, terms: string[], counts: number[]) {
  const cache = cacheFor(store, space, table, rows);
  terms.forEach((term, i) => {
    if (cache.df.size >= CACHE_SIZE) cache.df.clear();
    cache.df.set(term, counts[i]!);
  });
}

/**
 * How a search reads a table's FTS index for this user. ANDing the user's `space` token keeps
 * other users' rows out of the match, which is what makes a small user's search cheap in a big
 * file; but for a user who owns most of the table it only adds work (every match is checked
 * against a doclist as long as the table: 2x at 100k turns). Such a user matches unscoped, and
 * the SQL join, which always filters by user, drops the few rows of others: `spread` says how
 * much further down the ranking to read so they do not crowd the user's out.
 */
export async function ftsScope(store: Store, space: Space, table: 'turns' | 'memories'): Promise<FtsScope> {
  const mine = await tableRows(store, space, table);
  const all = await maxId(store, table);
  if (all > 0 && mine > all * DOMINANT_SHARE) return { kind: 'dominant', rows: mine, match: (expression) => expression, spread: Math.min(2, all / Math.max(1, mine)) };
  const match = (expression: string) => scopedMatch(space.userId, table === 'turns' ? 'text' : 'content', expression);
  return { kind: mine <= SMALL_USER_ROWS ? 'small' : 'scoped', rows: mine, match, spread: 1 };
}

/**
 * `dominant`: unscoped match (above); `scoped`: the space token, ranked by FTS5; `small`: the
 * space token, ranked here (lexical.ts): FTS5's rank computes each term's IDF over the whole
 * table, which costs as much as a search of the whole file however few rows the user has.
 */
export type FtsScope = { kind: 'dominant' | 'scoped' | 'small'; rows: number; match: (expression: string) => string; spread: number };

/** Past this share of a table's rows, a user's searches skip the space token (see ftsScope). */
const DOMINANT_SHARE = 0.5;
/** Up to this many rows a user's matches are ranked here rather than by FTS5 (see FtsScope). */
export const SMALL_USER_ROWS = 5000;
/**
 * Up to this many rows a user's rows are all read rather than matched: an FTS5 match walks the
 * doclists of every user's rows (about 0.3 ms per table in a 100k-turn file), more than reading
 * a few hundred rows by the user's index and scoring them from the word cache.
 */
export const TINY_USER_ROWS = 300;

const MAX_ID = { turns: 'select max(id) as n from turns', memories: 'select max(id) as n from memories' } as const;
const USER_ROWS = { turns: 'select count(*) as n from turns where user_id = ?', memories: 'select count(*) as n from memories where user_id = ?' } as const;

const maxId = async (store: Store, table: 'turns' | 'memories') => (await store.sql.get<{ n: number | null }>(MAX_ID[table]))!.n ?? 0;

/**
 * About how many rows the user has in `table`. Counting walks the user's index range, so the
 * count is kept and taken again only once the file's largest id has grown by a tenth since.
 */
export async function tableRows(store: Store, space: Space, table: 'turns' | 'memories'): Promise<number> {
  const top = await maxId(store, table);
  const byKey = cachesOf(store).rows;
  const key = `${space.userId}\u0000${table}`;
  const counted = byKey.get(key);
  if (counted && top <= counted.atMaxId * 1.1 + 100 && top >= counted.atMaxId) return counted.rows;
  const rows = (await store.sql.get<{ n: number }>(USER_ROWS[table], [space.userId]))!.n;
  return remember(byKey, key, { rows, atMaxId: top }).rows;
}

/**
 * The terms worth an OR-query: common ones dropped, unless every term is common, in which case
 * the two rarest stay (the query must still find something).
 */
export async function selectiveTerms(store: Store, space: Space, table: 'turns' | 'memories', terms: string[]): Promise<string[]> {
  const rows = await tableRows(store, space, table);
  if (rows <= COMMON_DF || terms.length === 0) return terms;
  const scored: { term: string; df: number }[] = [];
  for (const term of terms) scored.push({ term, df: await documentFrequency(store, space, table, rows, term) });
  const rare = scored.filter((t) => t.df <= COMMON_DF).map((t) => t.term);
  if (rare.length > 0) return rare;
  return scored.sort((a, b) => a.df - b.df).slice(0, 2).map((t) => t.term);
}
