// BM25 computed here, over rows read from the database, as FTS5 defines it (k1 1.2, b 0.75):
// for a user whose rows are few (read them all), for an FTS5 match of a small user (FTS5's own
// rank computes each term's IDF over the whole table), and for every Postgres match (Postgres
// ranks by other formulas). Terms are matched on their porter stems, diacritics folded, as the
// FTS5 index stores them; the stems come from the per-row cache the turn ranker reads too.
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { documentFrequency, rememberFrequencies } from './term-stats.ts';
import type { Clause, Scored, TextIndex, TextTable } from '../kernel/store.ts';
import { cachedStems, stem, wordCache } from '../text/stems.ts';

export type { Clause, Scored, TextTable };

const BM25 = { k1: 1.2, b: 0.75 } as const;

/** Each table's alias in the filter clauses, and the column its text index holds. */
export const SCORED = { turns: { alias: 't', column: 'text' }, memories: { alias: 'm', column: 'content' } } as const;

export const where = (clauses: Clause[]) => (clauses.length ? ` where ${clauses.map((c) => c.sql).join(' and ')}` : '');
export const params = (clauses: Clause[]) => clauses.flatMap((c) => c.params);

/** A row to score: `keep` says whether it passes the filters (the others still count in frequencies). */
export type UserRow = { id: number; text: string; keep: number };

/**
 * Up to this many rows a user's rows are all read rather than matched: an FTS5 match walks the
 * doclists of every user's rows (about 0.3 ms per table in a 100k-turn file), more than reading
 * a few hundred rows by the user's index and scoring them from the word cache.
 */
export const TINY_USER_ROWS = 300;

/**
 * Every row of the user, `keep` saying whether it passes the filters: the ones that do not still
 * count in the frequencies, as they do in a full-text index. `newest`: only that many, newest first.
 */
export function everyRow(
  store: Store,
  space: Space,
  table: TextTable,
  clauses: Clause[],
  newest?: number,
): Promise<UserRow[]> {
  const { alias, column } = SCORED[table];
  const text = `select ${alias}.id as id, ${alias}.${column} as text, (${clauses.map((c) => c.sql).join(' and ') || '1'}) as keep from ${table} ${alias} where ${alias}.user_id = ?${newest ? ` order by ${alias}.id desc limit ${newest}` : ''}`;
  return store.sql.all<UserRow>(text, [...params(clauses), space.userId]);
}

/** What rankHere scores: `found` among the user's `rows` of `table`, the best `limit` kept. */
export type RankHereInput = {
  index: TextIndex;
  table: TextTable;
  terms: string[];
  found: UserRow[];
  /** The user's rows in the table (tableRows). */
  rows: number;
  /** `found` is every row of the user: document frequencies are counted from them (and kept where the ranker reads them). */
  tiny: boolean;
  limit: number;
};

/** A row as BM25 sees it: its length in words and each term's frequency in it. */
type Doc = { id: number; length: number; tf: number[]; keep: boolean };

/** Each term's IDF, from the rows found when they are all the user's, else from the index's counts. */
async function idfOf(store: Store, space: Space, input: RankHereInput, docs: Doc[]): Promise<number[]> {
  const { index, table, terms, rows, tiny } = input;
  let df: number[];
  if (tiny) {
    df = terms.map((_, i) => docs.reduce((n, d) => n + (d.tf[i]! > 0 ? 1 : 0), 0));
    rememberFrequencies(store, space, { index, table, rows, terms, counts: df });
  } else {
    df = [];
    for (const term of terms) df.push(await documentFrequency(store, space, { index, table, rows, term }));
  }
  const total = tiny ? input.found.length : rows;
  return df.map((n) => Math.log(1 + (total - Math.max(1, n) + 0.5) / (Math.max(1, n) + 0.5)));
}

/** The rows `found` ranked by BM25 over the user's rows, best first. */
export async function rankHere(store: Store, space: Space, input: RankHereInput): Promise<Scored[]> {
  const { found, terms, limit } = input;
  if (found.length === 0 || terms.length === 0) return [];
  const stems = terms.map(stem);
  const slots = new Map<string, number[]>();
  stems.forEach((s, i) => slots.set(s, [...(slots.get(s) ?? []), i]));
  const cache = wordCache(store, input.table);
  const docs: Doc[] = found.map((row) => {
    const words = cachedStems(cache, row.id, row.text);
    const tf = new Array<number>(stems.length).fill(0);
    for (const word of words) {
      const at = slots.get(word);
      if (at) for (const i of at) tf[i]!++;
    }
    return { id: row.id, length: words.length, tf, keep: row.keep === 1 };
  });
  const idf = await idfOf(store, space, input, docs);
  const average = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
  const scored: Scored[] = [];
  for (const doc of docs) {
    if (!doc.keep) continue;
    let score = 0;
    for (let i = 0; i < stems.length; i++) {
      const tf = doc.tf[i]!;
      if (tf > 0)
        score += (idf[i]! * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + (BM25.b * doc.length) / average));
    }
    if (score > 0) scored.push({ id: doc.id, score });
  }
  return scored.sort((a, b) => b.score - a.score || b.id - a.id).slice(0, limit);
}
