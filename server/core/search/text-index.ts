// Full-text matching, the part of lexical search that differs by backend, behind one interface
// chosen by the store: FTS5 on SQLite (fts5-index.ts), the tsvector columns on Postgres
// (tsvector-index.ts), LIKE on either when full-text search is off (like-index.ts). What they
// share (filters, the BM25 computed here, term statistics) is in lexical.ts, bm25.ts and
// term-stats.ts. Terms are normalised tokens (letters and digits): none is ever syntax.
import type { Space } from '../space.ts';
import type { Store } from '../store.ts';
import type { Clause, Scored, TextTable } from './bm25.ts';
import { FTS5_INDEX } from './fts5-index.ts';
import { LIKE_INDEX } from './like-index.ts';
import { TSVECTOR_INDEX } from './tsvector-index.ts';

export type { Clause, Scored, TextTable };

export interface TextIndex {
  /** Each kind counts a little differently (tokens, lexemes, substrings): it names their cache. */
  readonly kind: 'fts5' | 'tsvector' | 'like';
  /** In how many of the user's rows of `table` the term appears, counted up to COMMON_DF + 1. */
  count(store: Store, space: Space, table: TextTable, term: string): Promise<number>;
  /**
   * The user's rows of `table` that hold any of `terms` and pass `clauses` (the first is the
   * space's), best first (higher score is better), at most `limit`. `rows`: how many rows the
   * user has in `table` (tableRows, read once per search).
   */
  rank(store: Store, space: Space, table: TextTable, terms: string[], clauses: Clause[], limit: number, rows: number): Promise<Scored[]>;
  /**
   * A subquery selecting `id`: the user's rows of `table` holding any (or all) of `words`, at
   * most `limit`, newest first (`best`: FTS5's best ranked, where it ranks). For a statement to
   * join its own filters to; null when no word can be matched. `limit` is part of the text.
   */
  matching(store: Store, space: Space, table: TextTable, words: string[], join: 'any' | 'all', limit: number, order?: 'newest' | 'best'): Clause | null;
}

/** Whether the store searches a full-text index (else LIKE): config can turn it off. */
export const ftsOn = (store: Store) => store.features.fts && store.config.fts.enabled;

export function textIndexOf(store: Store): TextIndex {
  if (!ftsOn(store)) return LIKE_INDEX;
  return store.sql.dialect === 'postgres' ? TSVECTOR_INDEX : FTS5_INDEX;
}
