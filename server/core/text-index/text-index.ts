// Full-text matching, the part of lexical search that differs by backend, behind one interface
// (../kernel/store.ts): the store's own (`store.dialect.textIndex`, from server/storage/:
// FTS5 on SQLite, the tsvector columns on Postgres), or LIKE on either when full-text search is off
// (like-index.ts). What they share (filters, the BM25 computed here, term statistics) is in
// bm25.ts and term-stats.ts. Terms are normalised tokens (letters and digits): none is ever syntax.
import type { Store } from '../kernel/store.ts';
import { LIKE_INDEX } from './like-index.ts';
import type { TextIndex } from '../kernel/store.ts';

export type { Clause, Scored, TextIndex, TextTable } from '../kernel/store.ts';

/** Whether the store searches a full-text index (else LIKE): config can turn it off. */
export const ftsOn = (store: Store) => store.features.fts && store.config.fts.enabled;

export function textIndexOf(store: Store): TextIndex {
  if (!ftsOn(store)) return LIKE_INDEX;
  return store.dialect.textIndex;
}
