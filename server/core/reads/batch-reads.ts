// Batch reads for the API's DataLoaders: one statement for a whole set of parents, keyed by id.
// Every function resolves to a Map (a parent with no rows is simply absent) and never writes.
import { and, asc, count, desc, eq, getTableColumns, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import {
  entities,
  memoryEntities,
  memoryRelations,
  memorySources,
  turnEntities,
  turns,
} from '../../../drizzle/schema.ts';
import { groupBy } from '../kernel/group-by.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import type { TurnRow } from '../turns/turns.ts';

export type EntityRow = typeof entities.$inferSelect;
export type SourceRow = typeof memorySources.$inferSelect;
export type RelationRow = typeof memoryRelations.$inferSelect;

/** Provenance links (memory -> turn) of each memory, oldest first. */
export async function sourcesByMemory(store: Store, memoryIds: readonly number[]): Promise<Map<number, SourceRow[]>> {
  const rows = await store.db
    .select()
    .from(memorySources)
    .where(inArray(memorySources.memoryId, [...memoryIds]))
    .orderBy(asc(memorySources.at), asc(memorySources.turnId))
    .all();
  return groupBy(rows, (row) => row.memoryId);
}

/** Memory -> memory relations touching each memory, on either side (supersedes, derived_from). */
export async function relationsByMemory(
  store: Store,
  memoryIds: readonly number[],
): Promise<Map<number, RelationRow[]>> {
  const ids = [...memoryIds];
  const rows = await store.db
    .select()
    .from(memoryRelations)
    .where(or(inArray(memoryRelations.fromId, ids), inArray(memoryRelations.toId, ids)))
    .orderBy(asc(memoryRelations.at))
    .all();
  const wanted = new Set(ids);
  const byMemory = new Map<number, RelationRow[]>();
  for (const row of rows) {
    for (const id of new Set([row.fromId, row.toId])) {
      if (!wanted.has(id)) continue;
      const list = byMemory.get(id);
      if (list) list.push(row);
      else byMemory.set(id, [row]);
    }
  }
  return byMemory;
}

export async function entitiesByIds(store: Store, ids: readonly number[]): Promise<Map<number, EntityRow>> {
  const rows = await store.db
    .select()
    .from(entities)
    .where(inArray(entities.id, [...ids]))
    .all();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The junction from memories, or from turns, to the entities they mention. */
export const memoryLinks = { table: memoryEntities, owner: memoryEntities.memoryId, entity: memoryEntities.entityId };
export const turnLinks = { table: turnEntities, owner: turnEntities.turnId, entity: turnEntities.entityId };
export type EntityLinks = typeof memoryLinks | typeof turnLinks;

/** Entities mentioned by each memory, most mentioned first. */
export const entitiesByMemory = (store: Store, memoryIds: readonly number[]) =>
  entitiesByOwner(store, memoryLinks, memoryIds);

/** Entities mentioned by each turn, most mentioned first. */
export const entitiesByTurn = (store: Store, turnIds: readonly number[]) => entitiesByOwner(store, turnLinks, turnIds);

async function entitiesByOwner(
  store: Store,
  links: EntityLinks,
  ownerIds: readonly number[],
): Promise<Map<number, EntityRow[]>> {
  const rows = await store.db
    .select({ ownerId: links.owner, entity: getTableColumns(entities) })
    .from(links.table)
    .innerJoin(entities, eq(entities.id, links.entity))
    .where(inArray(links.owner, [...ownerIds]))
    .orderBy(desc(entities.mentionCount), asc(entities.id))
    .all();
  const grouped = groupBy(rows, (row) => row.ownerId);
  return new Map([...grouped].map(([id, list]) => [id, list.map((row) => row.entity)]));
}

/** Of the turns this space sees, how many each of its user's sessions has (sessions without turns are absent). */
export async function turnCountsBySession(
  store: Store,
  space: Space,
  sessionIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await store.db
    .select({ sessionId: turns.sessionId, n: count() })
    .from(turns)
    .where(and(turnsOf(space), inArray(turns.sessionId, [...sessionIds])))
    .groupBy(turns.sessionId)
    .all();
  return new Map(rows.map((row) => [row.sessionId, row.n]));
}

/** The turns this space sees: its user's, and with an agent, that agent's and the shared ones. */
export const turnsOf = (space: Space) =>
  and(
    eq(turns.userId, space.userId),
    space.agentId === null ? undefined : or(isNull(turns.agentId), eq(turns.agentId, space.agentId)),
  );

/** A position in a session's history: turns are ordered by (at, id). */
export type TurnPosition = { at: number; id: number };

/**
 * The `last` turns of a session before `before` (exclusive), oldest first, and whether
 * older turns remain. Keyset paging: new turns arriving never shift a page.
 */
export async function turnsBefore(
  store: Store,
  space: Space,
  sessionId: string,
  last: number,
  before?: TurnPosition | null,
) {
  const rows = await store.db
    .select()
    .from(turns)
    .where(
      and(
        turnsOf(space),
        eq(turns.sessionId, sessionId),
        before ? sql`(${turns.at}, ${turns.id}) < (${before.at}, ${before.id})` : undefined,
      ),
    )
    .orderBy(desc(turns.at), desc(turns.id))
    .limit(last + 1)
    .all();
  return { rows: rows.slice(0, last).reverse(), hasPrevious: rows.length > last };
}

/** The last `last` turns of each of the user's sessions, oldest first, in one statement (a window function). */
export async function recentTurnsBySession(
  store: Store,
  space: Space,
  sessionIds: readonly string[],
  last: number,
): Promise<Map<string, TurnRow[]>> {
  const ranked = store.db
    .select({
      ...getTableColumns(turns),
      rank: sql<number>`row_number() over (partition by ${turns.sessionId} order by ${turns.at} desc, ${turns.id} desc)`.as(
        'rank',
      ),
    })
    .from(turns)
    .where(and(turnsOf(space), inArray(turns.sessionId, [...sessionIds])))
    .as('ranked');
  const rows = await store.db
    .select()
    .from(ranked)
    .where(lte(ranked.rank, last))
    .orderBy(asc(ranked.at), asc(ranked.id))
    .all();
  return groupBy(
    rows.map(({ rank: _rank, ...turn }) => turn as TurnRow),
    (turn) => turn.sessionId,
  );
}
