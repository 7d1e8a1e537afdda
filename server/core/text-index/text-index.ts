// Full-text matching, the part of lexical search that differs by backend, behind one interface
// (text-index-types.ts, apart so the indexes implementing it import no file that imports them)
// chosen by the store: FTS5 on SQLite (fts5-index.ts), the tsvector columns on Postgres
// (tsvector-index.ts), LIKE on either when full-text search is off (like-index.ts). What they
// share (filters, the BM25 computed here, term statistics) is in lexical.ts, bm25.ts and
// term-stats.ts. Terms are normalised tokens (letters and digits): none is ever syntax.
import type { Store } from '../kernel/store.ts';
import { FTS5_INDEX } from './fts5-index.ts';
import { LIKE_INDEX } from './like-index.ts';
import type { TextIndex } from './text-index-types.ts';
import { TSVECTOR_INDEX } from './tsvector-index.ts';

export type { Clause, Scored, TextIndex, TextTable } from './text-index-types.ts';

/** Whether the store searches a full-text index (else LIKE): config can turn it off. */
export const ftsOn = (store: Store) => store.features.fts && store.config.fts.enabled;

export function textIndexOf(store: Store): TextIndex {
  if (!ftsOn(store)) return LIKE_INDEX;
  return store.sql.dialect === 'postgres' ? TSVECTOR_INDEX : FTS5_INDEX;
}
