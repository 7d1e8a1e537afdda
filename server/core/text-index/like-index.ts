// Matching without a full-text index (fts.enabled false, or a SQLite built without FTS5): rows
// containing any term, scored by how many distinct terms they contain. A scan, so a fallback.
import type { Store } from '../kernel/store.ts';
import { escapeLike, hasNonAscii } from '../text/text.ts';
import { params, SCORED, type Scored } from './bm25.ts';
import { COMMON_DF } from './term-stats.ts';
import type { TextIndex } from '../kernel/store.ts';

/** Words of a query matched at most: each is a LIKE over every candidate row. */
const MAX_WORDS = 16;

/**
 * The column a word is matched in. A memory's content_key is already normalised (lower case).
 * A non-ASCII word (école) is matched against the turn text normalised as the terms are (ÉCOLE ->
 * école): sm_normalize, a function of that name on both backends, a call per row this fallback can afford.
 */
const columnFor = (store: Store, table: 'turns' | 'memories', words: string[]) =>
  table === 'memories'
    ? 'm.content_key like'
    : words.some(hasNonAscii)
      ? 'sm_normalize(t.text) like'
      : `t.text ${store.dialect.statements.likeFoldingCase}`;

export const LIKE_INDEX: TextIndex = {
  kind: 'like',

  matching(store, space, { table, words, join, limit }) {
    if (words.length === 0) return null;
    const { alias } = SCORED[table];
    const test = columnFor(store, table, words);
    const hits = words.map(() => `${test} ? escape '\\'`).join(join === 'any' ? ' or ' : ' and ');
    const sql = `select ${alias}.id as id from ${table} ${alias} where ${alias}.user_id = ? and (${hits}) order by ${alias}.id desc limit ${limit}`;
    return { sql, params: [space.userId, ...words.map((w) => `%${escapeLike(w)}%`)] };
  },

  async count(store, space, table, term) {
    const { alias } = SCORED[table];
    const text = `select count(*) as n from (select 1 from ${table} ${alias} where ${alias}.user_id = ? and ${columnFor(store, table, [term])} ? escape '\\' limit ${COMMON_DF + 1}) c`;
    return (await store.sql.get<{ n: number }>(text, [space.userId, `%${escapeLike(term)}%`]))!.n;
  },

  async rank(store, _space, { table, terms, clauses, limit, join = 'any' }): Promise<Scored[]> {
    const { alias } = SCORED[table];
    const words = terms.slice(0, MAX_WORDS);
    if (words.length === 0) return [];
    const test = columnFor(store, table, words);
    const patterns = words.map((w) => `%${escapeLike(w)}%`);
    const hits = words.map(() => `${test} ? escape '\\'`);
    const score = hits.map((hit) => `(case when ${hit} then 1 else 0 end)`).join(' + ');
    const text = `select ${alias}.id as id, ${score} as score from ${table} ${alias} where (${hits.join(join === 'any' ? ' or ' : ' and ')})${clauses.map((c) => ` and ${c.sql}`).join('')} order by score desc, ${alias}.id desc limit ?`;
    return store.sql.all<Scored>(text, [...patterns, ...patterns, ...params(clauses), limit]);
  },
};
