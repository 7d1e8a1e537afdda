// Document frequency of query terms, to keep very common words out of the FTS5 OR-query.
// FTS5 scores every row any term matches (no early termination), so one word that appears in
// a large share of a 100k-turn history costs tens of milliseconds while adding almost no
// ranking information. Counting is capped and cached per store (frequencies drift slowly).
import { prepared, type Store } from '../store.ts';
import { escapeLike } from '../text.ts';

/** A term in more rows than this is "common". Small histories never reach it. */
export const COMMON_DF = 500;
const CACHE_SIZE = 5000;

// Without FTS5 (a build without it, or fts.enabled false) rows are counted with LIKE, as the
// LIKE fallback finds them: a scan, but capped, and cached like the rest.
const useFts = (store: Store) => store.features.fts && store.config.fts.enabled;

type Cache = { rows: number; df: Map<string, number> };
const caches = new WeakMap<Store, Map<string, Cache>>();

function cacheFor(store: Store, table: 'turns' | 'memories', rows: number): Cache {
  let byTable = caches.get(store);
  if (!byTable) caches.set(store, (byTable = new Map()));
  // FTS5 and LIKE count a little differently (tokens vs substrings): one cache each.
  const key = `${table}:${useFts(store) ? 'fts' : 'like'}`;
  let cache = byTable.get(key);
  // Frequencies are re-counted once the table has grown by a tenth.
  if (!cache || rows > cache.rows * 1.1 + 100 || rows < cache.rows) byTable.set(key, (cache = { rows, df: new Map() }));
  return cache;
}

function countStatement(store: Store, table: 'turns' | 'memories') {
  const fts = useFts(store);
  return prepared(store, `search.df.${table}.${fts ? 'fts' : 'like'}`, () => {
    const name = `${table}_fts`;
    const rows = fts ? `select 1 from ${name} where ${name} match ?` : `select 1 from ${table} where ${table === 'turns' ? 'text' : 'content_key'} like ? escape '\\'`;
    return store.sqlite.prepare(`select count(*) as n from (${rows} limit ${COMMON_DF + 1})`);
  });
}

const countArgument = (store: Store, term: string) => (useFts(store) ? `"${term.replace(/"/g, '""')}"` : `%${escapeLike(term)}%`);

export function documentFrequency(store: Store, table: 'turns' | 'memories', rows: number, term: string): number {
  const cache = cacheFor(store, table, rows);
  let df = cache.df.get(term);
  if (df === undefined) {
    df = (countStatement(store, table).get(countArgument(store, term)) as { n: number }).n;
    if (cache.df.size >= CACHE_SIZE) cache.df.clear();
    cache.df.set(term, df);
  }
  return df;
}

export function tableRows(store: Store, table: 'turns' | 'memories'): number {
  const stmt = prepared(store, `search.maxId.${table}`, () => store.sqlite.prepare(`select max(id) as n from ${table}`));
  return (stmt.get() as { n: number | null }).n ?? 0;
}

/**
 * The terms worth an OR-query: common ones dropped, unless every term is common, in which case
 * the two rarest stay (the query must still find something).
 */
export function selectiveTerms(store: Store, table: 'turns' | 'memories', terms: string[]): string[] {
  const rows = tableRows(store, table);
  if (rows <= COMMON_DF || terms.length === 0) return terms;
  const scored = terms.map((term) => ({ term, df: documentFrequency(store, table, rows, term) }));
  const rare = scored.filter((t) => t.df <= COMMON_DF).map((t) => t.term);
  if (rare.length > 0) return rare;
  return scored.sort((a, b) => a.df - b.df).slice(0, 2).map((t) => t.term);
}
