// Postgres's text index: the stored tsvector columns turns.text_search and
// memories.content_search (to_tsvector('english', …) under a GIN index, drizzle/pg-schema.ts).
// A user's candidates are the rows whose vector matches an OR of the terms, filtered by the same
// clauses as on SQLite, and ranked by the domain's BM25 as FTS5 ranks (core/text-index/bm25.ts),
// with document frequencies counted per user and cached (core/text-index/term-stats.ts): Postgres's own ts_rank is another
// formula and knows no document frequency. A user with few rows is read whole, as on SQLite.
import type { Store } from '../../core/kernel/store.ts';
import {
  everyRow,
  params,
  rankHere,
  TINY_USER_ROWS,
  type Clause,
  type Scored,
  type TextTable,
  type UserRow,
} from '../../core/text-index/bm25.ts';
import { isStopword } from '../../core/text/query.ts';
import { COMMON_DF, countedRows } from '../../core/text-index/term-stats.ts';
import type { TextIndex } from '../../core/kernel/store.ts';

const VECTOR = { turns: 'text_search', memories: 'content_search' } as const;

/** Matches read per search, newest first: past it a word is too common to rank on anyway (core/text-index/term-stats.ts). */
const MATCHED_ROWS = 5000;
/**
 * A user with at most this many rows has them read newest first and tested one by one (matching):
 * the GIN index would read the postings of every user's rows holding the words instead.
 */
const WALKED_ROWS = 500;

/** The user's newest rows matching the query, by the GIN index (`gate`: a condition that must hold first). */
const byIndex = (table: TextTable, limit: number, gate = '') =>
  `select id from ${table} where ${gate}user_id = ? and ${VECTOR[table]} @@ to_tsquery('english', ?) order by id desc limit ${limit}`;

/**
 * `matching`'s statement when the user may be small: for a user of WALKED_ROWS rows or fewer,
 * their rows read newest first and tested; for a larger one, the GIN index. One statement for
 * both: the count (a read of at most WALKED_ROWS + 1 of the user's index entries) gates each
 * branch, and Postgres does not run a branch whose gate is false. The walk's query is parsed once,
 * in a subquery: as a parameter of a generic plan, to_tsquery would run again for every row tested.
 */
const walkOrIndex = (table: TextTable, limit: number) =>
  `with small as materialized (select count(*) <= ${WALKED_ROWS} as yes from (select 1 from ${table} where user_id = ? limit ${WALKED_ROWS + 1}) c)
    (select id from (select id, ${VECTOR[table]} as v from ${table} where user_id = ? order by id desc limit ${WALKED_ROWS}) r
      where (select yes from small) and r.v @@ (select to_tsquery('english', ?)) order by id desc limit ${limit})
    union all
    (${byIndex(table, limit, '(select not yes from small) and ')})`;
/** The statements by table, limit and kind, built once (the port prepares them by their text). */
const MATCHING_TEXTS = new Map<string, string>();
const matchingText = (table: TextTable, limit: number, walk: boolean) => {
  const key = `${table}${limit}${walk}`;
  let text = MATCHING_TEXTS.get(key);
  if (text === undefined) MATCHING_TEXTS.set(key, (text = walk ? walkOrIndex(table, limit) : byIndex(table, limit)));
  return text;
};

/** Rows read, newest first, for a query of stop words only (see rank). */
const STOPWORD_ROWS = 1000;

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The spellings of a term the index may hold. The vector lower-cases words as the server's
 * locale knows how: a server made without one (C) lower-cases ASCII only, so ÉCOLE is stored as
 * École. A word with other letters is also looked up capitalised and in capitals, which the
 * configuration lower-cases the same way (and which are the one lexeme on a server that folds them).
 */
function spellings(term: string): string[] {
  if (!NON_ASCII.test(term)) return [term];
  return [...new Set([term, term.toUpperCase(), term.charAt(0).toUpperCase() + term.slice(1)])];
}

/**
 * A tsquery (for `to_tsquery('english', ?)`) matching `terms`, any or all of them: each lexeme
 * quoted, and only letters and digits inside the quotes (normalised tokens are nothing else), so
 * no user text is syntax. Stop words come out of the query (Postgres drops them from the vectors).
 */
export function tsQuery(terms: string[], join: 'any' | 'all'): string | null {
  const groups = terms
    .map((term) => term.replace(/[^\p{L}\p{N}]+/gu, ''))
    .filter((term) => term !== '')
    .map(
      (term) =>
        `(${spellings(term)
          .map((s) => `'${s}'`)
          .join(' | ')})`,
    );
  return groups.length === 0 ? null : groups.join(join === 'any' ? ' | ' : ' & ');
}

const MATCHED = {
  turns: (clauses: Clause[]) =>
    `select t.id as id, t.text as text, 1 as keep from turns t where t.text_search @@ to_tsquery('english', ?)${clauses.map((c) => ` and ${c.sql}`).join('')} order by t.id desc limit ${MATCHED_ROWS}`,
  memories: (clauses: Clause[]) =>
    `select m.id as id, m.content as text, 1 as keep from memories m where m.content_search @@ to_tsquery('english', ?)${clauses.map((c) => ` and ${c.sql}`).join('')} order by m.id desc limit ${MATCHED_ROWS}`,
} as const;

const countText = (table: TextTable) =>
  `select count(*) as n from (select 1 from ${table} where user_id = ? and ${VECTOR[table]} @@ to_tsquery('english', ?) limit ${COMMON_DF + 1}) c`;
const COUNT = { turns: countText('turns'), memories: countText('memories') } as const;

export const TSVECTOR_INDEX: TextIndex = {
  kind: 'tsvector',

  // Postgres does not rank the match: `best` is newest first too.
  matching(store, space, { table, words, join, limit }) {
    const query = tsQuery(words, join);
    if (!query) return null;
    const user = space.userId;
    // A user a search counted far past the walk goes to the GIN index without the count's cost.
    if ((countedRows(store, space, table) ?? 0) > 2 * WALKED_ROWS)
      return { sql: matchingText(table, limit, false), params: [user, query] };
    return { sql: matchingText(table, limit, true), params: [user, user, query, user, query] };
  },

  async count(store, space, table, term) {
    const query = tsQuery([term], 'any');
    if (!query) return 0;
    return (await store.sql.get<{ n: number }>(COUNT[table], [space.userId, query]))!.n;
  },

  async rank(store: Store, space, ranked): Promise<Scored[]> {
    const { table, terms, clauses, limit, rows, join = 'any' } = ranked;
    const query = tsQuery(terms, join);
    if (!query) return [];
    const tiny = rows <= TINY_USER_ROWS;
    const found = tiny
      ? await everyRow(store, space, table, clauses)
      : await store.sql.all<UserRow>(MATCHED[table](clauses), [query, ...params(clauses)]);
    // Stop words only ("who am I"): the vectors leave them out, so the index finds nothing; the
    // user's newest rows are read and ranked here instead, as FTS5 (which keeps every word) would.
    if (found.length === 0 && !tiny && terms.every(isStopword)) {
      const newest = await everyRow(store, space, table, clauses, STOPWORD_ROWS);
      return rankHere(store, space, { index: TSVECTOR_INDEX, table, terms, found: newest, rows, tiny: false, limit });
    }
    return rankHere(store, space, { index: TSVECTOR_INDEX, table, terms, found, rows, tiny, limit });
  },
};
