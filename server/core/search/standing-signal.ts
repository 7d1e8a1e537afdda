// Turns in which the user stated a standing instruction, a preference or a fact about themselves
// (docs/memory-kinds.md), or that a pinned memory came from. Such a turn matters whenever its
// topic comes up, so being one is a ranker feature, and one whose memory shares a word with the
// query is scored whatever its BM25 rank.
import { STANDING_CONDITION } from '../../../drizzle/vocabulary.ts';
import { DEFAULT_SPACE, spaceClause, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import type { AnalyzedQuery } from '../text/query.ts';
import { cachedStems, stem, wordCache } from '../text/stems.ts';

/** How many standing memories a search looks through (the newest stated first). */
const READ_LIMIT = 500;

/** Reads the memories_standing partial index, as the context's standing sections do. */
export const STANDING_SOURCE_ROWS = `select m.id as id, s.turn_id as turnId, m.content as content from memories m
  join memory_sources s on s.memory_id = m.id
  where ${spaceClause(DEFAULT_SPACE, 'm').sql} and m.status = 'active' and (${STANDING_CONDITION})
  order by m.pinned desc, m.event_at desc, m.access_count desc, m.id desc limit ${READ_LIMIT}`;

export type StandingTurns = {
  /** Every source turn of a standing memory: 1. */
  sources: Map<number, number>;
  /** The source turns of the standing memories that share a word (stemmed) with the query. */
  matching: number[];
};

export async function standingTurns(store: Store, space: Space, query: AnalyzedQuery): Promise<StandingTurns> {
  const rows = await store.sql.all<{ id: number; turnId: number; content: string }>(
    STANDING_SOURCE_ROWS,
    spaceClause(space, 'm').params as SqlParam[],
  );
  const terms = new Set(query.terms.map(stem));
  const cache = wordCache(store, 'memories');
  const sources = new Map<number, number>();
  const matching = new Set<number>();
  for (const row of rows) {
    sources.set(row.turnId, 1);
    if (cachedStems(cache, row.id, row.content).some((s) => terms.has(s))) matching.add(row.turnId);
  }
  return { sources, matching: [...matching] };
}
