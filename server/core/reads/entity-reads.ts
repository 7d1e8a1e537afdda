// Reading the entity registry: lookup by id or name, listing, and the memories and turns that
// mention an entity. Batched reads resolve to Maps keyed by the parent id (a parent with no rows is
// absent), so each API DataLoader is one line. Nothing here writes.
import { and, asc, desc, eq, getTableColumns, inArray, lte, gt, or, sql, count, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { entities, memories, turns } from '../../../drizzle/schema.ts';
import { MEMORY_STATUSES } from '../../../drizzle/vocabulary.ts';
import {
  type EntityLinks,
  entitiesByIds,
  entitiesByMemory,
  entitiesByTurn,
  memoryLinks,
  turnLinks,
  turnsOf,
} from './batch-reads.ts';
import { byAlias, entityById, peopleByFirstName, type EntityRow } from '../entities/entities.ts';
import type { MemoryRow } from '../memory/memories.ts';
import { entityKey, ENTITY_TYPES, EntityType } from '../entities/types.ts';
import { badInput } from '../kernel/errors.ts';
import { inSpace } from '../memory/memory-list.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { escapeLike } from '../text/text.ts';
import type { TurnRow } from '../turns/turns.ts';
import { parseInput } from '../kernel/validation.ts';

export type { EntityRow };
/** Entities by id; the entities each memory / turn mentions, most mentioned first. */
export { entitiesByIds, entitiesByMemory as entitiesForMemories, entitiesByTurn as entitiesForTurns };

const nameSchema = z.string().trim().min(1, 'must not be empty').max(200);
const typeSchema = z.enum(ENTITY_TYPES as [EntityType, ...EntityType[]], {
  error: `must be one of ${ENTITY_TYPES.join(', ')}`,
});

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
export async function findEntity(store: Store, space: Space, input: FindEntityInput): Promise<EntityRow | undefined> {
  const target = parseInput(findEntitySchema, input);
  if (target.id != null) return entityById(store, space, target.id);
  const name = target.name!;
  const type = target.type ?? impliedType(name);
  const stripped = type === EntityType.Mention || type === EntityType.Hashtag ? name.replace(/^[@#]+/, '') : name;
  const key = entityKey(stripped, type ?? EntityType.Person);
  if (!key) throw badInput('name: has nothing to look up (no letters or digits)');
  const exact = await store.db
    .select()
    .from(entities)
    .where(
      and(eq(entities.userId, space.userId), eq(entities.nameKey, key), type ? eq(entities.type, type) : undefined),
    )
    .orderBy(desc(entities.mentionCount), asc(entities.id))
    .get();
  if (exact) return exact;
  const aliased = await byAlias(store, space, key, type);
  if (aliased) return aliased;
  if ((type === null || type === EntityType.Person) && !key.includes(' ')) {
    const people = await peopleByFirstName(store, space, key);
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
export async function listEntities(
  store: Store,
  space: Space,
  input: ListEntitiesInput = {},
): Promise<{ rows: EntityRow[]; total: number }> {
  const { q, type, limit, offset } = parseInput(listEntitiesSchema, input);
  const conditions: (SQL | undefined)[] = [
    eq(entities.userId, space.userId),
    type ? eq(entities.type, type) : undefined,
  ];
  const key = q ? entityKey(q, type ?? EntityType.Other) || q.toLowerCase() : null;
  if (key) {
    const pattern = `%${escapeLike(key)}%`;
    conditions.push(
      or(
        sql`${entities.nameKey} like ${pattern} escape '\\'`,
        sql`sm_normalize(${entities.aliases}) like ${pattern} escape '\\'`,
      ),
    );
  }
  const where = and(...conditions);
  const rows = await store.db
    .select()
    .from(entities)
    .where(where)
    .orderBy(desc(entities.mentionCount), asc(entities.nameKey), asc(entities.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = (await store.db.select({ n: count() }).from(entities).where(where).get())!.n;
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
export async function memoriesByEntity(
  store: Store,
  space: Space,
  entityIds: readonly number[],
  page: EntityMemoryPage = {},
): Promise<Map<number, Page<MemoryRow>>> {
  const { limit, offset, status } = parseInput(memoryPageSchema, page);
  const filter = and(inSpace(space), status === 'all' ? undefined : eq(memories.status, status));
  return pagesByEntity<MemoryRow>(store, {
    entityIds,
    links: memoryLinks,
    mentioner: memories,
    when: memories.eventAt,
    filter,
    limit,
    offset,
  });
}

/** The turns mentioning each entity, most recent first, one page per entity with its total. */
export async function turnsByEntity(
  store: Store,
  space: Space,
  entityIds: readonly number[],
  page: EntityPage = {},
): Promise<Map<number, Page<TurnRow>>> {
  const { limit, offset } = parseInput(pageSchema, page);
  return pagesByEntity<TurnRow>(store, {
    entityIds,
    links: turnLinks,
    mentioner: turns,
    when: turns.at,
    filter: turnsOf(space),
    limit,
    offset,
  });
}

type PagesQuery = {
  entityIds: readonly number[];
  links: EntityLinks;
  /** The memories or turns table, joined to the entities through `links`, newest `when` first. */
  mentioner: typeof memories | typeof turns;
  when: typeof memories.eventAt | typeof turns.at;
  filter: SQL | undefined;
  limit: number;
  offset: number;
};

/** One page of mentioning rows per entity (a window function) and each entity's total. */
async function pagesByEntity<Row>(store: Store, q: PagesQuery): Promise<Map<number, Page<Row>>> {
  const ids = parseInput(idsSchema, [...q.entityIds]);
  if (ids.length === 0) return new Map();
  const where = and(inArray(q.links.entity, ids), q.filter);
  const ranked = store.db
    .select({
      ...getTableColumns(q.mentioner),
      ownerId: sql<number>`${q.links.entity}`.as('owner_id'),
      rank: sql<number>`row_number() over (partition by ${q.links.entity} order by ${q.when} desc, ${q.mentioner.id} desc)`.as(
        'rank',
      ),
    })
    .from(q.links.table)
    .innerJoin(q.mentioner, eq(q.mentioner.id, q.links.owner))
    .where(where)
    .as('ranked');
  const rows = await store.db
    .select()
    .from(ranked)
    .where(and(gt(ranked.rank, q.offset), lte(ranked.rank, q.offset + q.limit)))
    .orderBy(asc(ranked.rank))
    .all();
  const totals = await store.db
    .select({ id: q.links.entity, n: count() })
    .from(q.links.table)
    .innerJoin(q.mentioner, eq(q.mentioner.id, q.links.owner))
    .where(where)
    .groupBy(q.links.entity)
    .all();
  return pages(rows as unknown as (Row & { ownerId: number; rank: number })[], totals) as Map<number, Page<Row>>;
}

/** Groups ranked rows into pages; an entity past its last page still gets its total. */
function pages<T extends { ownerId: number; rank: number }>(rows: T[], totals: { id: number; n: number }[]) {
  const byEntity = new Map<number, Page<Omit<T, 'ownerId' | 'rank'>>>(
    totals.map((t) => [t.id, { rows: [], total: t.n }]),
  );
  for (const { ownerId, rank: _rank, ...row } of rows) byEntity.get(ownerId)?.rows.push(row);
  return byEntity;
}

/** One entity's memories (a page and the total). */
export async function memoriesForEntity(
  store: Store,
  space: Space,
  entityId: number,
  page: EntityMemoryPage = {},
): Promise<Page<MemoryRow>> {
  return (await memoriesByEntity(store, space, [entityId], page)).get(entityId) ?? { rows: [], total: 0 };
}

/** One entity's turns (a page and the total). */
export async function turnsForEntity(
  store: Store,
  space: Space,
  entityId: number,
  page: EntityPage = {},
): Promise<Page<TurnRow>> {
  return (await turnsByEntity(store, space, [entityId], page)).get(entityId) ?? { rows: [], total: 0 };
}

/** Two entities mentioned together, and how often: in how many active memories, in how many turns. */
export type CoMention = { sourceId: number; targetId: number; memories: number; turns: number };
export type EntityGraph = { nodes: EntityRow[]; links: CoMention[] };

export const entityGraphSchema = z.object({
  /** How many entities: the most mentioned ones, or the neighbours of `around` most often mentioned with it. */
  first: z.number().int().min(1).max(200).default(30),
  /** One entity and the entities mentioned with it, instead of the most mentioned overall. */
  around: z.number().int().positive().nullish(),
});
export type EntityGraphInput = z.input<typeof entityGraphSchema>;

/** Co-mention counts of every pair among `ids` (or, with `center`, of the pairs that include it), per pair with the smaller id first. */
async function coMentions(store: Store, space: Space, ids: number[], center: number | null): Promise<CoMention[]> {
  if (ids.length < 2 && center === null) return [];
  const pairs = new Map<string, CoMention>();
  const add = (rows: [a: number, b: number, n: number][], key: 'memories' | 'turns') => {
    for (const [a, b, n] of rows) {
      const [sourceId, targetId] = a < b ? [a, b] : [b, a];
      const id = `${sourceId}:${targetId}`;
      const pair = pairs.get(id) ?? { sourceId, targetId, memories: 0, turns: 0 };
      pair[key] += n;
      pairs.set(id, pair);
    }
  };
  // a is one of the asked entities (or the center); b another entity in the same memory / turn.
  const left = center === null ? ids : [center];
  const among =
    center === null
      ? sql`and b.entity_id in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )}) and a.entity_id < b.entity_id`
      : sql``;
  const from = sql.join(
    left.map((id) => sql`${id}`),
    sql`, `,
  );
  const memoryPairs = await store.db.values<[number, number, number]>(sql`
    select a.entity_id as a, b.entity_id as b, count(*) as n
    from memory_entities a
    join memory_entities b on b.memory_id = a.memory_id and b.entity_id <> a.entity_id
    join ${memories} on ${memories.id} = a.memory_id
    where a.entity_id in (${from}) ${among} and ${inSpace(space)} and ${memories.status} = 'active'
    group by a.entity_id, b.entity_id`);
  add(memoryPairs, 'memories');
  const turnPairs = await store.db.values<[number, number, number]>(sql`
    select a.entity_id as a, b.entity_id as b, count(*) as n
    from turn_entities a
    join turn_entities b on b.turn_id = a.turn_id and b.entity_id <> a.entity_id
    join ${turns} on ${turns.id} = a.turn_id
    where a.entity_id in (${from}) ${among} and ${turnsOf(space)}
    group by a.entity_id, b.entity_id`);
  add(turnPairs, 'turns');
  return [...pairs.values()];
}

const weight = (link: CoMention) => link.memories + link.turns;

/**
 * The co-mention graph: entities as nodes, and a link between two entities mentioned in the same
 * active memory or turn, weighted by how often. Without `around`, the `first` most mentioned
 * entities and the links among them; with it, that entity and the `first` entities most often
 * mentioned with it (and the links among those too). Heaviest links first.
 */
export async function entityGraph(store: Store, space: Space, input: EntityGraphInput = {}): Promise<EntityGraph> {
  const { first, around } = parseInput(entityGraphSchema, input);
  let nodes: EntityRow[];
  if (around == null) {
    nodes = (await listEntities(store, space, { limit: first })).rows;
  } else {
    const center = await entityById(store, space, around);
    if (!center) return { nodes: [], links: [] };
    const neighbours = (await coMentions(store, space, [], center.id))
      .sort((x, y) => weight(y) - weight(x) || x.sourceId + x.targetId - (y.sourceId + y.targetId))
      .slice(0, first)
      .map((link) => (link.sourceId === center.id ? link.targetId : link.sourceId));
    const byId = await entitiesByIds(store, neighbours);
    nodes = [center, ...neighbours.flatMap((id) => byId.get(id) ?? [])];
  }
  const links = (
    await coMentions(
      store,
      space,
      nodes.map((n) => n.id),
      null,
    )
  ).sort((x, y) => weight(y) - weight(x) || x.sourceId - y.sourceId || x.targetId - y.targetId);
  return { nodes, links };
}
