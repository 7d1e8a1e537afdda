// The shape of a full-text index (text-index.ts picks one per store), apart from the indexes
// themselves, which implement it: they import this file, text-index.ts imports them.
import type { Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';

export type Scored = { id: number; score: number };
export type Clause = { sql: string; params: SqlParam[] };
export type TextTable = 'turns' | 'memories';

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
  rank(
    store: Store,
    space: Space,
    table: TextTable,
    terms: string[],
    clauses: Clause[],
    limit: number,
    rows: number,
  ): Promise<Scored[]>;
  /**
   * A subquery selecting `id`: the user's rows of `table` holding any (or all) of `words`, at
   * most `limit`, newest first (`best`: FTS5's best ranked, where it ranks). For a statement to
   * join its own filters to; null when no word can be matched. `limit` is part of the text.
   */
  matching(
    store: Store,
    space: Space,
    table: TextTable,
    words: string[],
    join: 'any' | 'all',
    limit: number,
    order?: 'newest' | 'best',
  ): Clause | null;
}
