// Lexical candidates: BM25 over turns and memories by the store's text index (text-index.ts:
// FTS5, Postgres's tsvector, or LIKE when full-text search is off), filtered by the same
// clauses everywhere. Common terms are left out first (term-stats.ts).
import { spaceClause, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { params, where, type Clause, type Scored } from '../text-index/bm25.ts';
import { selectiveTerms, tableRows } from '../text-index/term-stats.ts';
import { textIndexOf } from '../text-index/text-index.ts';
import type { SearchFilter } from './types.ts';

export type { Clause, Scored };
export { ftsOn } from '../text-index/text-index.ts';

/** Filters on turns aliased `t`, the space's first. */
export function turnClauses(
  space: Space,
  filter: Pick<SearchFilter, 'sessionIds' | 'excludeSessionId' | 'from' | 'to' | 'speakers'>,
): Clause[] {
  const clauses: Clause[] = [spaceClause(space, 't')];
  if (filter.sessionIds?.length)
    clauses.push({ sql: `t.session_id in (${filter.sessionIds.map(() => '?').join(',')})`, params: filter.sessionIds });
  if (filter.excludeSessionId) clauses.push({ sql: 't.session_id <> ?', params: [filter.excludeSessionId] });
  if (filter.from != null) clauses.push({ sql: 't.at >= ?', params: [filter.from] });
  if (filter.to != null) clauses.push({ sql: 't.at <= ?', params: [filter.to] });
  if (filter.speakers?.length)
    clauses.push({
      sql: `lower(t.name) in (${filter.speakers.map(() => '?').join(',')})`,
      params: filter.speakers.map((s) => s.toLowerCase()),
    });
  return clauses;
}

/** Filters on memories aliased `m`; kinds are the memory kinds wanted (fact, reflection). */
export function memoryClauses(
  space: Space,
  filter: Pick<SearchFilter, 'sessionIds' | 'excludeSessionId' | 'from' | 'to' | 'tags' | 'status'>,
  kinds: string[],
): Clause[] {
  const clauses: Clause[] = [spaceClause(space, 'm'), { sql: 'm.status = ?', params: [filter.status] }];
  clauses.push({ sql: `m.kind in (${kinds.map(() => '?').join(',')})`, params: kinds });
  if (filter.sessionIds?.length)
    clauses.push({ sql: `m.session_id in (${filter.sessionIds.map(() => '?').join(',')})`, params: filter.sessionIds });
  // A memory with no session (remembered explicitly) is not from the excluded conversation.
  if (filter.excludeSessionId)
    clauses.push({ sql: '(m.session_id is null or m.session_id <> ?)', params: [filter.excludeSessionId] });
  if (filter.from != null) clauses.push({ sql: 'm.event_at >= ?', params: [filter.from] });
  if (filter.to != null) clauses.push({ sql: 'm.event_at <= ?', params: [filter.to] });
  for (const tag of filter.tags ?? [])
    clauses.push({ sql: 'exists (select 1 from sm_texts(m.tags) where value = ?)', params: [tag] });
  return clauses;
}

/**
 * When every word of a query is common, only this many of the newest rows that match are ranked
 * (each stemmed once, then cached), or fewer when fewer are asked for. The ranker scores the best
 * 40 turns in full; more newest rows cost stemming on every such search (docs/benchmarks.md#queries-of-common-words-only).
 */
export const COMMON_NEWEST = 100;

/**
 * The space's rows of `table` matching any term, best BM25 first (higher is better). The match
 * reads only the user's rows where the index can (FTS5's space token, Postgres's user filter).
 */
async function lexical(
  store: Store,
  space: Space,
  { table, terms, clauses, limit }: { table: 'turns' | 'memories'; terms: string[]; clauses: Clause[]; limit: number },
): Promise<Scored[]> {
  if (terms.length === 0) return [];
  const index = textIndexOf(store);
  // The LIKE fallback scores by terms found, without frequencies: every term stays.
  if (index.kind === 'like') return index.rank(store, space, { table, terms, clauses, limit, rows: 0 });
  const rows = await tableRows(store, space, table);
  const selective = await selectiveTerms(store, space, { index, table, terms, rows });
  const query = { table, terms, clauses, limit, rows };
  if (selective.everyCommon) {
    // Every word is in many rows, and ranking every row that holds any of them cost up to 150 ms
    // at 100k turns: the rows that hold them all are taken when there are any, else those holding
    // the two rarest, else those holding either; only the newest matches are ranked.
    const newest = Math.min(limit, COMMON_NEWEST);
    for (const all of [terms, selective.terms]) {
      const found = await index.rank(store, space, { ...query, terms: all, join: 'all', newest });
      if (found.length > 0) return found;
    }
    return index.rank(store, space, { ...query, terms: selective.terms, newest });
  }
  return index.rank(store, space, { ...query, terms: selective.terms });
}

export const lexicalTurns = (store: Store, space: Space, terms: string[], clauses: Clause[], limit: number) =>
  lexical(store, space, { table: 'turns', terms, clauses, limit });
export const lexicalMemories = (store: Store, space: Space, terms: string[], clauses: Clause[], limit: number) =>
  lexical(store, space, { table: 'memories', terms, clauses, limit });

/** Turns the clauses select, oldest first, unscored: the turns on a date a query names. */
export function turnsWhere(store: Store, clauses: Clause[], limit: number): Promise<Scored[]> {
  const text = `select t.id as id, 0 as score from turns t${where(clauses)} order by t.at, t.id limit ?`;
  return store.sql.all<Scored>(text, [...params(clauses), limit]);
}
