// Reading the entity registry: lookup by id or name, listing, and the memories and turns that
// mention an entity. Batched reads return Maps keyed by the parent id (a parent with no rows is
// absent), so each API DataLoader is one line. Nothing here writes.
import { and, asc, desc, eq, getTableColumns, inArray, lte, gt, or, sql, count, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { entities, memories, memoryEntities, turnEntities, turns } from '../../drizzle/schema.ts';
import { MEMORY_STATUSES } from '../../drizzle/vocabulary.ts';
import { entitiesByIds, entitiesByMemory, entitiesByTurn } from './batch-reads.ts';
import { byAlias, entityById, peopleByFirstName, type EntityRow } from './entities.ts';
import type { MemoryRow } from './memories.ts';
import { entityKey, ENTITY_TYPES, EntityType } from './ner/types.ts';
import { badInput } from './errors.ts';
import { inSpace } from './memory-list.ts';
import type { Space } from './space.ts';
import type { Store } from './store.ts';
import { turnsOf } from './batch-reads.ts';
import { escapeLike } from './text.ts';
import type { TurnRow } from './turns.ts';
import { parseInput } from './validation.ts';

export type { EntityRow };
/** Entities by id; the entities each memory / turn mentions, most mentioned first. */
export { entitiesByIds, entitiesByMemory as entitiesForMemories, entitiesByTurn as entitiesForTurns };

const nameSchema = z.string().trim().min(1, 'must not be empty').max(200);
const typeSchema = z.enum(ENTITY_TYPES as [EntityType, ...EntityType[]], { error: `must be one of ${ENTITY_TYPES.join(', ')}` });

export const findEntitySchema = z
  .strictObject({ id: z.number().int().positive().nullish(), name: nameSchema.nullish(), type: typeSchema.nullish() })
  .refine((v) => (v.id == null) !== (v.name == null), 'give an id, or a name (and optionally a type)');
/** `type` is any string here (GraphQL and the CLI pass text): an unknown one is BAD_USER_INPUT. */
export type FindEntityInput = Omit<z.input<typeof findEntitySchema>, 'type'> & { type?: string | null };

/** The type a bare name suggests when none is given: "@bob" a mention, "#tag" a hashtag... */
function impliedType(name: string): EntityType | null {
  if (/^@\w/.test(name)) return EntityType.Mention;
  if (/^#\p{L}/u.test(name)) return EntityType.Hashtag;
  if (/^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(name)) return EntityType.Email;
  if (/^(?:https?:\/\/|www\.)/i.test(name)) return EntityType.Url;
  return null;
}

/**
 * One entity by id, or by name as a person would say it: case and possessives do not count,
 * an alias works ("Alice" when "Alice" is an alias of "Alice Johnson"), and so does a first
 * name that only one person has. Several entities share the name (Paris the city, Paris the
 * person): the most mentioned wins unless `type` says which. Undefined when none matches.
 */
export function findEntity(store: Store, space: Space, input: FindEntityInput): EntityRow | undefined {
  const target = parseInput(findEntitySchema, input);
  if (target.id != null) return entityById(store, space, target.id);
  const name = target.name!;
  const type = target.type ?? impliedType(name);
  const stripped = type === EntityType.Mention || type === EntityType.Hashtag ? name.replace(/^[@#]+/, '') : name;
  const key = entityKey(stripped, type ?? EntityType.Person);
  if (!key) throw badInput('name: has nothing to look up (no letters or digits)');
  const exact = store.db
    .select()
    .from(entities)
    .where(and(eq(entities.userId, space.userId), eq(entities.nameKey, key), type ? eq(entities.type, type) : undefined))
    .orderBy(desc(entities.mentionCount), asc(entities.id))
    .get();
  if (exact) return exact;
  const aliased = byAlias(store, space, key, type);
  if (aliased) return aliased;
  if ((type === null || type === EntityType.Person) && !key.includes(' ')) {
    const people = peopleByFirstName(store, space, key);
    if (people.length === 1) return people[0];
  }
  return undefined;
}

export const listEntitiesSchema = z.object({
  q: z.string().trim().max(200).nullish(),
  type: typeSchema.nullish(),
  limit: z.number().int().min(1).max(500).default(50),
  offset: z.number().int().min(0).default(0),
});
export type ListEntitiesInput = Omit<z.input<typeof listEntitiesSchema>, 'type'> & { type?: string | null };

/** Entities, most mentioned first; `q` matches inside names and aliases, case-insensitively. */
export function listEntities(store: Store, space: Space, input: ListEntitiesInput = {}): { rows: EntityRow[]; total: number } {
  const { q, type, limit, offset } = parseInput(listEntitiesSchema, input);
  const conditions: (SQL | undefined)[] = [eq(entities.userId, space.userId), type ? eq(entities.type, type) : undefined];
  const key = q ? entityKey(q, type ?? EntityType.Other) || q.toLowerCase() : null;
  if (key) {
    const pattern = `%${escapeLike(key)}%`;
    conditions.push(or(sql`${entities.nameKey} like ${pattern} escape '\\'`, sql`sm_normalize(${entities.aliases}) like ${pattern} escape '\\'`));
  }
  const where = and(...conditions);
  const rows = store.db.select().from(entities).where(where).orderBy(desc(entities.mentionCount), asc(entities.nameKey), asc(entities.id)).limit(limit).offset(offset).all();
  const total = store.db.select({ n: count() }).from(entities).where(where).get()!.n;
  return { rows, total };
}

export const pageSchema = z.object({
  limit: z.number().int().min(1).max(500).default(20),
  offset: z.number().int().min(0).default(0),
});
export const memoryPageSchema = pageSchema.extend({
  /** Which memories: active (default), archived, or all. */
  status: z.enum([...MEMORY_STATUSES, 'all']).default('active'),
});
export type EntityPage = z.input<typeof pageSchema>;
export type EntityMemoryPage = z.input<typeof memoryPageSchema>;
export type Page<T> = { rows: T[]; total: number };

const idsSchema = z.array(z.number().int().positive()).max(10_000);

/**
 * The memories mentioning each entity, most recent first (event time, then id), one page per
 * entity, with each entity's total: one statement for a whole set of entities.
 */
export function memoriesByEntity(store: Store, space: Space, entityIds: readonly number[], page: EntityMemoryPage = {}): Map<number, Page<MemoryRow>> {
  const ids = parseInput(idsSchema, [...entityIds]);
  const { limit, offset, status } = parseInput(memoryPageSchema, page);
  if (ids.length === 0) return new Map();
  const ranked = store.db
    .select({
      ...getTableColumns(memories),
      ownerId: sql<number>`${memoryEntities.entityId}`.as('owner_id'),
      rank: sql<number>`row_number() over (partition by ${memoryEntities.entityId} order by ${memories.eventAt} desc, ${memories.id} desc)`.as('rank'),
    })
    .from(memoryEntities)
    .innerJoin(memories, eq(memories.id, memoryEntities.memoryId))
    .where(and(inArray(memoryEntities.entityId, ids), inSpace(space), status === 'all' ? undefined : eq(memories.status, status)))
    .as('ranked');
  const rows = store.db.select().from(ranked).where(and(gt(ranked.rank, offset), lte(ranked.rank, offset + limit))).orderBy(asc(ranked.rank)).all();
  const totals = store.db
    .select({ id: memoryEntities.entityId, n: count() })
    .from(memoryEntities)
    .innerJoin(memories, eq(memories.id, memoryEntities.memoryId))
    .where(and(inArray(memoryEntities.entityId, ids), inSpace(space), status === 'all' ? undefined : eq(memories.status, status)))
    .groupBy(memoryEntities.entityId)
    .all();
  return pages(rows, totals);
}

/** The turns mentioning each entity, most recent first, one page per entity with its total. */
export function turnsByEntity(store: Store, space: Space, entityIds: readonly number[], page: EntityPage = {}): Map<number, Page<TurnRow>> {
  const ids = parseInput(idsSchema, [...entityIds]);
  const { limit, offset } = parseInput(pageSchema, page);
  if (ids.length === 0) return new Map();
  const ranked = store.db
    .select({
      ...getTableColumns(turns),
      ownerId: sql<number>`${turnEntities.entityId}`.as('owner_id'),
      rank: sql<number>`row_number() over (partition by ${turnEntities.entityId} order by ${turns.at} desc, ${turns.id} desc)`.as('rank'),
    })
    .from(turnEntities)
    .innerJoin(turns, eq(turns.id, turnEntities.turnId))
    .where(and(inArray(turnEntities.entityId, ids), turnsOf(space)))
    .as('ranked');
  const rows = store.db.select().from(ranked).where(and(gt(ranked.rank, offset), lte(ranked.rank, offset + limit))).orderBy(asc(ranked.rank)).all();
  const totals = store.db
    .select({ id: turnEntities.entityId, n: count() })
    .from(turnEntities)
    .innerJoin(turns, eq(turns.id, turnEntities.turnId))
    .where(and(inArray(turnEntities.entityId, ids), turnsOf(space)))
    .groupBy(turnEntities.entityId)
    .all();
  return pages(rows, totals);
}

/** Groups ranked rows into pages; an entity past its last page still gets its total. */
function pages<T extends { ownerId: number; rank: number }>(rows: T[], totals: { id: number; n: number }[]) {
  const byEntity = new Map<number, Page<Omit<T, 'ownerId' | 'rank'>>>(totals.map((t) => [t.id, { rows: [], total: t.n }]));
  for (const { ownerId, rank: _rank, ...row } of rows) byEntity.get(ownerId)?.rows.push(row);
  return byEntity;
}

/** One entity's memories (a page and the total). */
export function memoriesForEntity(store: Store, space: Space, entityId: number, page: EntityMemoryPage = {}): Page<MemoryRow> {
  return memoriesByEntity(store, space, [entityId], page).get(entityId) ?? { rows: [], total: 0 };
}

/** One entity's turns (a page and the total). */
export function turnsForEntity(store: Store, space: Space, entityId: number, page: EntityPage = {}): Page<TurnRow> {
  return turnsByEntity(store, space, [entityId], page).get(entityId) ?? { rows: [], total: 0 };
}
