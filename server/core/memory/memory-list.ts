// Listing memories with filters and sorts; the text filter uses the store's text index (text-index/text-index.ts).
import { and, count, desc, eq, isNull, not, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { memories, memoryRelations } from '../../../drizzle/schema.ts';
import { MEMORY_KINDS, MEMORY_LAYERS, MEMORY_STATUSES } from '../../../drizzle/vocabulary.ts';
import { MEMORY_SORTS } from '../kernel/vocabulary.ts';
import { memoryRows, type MemoryRow } from './memories.ts';
import { DEFAULT_SPACE, spaceClause, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import { indexTokens } from '../text/text.ts';
import { textIndexOf } from '../text-index/text-index.ts';
import { parseInput } from '../kernel/validation.ts';

export type MemorySort = (typeof MEMORY_SORTS)[number];

export const listMemoriesSchema = z.object({
  layer: z.enum(MEMORY_LAYERS).nullish(),
  kind: z.enum(MEMORY_KINDS).nullish(),
  /** Defaults to active; archived rows are only listed when asked for. */
  status: z.enum(MEMORY_STATUSES).nullish(),
  /** true: only memories replaced by a newer one (a conflict or a correction); false: only the others. */
  superseded: z.boolean().nullish(),
  tag: z.string().trim().min(1).nullish(),
  q: z.string().max(10_000).nullish(),
  sort: z.enum(MEMORY_SORTS).default('score'),
  limit: z.number().int().min(1).max(1000).default(50),
  offset: z.number().int().min(0).default(0),
});
export type ListMemoriesInput = z.input<typeof listMemoriesSchema>;

const FTS_CANDIDATES = 5000;

/**
 * Ids of the user's memories holding every word of `text`, by the store's text index (FTS5, the
 * tsvector on Postgres, or LIKE): its subquery, the best (or newest) 5000, as a drizzle condition.
 */
export function memoryIdsMatching(store: Store, space: Space, text: string): SQL {
  const words = [...new Set(indexTokens(text))].slice(0, 64);
  const source = textIndexOf(store).matching(store, space, {
    table: 'memories',
    words,
    join: 'all',
    limit: FTS_CANDIDATES,
    order: 'best',
  });
  if (!source) return sql`1 = 0`;
  // The subquery's `?` are its parameters, in order (its text has no other).
  const parts = source.sql.split('?');
  const chunks: SQL[] = [sql.raw(parts[0]!)];
  source.params.forEach((param, i) => chunks.push(sql`${param}`, sql.raw(parts[i + 1]!)));
  return sql`${memories.id} in (${sql.join(chunks)})`;
}

/** A newer memory replaced this one (memory_relations_to serves the lookup). */
const isSuperseded = sql`exists (select 1 from ${memoryRelations} where ${memoryRelations.toId} = ${memories.id} and ${memoryRelations.kind} = 'supersedes')`;

/** The memories this space sees (see visibleIn): an agent's own and the user's shared ones. */
export const inSpace = (space: Space) =>
  and(
    eq(memories.userId, space.userId),
    space.agentId === null ? undefined : or(isNull(memories.agentId), eq(memories.agentId, space.agentId)),
  );

export async function listMemories(
  store: Store,
  space: Space,
  input: ListMemoriesInput = {},
): Promise<{ rows: MemoryRow[]; total: number }> {
  const filter = parseInput(listMemoriesSchema, input);
  const where = and(
    inSpace(space),
    eq(memories.status, filter.status ?? 'active'),
    filter.layer ? eq(memories.layer, filter.layer) : undefined,
    filter.kind ? eq(memories.kind, filter.kind) : undefined,
    filter.superseded == null ? undefined : filter.superseded ? isSuperseded : not(isSuperseded),
    filter.tag ? sql`exists (select 1 from sm_texts(${memories.tags}) where value = ${filter.tag})` : undefined,
    filter.q?.trim() ? memoryIdsMatching(store, space, filter.q) : undefined,
  );
  const order = {
    score: [desc(memories.score), desc(memories.id)],
    recent: [desc(memories.lastSeenAt), desc(memories.id)],
    hits: [desc(memories.hits), desc(memories.score), desc(memories.id)],
  }[filter.sort];
  const rows = await store.db
    .select()
    .from(memories)
    .where(where)
    .orderBy(...order)
    .limit(filter.limit)
    .offset(filter.offset);
  const total = (await store.db.select({ n: count() }).from(memories).where(where).get())!.n;
  return { rows, total };
}

// Read backwards in index order (memories_status_layer_score). Raw rows (kernel/rows.ts): context reads
// two pages of these for every request, and drizzle's mapping of each row cost more than the read.
const TOP_MEMORIES = `select ${memoryRows.columns} from memories m where m.status = 'active' and m.layer = ? and ${spaceClause(DEFAULT_SPACE, 'm').sql}
  order by m.score desc, m.id desc limit ?`;

/** A space's top memories of a layer by stored score (refreshed on write and by GC), ties newest first. */
export async function topMemories(
  store: Store,
  space: Space,
  layer: (typeof MEMORY_LAYERS)[number],
  limit: number,
): Promise<MemoryRow[]> {
  const rows = await store.sql.values(TOP_MEMORIES, [layer, ...(spaceClause(space, 'm').params as SqlParam[]), limit]);
  return rows.map((raw) => memoryRows.decode(raw));
}
