// SQLite's text index: FTS5 over turns and memories (created by search-index.ts). The MATCH always
// runs alone in a subquery with its own LIMIT, and filters join afterwards: given both in one
// query, SQLite's planner drives from the filtered table. CROSS JOIN pins that order, else the planner scans the filtered table by its
// index and probes the FTS results. Terms are quoted: no user text is FTS5 syntax.
import { scopedMatch, type Space } from '../../core/kernel/space.ts';
import type { Store } from '../../core/kernel/store.ts';
import {
  everyRow,
  params,
  rankHere,
  SCORED,
  TINY_USER_ROWS,
  where,
  type Clause,
  type Scored,
  type TextTable,
  type UserRow,
} from '../../core/text-index/bm25.ts';
import { ftsTerms } from '../../core/text/query.ts';
import { COMMON_DF, maxId, tableRows } from '../../core/text-index/term-stats.ts';
import type { TextIndex } from '../../core/kernel/store.ts';

/**
 * How a search reads a table's FTS index for this user. ANDing the user's `space` token keeps
 * other users' rows out of the match, which is what makes a small user's search cheap in a big
 * file; but for a user who owns most of the table it only adds work (every match is checked
 * against a doclist as long as the table: 2x at 100k turns). Such a user matches unscoped, and
 * the SQL join, which always filters by user, drops the few rows of others: `spread` says how
 * much further down the ranking to read so they do not crowd the user's out.
 *
 * `dominant`: unscoped match; `scoped`: the space token, ranked by FTS5; `small`: the space
 * token, ranked here (core/text-index/bm25.ts): FTS5's rank computes each term's IDF over the whole table, which
 * costs as much as a search of the whole file however few rows the user has.
 */
type FtsScope = {
  kind: 'dominant' | 'scoped' | 'small';
  rows: number;
  match: (expression: string) => string;
  spread: number;
};

/** Past this share of a table's rows, a user's searches skip the space token (see ftsScope). */
const DOMINANT_SHARE = 0.5;
/** Up to this many rows a user's matches are ranked here rather than by FTS5 (see FtsScope). */
const SMALL_USER_ROWS = 5000;

async function ftsScope(store: Store, space: Space, table: TextTable, mine: number): Promise<FtsScope> {
  const all = await maxId(store, table);
  if (all > 0 && mine > all * DOMINANT_SHARE)
    return {
      kind: 'dominant',
      rows: mine,
      match: (expression) => expression,
      spread: Math.min(2, all / Math.max(1, mine)),
    };
  const match = (expression: string) => scopedMatch(space.userId, SCORED[table].column, expression);
  return { kind: mine <= SMALL_USER_ROWS ? 'small' : 'scoped', rows: mine, match, spread: 1 };
}

/** The user's rows the FTS match finds (the newest `newest`), every one passing the filters. */
function matchedRows(
  store: Store,
  table: TextTable,
  match: string,
  clauses: Clause[],
  newest = SMALL_USER_ROWS,
): Promise<UserRow[]> {
  const { alias, column } = SCORED[table];
  const text = `select ${alias}.id as id, ${alias}.${column} as text, 1 as keep from (select rowid from ${table}_fts where ${table}_fts match ? order by rowid desc limit ${newest}) f cross join ${table} ${alias} on ${alias}.id = f.rowid${where(clauses)}`;
  return store.sql.all<UserRow>(text, [match, ...params(clauses)]);
}

/** FTS5's own ranking (score = -bm25, higher is better), filters joined after the match. */
const RANKED = {
  turns: (clauses: Clause[]) =>
    `select t.id as id, f.score as score from (select rowid, -rank as score from turns_fts where turns_fts match ? order by rank limit ?) f cross join turns t on t.id = f.rowid${where(clauses)} order by f.score desc limit ?`,
  memories: (clauses: Clause[]) =>
    `select m.id as id, f.score as score from (select rowid, -rank as score from memories_fts where memories_fts match ? order by rank limit ?) f cross join memories m on m.id = f.rowid${where(clauses)} order by f.score desc limit ?`,
} as const;

const countText = (rows: string) => `select count(*) as n from (${rows} limit ${COMMON_DF + 1})`;
const COUNT = {
  turns: countText('select 1 from turns_fts where turns_fts match ?'),
  memories: countText('select 1 from memories_fts where memories_fts match ?'),
} as const;

export const FTS5_INDEX: TextIndex = {
  kind: 'fts5',

  matching(_store, space, { table, words, join, limit, order = 'newest' }) {
    const expression = ftsTerms(words, join);
    if (!expression) return null;
    const sql = `select rowid as id from ${table}_fts where ${table}_fts match ? order by ${order === 'best' ? 'rank' : 'rowid desc'} limit ${limit}`;
    return { sql, params: [scopedMatch(space.userId, SCORED[table].column, expression)] };
  },

  async count(store, space, table, term) {
    const match = (await ftsScope(store, space, table, await tableRows(store, space, table))).match(
      `"${term.replace(/"/g, '""')}"`,
    );
    return (await store.sql.get<{ n: number }>(COUNT[table], [match]))!.n;
  },

  /** The MATCH names the user (its `space` token) unless the user owns most of the table. */
  async rank(store, space, query): Promise<Scored[]> {
    const { table, terms, clauses, limit, rows, join = 'any', newest } = query;
    const expression = ftsTerms(terms, join);
    if (!expression) return [];
    const scope = await ftsScope(store, space, table, rows);
    if (scope.kind === 'small') {
      const tiny = scope.rows <= TINY_USER_ROWS;
      const found = tiny
        ? await everyRow(store, space, table, clauses)
        : await matchedRows(store, table, scope.match(expression), clauses);
      return rankHere(store, space, { index: FTS5_INDEX, table, terms, found, rows: scope.rows, tiny, limit });
    }
    // Filters cut candidates after the LIMIT, so filtered searches look further down the list
    // (memories always have status and kind filters).
    const inner = Math.ceil((table === 'memories' ? limit * 2 : clauses.length > 1 ? limit * 4 : limit) * scope.spread);
    // FTS5's rank reads each term's whole doclist for its statistics, however few rows are
    // ranked: the newest matches are read (FTS5 stops at them) and ranked here instead, as many
    // as asked (more when other users' rows share the index: the filters drop those).
    if (newest !== undefined) {
      const found = await matchedRows(store, table, scope.match(expression), clauses, Math.ceil(newest * scope.spread));
      return rankHere(store, space, { index: FTS5_INDEX, table, terms, found, rows: scope.rows, tiny: false, limit });
    }
    return store.sql.all<Scored>(RANKED[table](clauses), [scope.match(expression), inner, ...params(clauses), limit]);
  },
};
