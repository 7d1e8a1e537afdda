// Lexical candidates: FTS5 BM25 over turns and memories, or LIKE when FTS5 is off. The MATCH
// always runs alone in a subquery with its own LIMIT, and filters join afterwards (the FTS5
// planner trap in STACK.md); CROSS JOIN pins that order, else the planner scans the filtered table
// by its index and probes the FTS results. Terms are normalised tokens, each quoted: no user text is syntax.
import { spaceClause, type Space } from '../space.ts';
import type { SqlParam, Store } from '../store.ts';
import { escapeLike, hasNonAscii } from '../text.ts';
import { ftsAny } from './query.ts';
import { documentFrequency, ftsScope, rememberFrequencies, selectiveTerms, SMALL_USER_ROWS, TINY_USER_ROWS, type FtsScope } from './term-stats.ts';
import { cachedStems, stem, wordCache } from './turn-features.ts';
import type { SearchFilter } from './types.ts';

export type Scored = { id: number; score: number };

export const ftsOn = (store: Store) => store.features.fts && store.config.fts.enabled;

type Clause = { sql: string; params: SqlParam[] };

/** Statement texts are built from the filters' shape, not their values: the port prepares each shape once. */
const select = <T>(store: Store, text: string, args: SqlParam[]) => store.sql.all<T>(text, args);

/** Filters on turns aliased `t`, the space's first. */
export function turnClauses(space: Space, filter: Pick<SearchFilter, 'sessionIds' | 'excludeSessionId' | 'from' | 'to' | 'speakers'>): Clause[] {
  const clauses: Clause[] = [spaceClause(space, 't')];
  if (filter.sessionIds?.length) clauses.push({ sql: `t.session_id in (${filter.sessionIds.map(() => '?').join(',')})`, params: filter.sessionIds });
  if (filter.excludeSessionId) clauses.push({ sql: 't.session_id <> ?', params: [filter.excludeSessionId] });
  if (filter.from != null) clauses.push({ sql: 't.at >= ?', params: [filter.from] });
  if (filter.to != null) clauses.push({ sql: 't.at <= ?', params: [filter.to] });
  if (filter.speakers?.length) clauses.push({ sql: `lower(t.name) in (${filter.speakers.map(() => '?').join(',')})`, params: filter.speakers.map((s) => s.toLowerCase()) });
  return clauses;
}

/** Filters on memories aliased `m`; kinds are the memory kinds wanted (fact, reflection). */
export function memoryClauses(space: Space, filter: Pick<SearchFilter, 'sessionIds' | 'excludeSessionId' | 'from' | 'to' | 'tags' | 'status'>, kinds: string[]): Clause[] {
  const clauses: Clause[] = [spaceClause(space, 'm'), { sql: 'm.status = ?', params: [filter.status] }];
  clauses.push({ sql: `m.kind in (${kinds.map(() => '?').join(',')})`, params: kinds });
  if (filter.sessionIds?.length) clauses.push({ sql: `m.session_id in (${filter.sessionIds.map(() => '?').join(',')})`, params: filter.sessionIds });
  // A memory with no session (remembered explicitly) is not from the excluded conversation.
  if (filter.excludeSessionId) clauses.push({ sql: '(m.session_id is null or m.session_id <> ?)', params: [filter.excludeSessionId] });
  if (filter.from != null) clauses.push({ sql: 'm.event_at >= ?', params: [filter.from] });
  if (filter.to != null) clauses.push({ sql: 'm.event_at <= ?', params: [filter.to] });
  for (const tag of filter.tags ?? []) clauses.push({ sql: 'exists (select 1 from json_each(m.tags) where value = ?)', params: [tag] });
  return clauses;
}

const where = (clauses: Clause[]) => (clauses.length ? ` where ${clauses.map((c) => c.sql).join(' and ')}` : '');
const params = (clauses: Clause[]) => clauses.flatMap((c) => c.params);

/** Without FTS5: rows containing any term, scored by how many distinct terms they contain. */
async function likeScored(store: Store, table: 'turns' | 'memories', terms: string[], clauses: Clause[], limit: number): Promise<Scored[]> {
  const alias = table === 'turns' ? 't' : 'm';
  const words = terms.slice(0, 16);
  // SQLite's LIKE folds ASCII case only: a non-ASCII word (école) is matched against the turn
  // text normalised as the terms are (ÉCOLE -> école), a JS call per row this fallback can afford.
  const column = table === 'memories' ? 'm.content_key' : words.some(hasNonAscii) ? 'sm_normalize(t.text)' : 't.text';
  if (words.length === 0) return [];
  const patterns = words.map((w) => `%${escapeLike(w)}%`);
  const hits = words.map(() => `(${column} like ? escape '\\')`);
  const text = `select ${alias}.id as id, (${hits.join(' + ')}) as score from ${table} ${alias} where (${hits.join(' or ')})${clauses.map((c) => ` and ${c.sql}`).join('')} order by score desc, ${alias}.id desc limit ?`;
  return select<Scored>(store, text, [...patterns, ...patterns, ...params(clauses), limit]);
}

const BM25 = { k1: 1.2, b: 0.75 } as const;

/** Each table's alias in the filter clauses, and the column its FTS index holds. */
const SCORED = { turns: { alias: 't', column: 'text' }, memories: { alias: 'm', column: 'content' } } as const;

/**
 * A small user's matches, ranked here by BM25 (as FTS5 defines it) over that user's own rows:
 * the match reads the user's rows only (space token, rowid order, no FTS5 rank), and document
 * frequencies are the user's (counted once and cached). Terms are matched on their porter
 * stems, as the index stores them. A tiny user's rows are all read instead (see TINY_USER_ROWS),
 * and their frequencies counted from them.
 */
async function rankedHere(store: Store, space: Space, table: 'turns' | 'memories', terms: string[], scope: FtsScope, clauses: Clause[], limit: number): Promise<Scored[]> {
  const expression = ftsAny(terms);
  if (!expression) return [];
  const tiny = scope.rows <= TINY_USER_ROWS;
  const found = tiny ? await everyRow(store, space, table, clauses) : await matchedRows(store, table, scope.match(expression), clauses);
  if (found.length === 0) return [];
  const stems = terms.map(stem);
  const slots = new Map<string, number[]>();
  stems.forEach((s, i) => slots.set(s, [...(slots.get(s) ?? []), i]));
  // Stems come from the per-row cache the turn ranker reads too.
  const cache = wordCache(store, table);
  const docs = found.map((row) => {
    const words = cachedStems(cache, row.id, row.text);
    const tf = new Array<number>(stems.length).fill(0);
    for (const word of words) {
      const at = slots.get(word);
      if (at) for (const i of at) tf[i]!++;
    }
    return { id: row.id, length: words.length, tf, keep: row.keep === 1 };
  });
  const total = tiny ? found.length : scope.rows;
  let frequencies: number[];
  if (tiny) frequencies = countedFrequencies(store, space, table, terms, docs, scope.rows);
  else {
    frequencies = [];
    for (const term of terms) frequencies.push(await documentFrequency(store, space, table, scope.rows, term));
  }
  const idf = frequencies.map((df) => Math.log(1 + (total - Math.max(1, df) + 0.5) / (Math.max(1, df) + 0.5)));
  const average = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
  const scored: Scored[] = [];
  for (const doc of docs) {
    if (!doc.keep) continue;
    let score = 0;
    for (let i = 0; i < stems.length; i++) {
      const tf = doc.tf[i]!;
      if (tf > 0) score += (idf[i]! * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + (BM25.b * doc.length) / average));
    }
    if (score > 0) scored.push({ id: doc.id, score });
  }
  return scored.sort((a, b) => b.score - a.score || b.id - a.id).slice(0, limit);
}

type UserRow = { id: number; text: string; keep: number };

/** The user's rows the FTS match finds (newest first), every one passing the filters. */
function matchedRows(store: Store, table: 'turns' | 'memories', match: string, clauses: Clause[]): Promise<UserRow[]> {
  const { alias, column } = SCORED[table];
  const text = `select ${alias}.id as id, ${alias}.${column} as text, 1 as keep from (select rowid from ${table}_fts where ${table}_fts match ? order by rowid desc limit ${SMALL_USER_ROWS}) f cross join ${table} ${alias} on ${alias}.id = f.rowid${where(clauses)}`;
  return select<UserRow>(store, text, [match, ...params(clauses)]);
}

/**
 * Every row of the user, `keep` saying whether it passes the filters: the ones that do not still
 * count in the frequencies, as they do in the FTS5 index.
 */
function everyRow(store: Store, space: Space, table: 'turns' | 'memories', clauses: Clause[]): Promise<UserRow[]> {
  const { alias, column } = SCORED[table];
  const text = `select ${alias}.id as id, ${alias}.${column} as text, (${clauses.map((c) => c.sql).join(' and ') || '1'}) as keep from ${table} ${alias} where ${alias}.user_id = ?`;
  return select<UserRow>(store, text, [...params(clauses), space.userId]);
}

/** In how many of the rows each term appears, kept where the ranker reads document frequencies. */
function countedFrequencies(store: Store, space: Space, table: 'turns' | 'memories', terms: string[], docs: { tf: number[] }[], rows: number): number[] {
  const counts = terms.map((_, i) => docs.reduce((n, d) => n + (d.tf[i]! > 0 ? 1 : 0), 0));
  rememberFrequencies(store, space, table, rows, terms, counts);
  return counts;
}

/**
 * The space's turns matching any term, best BM25 first (score = -bm25, higher is better). The
 * MATCH names the user (its `space` token), so other users' rows are never read or ranked.
 */
export async function lexicalTurns(store: Store, space: Space, terms: string[], clauses: Clause[], limit: number): Promise<Scored[]> {
  if (terms.length === 0) return [];
  if (!ftsOn(store)) return likeScored(store, 'turns', terms, clauses, limit);
  const selective = await selectiveTerms(store, space, 'turns', terms);
  const match = ftsAny(selective);
  if (!match) return [];
  const scope = await ftsScope(store, space, 'turns');
  if (scope.kind === 'small') return rankedHere(store, space, 'turns', selective, scope, clauses, limit);
  // Filters cut candidates after the LIMIT, so filtered searches look further down the list.
  const inner = Math.ceil((clauses.length > 1 ? limit * 4 : limit) * scope.spread);
  const text = `select t.id as id, f.score as score from (select rowid, -rank as score from turns_fts where turns_fts match ? order by rank limit ?) f cross join turns t on t.id = f.rowid${where(clauses)} order by f.score desc limit ?`;
  return select<Scored>(store, text, [scope.match(match), inner, ...params(clauses), limit]);
}

export async function lexicalMemories(store: Store, space: Space, terms: string[], clauses: Clause[], limit: number): Promise<Scored[]> {
  if (terms.length === 0) return [];
  if (!ftsOn(store)) return likeScored(store, 'memories', terms, clauses, limit);
  const selective = await selectiveTerms(store, space, 'memories', terms);
  const match = ftsAny(selective);
  if (!match) return [];
  const scope = await ftsScope(store, space, 'memories');
  if (scope.kind === 'small') return rankedHere(store, space, 'memories', selective, scope, clauses, limit);
  const inner = Math.ceil(limit * 2 * scope.spread); // status/kind filters always apply
  const text = `select m.id as id, f.score as score from (select rowid, -rank as score from memories_fts where memories_fts match ? order by rank limit ?) f cross join memories m on m.id = f.rowid${where(clauses)} order by f.score desc limit ?`;
  return select<Scored>(store, text, [scope.match(match), inner, ...params(clauses), limit]);
}

/** Turns the clauses select, oldest first, unscored: the turns on a date a query names. */
export function turnsWhere(store: Store, clauses: Clause[], limit: number): Promise<Scored[]> {
  const text = `select t.id as id, 0 as score from turns t${where(clauses)} order by t.at, t.id limit ?`;
  return select<Scored>(store, text, [...params(clauses), limit]);
}

export type { Clause };
