// The entity registry (docs/architecture.md#entities): one row per real-world thing.
// A mention resolves by canonical name + type, then by alias, then (people only) by first
// name; otherwise it creates the entity. Links to turns and memories live in junction tables;
// mention_count is the number of those links, so it moves only when a link is added or removed.
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import { entities } from '../../../drizzle/schema.ts';
import { entityKey, EntityType, NAME_TYPES, type NerEntity } from './types.ts';
import { rowCodec } from '../kernel/rows.ts';
import type { Space } from '../kernel/space.ts';
import { NEW_ROWS, noted, prepared, publish, type Store } from '../kernel/store.ts';

export type EntityRow = typeof entities.$inferSelect;
/** What a provider found, or a speaker's name: enough to find or create the entity. */
export type Mention = Pick<NerEntity, 'name' | 'type'> & { entityId?: number };
export type Owner = { turnId: number } | { memoryId: number };

/** An entity keeps at most this many aliases (surface forms are many; lookups need few). */
const MAX_ALIASES = 20;

const entityRows = rowCodec(entities);

const BY_KEY_SQL = `select ${entityRows.columns} from entities where user_id = ? and name_key = ? and type = ?`;
const BY_ID_SQL = `select ${entityRows.columns} from entities where id = ? and user_id = ?`;

/**
 * A turn's speaker as a CTE (`speaker`: the person whose key is the speaker's name, if known), so
 * a statement that writes the turn also reads it (turns/turns.ts, Postgres: a round trip saved per
 * turn); parameters: user id, key. Its columns decode with decodeEntity.
 */
export const SPEAKER_ENTITY = `speaker as (select ${entityRows.columns} from entities where user_id = ? and name_key = ? and type = '${EntityType.Person}' limit 1)`;
export const entityColumnCount = entityRows.columns.split(', ').length;
export const decodeEntity = (raw: unknown[]): EntityRow => entityRows.decode(raw);

const byKey = async (store: Store, space: Space, key: string, type: string): Promise<EntityRow | undefined> => {
  const raw = (await store.sql.values(BY_KEY_SQL, [space.userId, key, type]))[0];
  return raw && entityRows.decode(raw);
};

/** An entity of this space's user; another user's counts as none. */
export const entityById = async (store: Store, space: Space, id: number): Promise<EntityRow | undefined> => {
  const raw = (await store.sql.values(BY_ID_SQL, [id, space.userId]))[0];
  return raw && entityRows.decode(raw);
};

/**
 * An entity of `type` (any type when null) with an alias whose key is `key`. A LIKE on the JSON
 * text narrows the scan cheaply (no JSON parsing); the exact key check runs on the rows it lets
 * through. Keys are letters, digits and spaces, so the pattern holds no LIKE wildcard. An ASCII
 * word is compared on lower() (Postgres's LIKE folds no case, and lower() is ASCII-only in SQLite), a
 * non-ASCII one on sm_normalize'd text instead.
 */
export async function byAlias(
  store: Store,
  space: Space,
  key: string,
  type: string | null,
): Promise<EntityRow | undefined> {
  const longest = key.split(' ').sort((a, b) => b.length - a.length)[0];
  if (!longest) return undefined;
  const rows = await prepared(store, 'entity.aliasCandidates', (db) =>
    db
      .select()
      .from(entities)
      .where(
        and(
          eq(entities.userId, sql.placeholder('userId')),
          sql`(cast(${sql.placeholder('type')} as text) is null or ${entities.type} = ${sql.placeholder('type')})`,
          sql`(case when ${sql.placeholder('ascii')} = 1 then lower(${entities.aliases}) like ${sql.placeholder('pattern')} else sm_normalize(${entities.aliases}) like ${sql.placeholder('pattern')} end)`,
        ),
      )
      .orderBy(sql`${entities.mentionCount} desc`, entities.id)
      .limit(50)
      .prepare(),
  ).all({ userId: space.userId, type, ascii: /^[\x00-\x7f]*$/.test(longest) ? 1 : 0, pattern: `%${longest}%` });
  return rows.find((row) => row.aliases.some((alias) => entityKey(alias, row.type) === key));
}

/** People whose canonical name starts with this first name (at most two: enough to see ambiguity). */
export async function peopleByFirstName(store: Store, space: Space, first: string): Promise<EntityRow[]> {
  // A range on name_key uses the (name_key, type) index; " " < "!" so this is "first + space + anything".
  // That holds in byte order, which the backend's byteOrder asks for.
  const nameKey = sql`${entities.nameKey}${sql.raw(store.dialect.statements.byteOrder)}`;
  const range = and(gt(nameKey, sql.placeholder('low')), lt(nameKey, sql.placeholder('high')));
  return prepared(store, 'entity.byFirstName', (db) =>
    db
      .select()
      .from(entities)
      .where(and(eq(entities.userId, sql.placeholder('userId')), range, eq(entities.type, EntityType.Person)))
      .limit(2)
      .prepare(),
  ).all({ userId: space.userId, low: `${first} `, high: `${first}!` });
}

/** Names this short are too ambiguous to be anyone's short form ("Al", "Jo"). */
const MIN_SHORT_FORM = 3;

/** People whose first name starts with `prefix` and is longer: "mel" finds "Melanie" and "Melanie Smith". */
async function peopleByPrefix(store: Store, space: Space, prefix: string): Promise<EntityRow[]> {
  const high = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const nameKey = `name_key${store.dialect.statements.byteOrder}`;
  const range = `${nameKey} > ? and ${nameKey} < ?`;
  const rows = await store.sql.values(
    `select ${entityRows.columns} from entities where user_id = ? and type = ? and ${range} limit 3`,
    [space.userId, EntityType.Person, `${prefix}!`, high],
  );
  return rows.map((raw) => entityRows.decode(raw)).filter((e) => e.nameKey.split(' ')[0]!.length > prefix.length);
}

/**
 * A short form of one known person ("Mel" for "Melanie") is an alias of that person, whichever
 * came first: the short form of a known name joins it; a longer name that a known short form
 * starts ("Melanie" after "Mel") renames that entity and keeps the short form as an alias.
 * Two candidates: no guess.
 */
async function shortFormOf(store: Store, space: Space, key: string, name: string): Promise<EntityRow | null> {
  if (key.length >= MIN_SHORT_FORM) {
    const longer = await peopleByPrefix(store, space, key);
    if (longer.length > 0) return longer.length === 1 ? withAlias(store, longer[0]!, name) : null;
  }
  const prefixes = [];
  for (let n = MIN_SHORT_FORM; n < key.length; n++) prefixes.push(key.slice(0, n));
  if (prefixes.length === 0) return null;
  const rows = await store.sql.values(
    `select ${entityRows.columns} from entities where user_id = ? and type = ? and name_key in (${prefixes.map(() => '?').join(', ')}) limit 2`,
    [space.userId, EntityType.Person, ...prefixes],
  );
  if (rows.length !== 1) return null;
  const short = entityRows.decode(rows[0]!);
  // Another person the short form may stand for: no guess.
  if ((await peopleByPrefix(store, space, short.nameKey)).length > 0) return null;
  const aliases = [...short.aliases.filter((a) => entityKey(a, short.type) !== key), short.name].slice(0, MAX_ALIASES);
  return update(store, short, { name, nameKey: key, aliases });
}

async function create(store: Store, space: Space, name: string, key: string, type: string): Promise<EntityRow> {
  const now = store.clock.now();
  const entity = (await prepared(store, 'entity.insert', (db) =>
    db
      .insert(entities)
      .values({
        userId: sql.placeholder('userId'),
        name: sql.placeholder('name'),
        nameKey: sql.placeholder('key'),
        type: sql.placeholder('type'),
        aliases: [],
        mentionCount: 0,
        createdAt: sql.placeholder('now'),
        updatedAt: sql.placeholder('now'),
      } as never)
      .returning()
      .prepare(),
  ).get({ userId: space.userId, name, key, type, now })) as EntityRow;
  publish(store, { type: 'entity', action: 'created', entityId: entity.id, userId: space.userId, at: now });
  return entity;
}

/** Records `surface` as an alias when it is a new way of naming the entity. */
async function withAlias(store: Store, entity: EntityRow, surface: string): Promise<EntityRow> {
  const key = entityKey(surface, entity.type);
  if (!NAME_TYPES.has(entity.type) || !key || key === entity.nameKey) return entity;
  if (entity.aliases.some((a) => entityKey(a, entity.type) === key) || entity.aliases.length >= MAX_ALIASES)
    return entity;
  return update(store, entity, { aliases: [...entity.aliases, surface] });
}

async function update(
  store: Store,
  entity: EntityRow,
  patch: Partial<Pick<EntityRow, 'name' | 'nameKey' | 'aliases'>>,
): Promise<EntityRow> {
  const now = store.clock.now();
  const next = { ...entity, ...patch, updatedAt: now };
  await store.db
    .update(entities)
    .set({ name: next.name, nameKey: next.nameKey, aliases: next.aliases, updatedAt: now })
    .where(eq(entities.id, entity.id))
    .run();
  publish(store, { type: 'entity', action: 'updated', entityId: entity.id, userId: entity.userId, at: now });
  return next;
}

/**
 * Finds or creates the entity a mention names. Case and possessives do not count ("Alice's" is
 * "alice"). A lone first name reaches the one known person with that first name ("Alice" ->
 * "Alice Johnson", recorded as an alias); a full name whose first name is the only known
 * person of that name upgrades it ("Alice" becomes "Alice Johnson", "Alice" its alias), so the
 * order in which the two forms appear does not matter. Several candidates: a new entity.
 */
export async function resolveEntity(
  store: Store,
  space: Space,
  mention: Mention,
  /** Rows of this space the caller read in this transaction, by id (no need to read them again). */
  rows?: ReadonlyMap<number, EntityRow>,
): Promise<{ entity: EntityRow; created: boolean } | null> {
  if (mention.entityId !== undefined) {
    const known = rows?.get(mention.entityId) ?? (await entityById(store, space, mention.entityId));
    if (known) return { entity: await withAlias(store, known, mention.name), created: false };
  }
  const key = entityKey(mention.name, mention.type);
  if (!key) return null;
  const exact = await byKey(store, space, key, mention.type);
  if (exact) return { entity: exact, created: false };
  if (NAME_TYPES.has(mention.type)) {
    const aliased = await byAlias(store, space, key, mention.type);
    if (aliased) return { entity: aliased, created: false };
  }
  if (mention.type === EntityType.Person) {
    const tokens = key.split(' ');
    if (tokens.length === 1) {
      const people = await peopleByFirstName(store, space, key);
      if (people.length === 1) return { entity: await withAlias(store, people[0]!, mention.name), created: false };
      const short = await shortFormOf(store, space, key, mention.name);
      if (short) return { entity: short, created: false };
    } else {
      const firstOnly = await byKey(store, space, tokens[0]!, EntityType.Person);
      if (firstOnly && (await peopleByFirstName(store, space, tokens[0]!)).length === 0) {
        const aliases = [
          ...firstOnly.aliases.filter((a) => entityKey(a, firstOnly.type) !== key),
          firstOnly.name,
        ].slice(0, MAX_ALIASES);
        return {
          entity: await update(store, firstOnly, { name: mention.name, nameKey: key, aliases }),
          created: false,
        };
      }
    }
  }
  return { entity: await create(store, space, mention.name, key, mention.type), created: true };
}

/** Sets an entity's summary (e.g. "User's sister") when it has none yet. */
export async function describeEntity(store: Store, entity: EntityRow, summary: string): Promise<void> {
  if (entity.summary) return;
  const now = store.clock.now();
  await store.sql.run('update entities set summary = ?, updated_at = ? where id = ? and summary is null', [
    summary,
    now,
    entity.id,
  ]);
  publish(store, { type: 'entity', action: 'updated', entityId: entity.id, userId: entity.userId, at: now });
}

const OF_TURN_SQL = `select ${entityRows.columnsOf('entities')} from turn_entities inner join entities on entities.id = turn_entities.entity_id where turn_entities.turn_id = ?`;

/** The entities linked to one turn (one constant statement: the hot path reads it for every extracted memory). */
export async function entitiesOfTurn(store: Store, turnId: number): Promise<EntityRow[]> {
  const rows = await store.sql.values(OF_TURN_SQL, [turnId]);
  return rows.map((raw) => entityRows.decode(raw));
}

const LINK_SQL = {
  // insert ... select: a link to an entity deleted meanwhile (another process) inserts nothing.
  turn: 'insert into turn_entities (turn_id, entity_id) select ?, id from entities where id = ? on conflict do nothing',
  memory:
    'insert into memory_entities (memory_id, entity_id) select ?, id from entities where id = ? on conflict do nothing',
} as const;
const BUMP_SQL = 'update entities set mention_count = mention_count + 1, updated_at = ? where id = ?';
/** Postgres links and counts in one statement (a round trip saved per entity); it changes a row only for a new link. */
const LINK_AND_BUMP_SQL = {
  turn: `with linked as (${LINK_SQL.turn} returning entity_id) update entities set mention_count = mention_count + 1, updated_at = ? where id in (select entity_id from linked)`,
  memory: `with linked as (${LINK_SQL.memory} returning entity_id) update entities set mention_count = mention_count + 1, updated_at = ? where id in (select entity_id from linked)`,
} as const;

/** The links a write made to the rows it inserted, sent with its COMMIT (see linkAndCount). */
const LINKED_NEW_ROWS = 'links to new rows';

/** Links `ownerId` to the entity and counts the mention if the link is new: whether it was. */
async function linkAndCount(
  store: Store,
  kind: 'turn' | 'memory',
  ownerId: number,
  entityId: number,
  now: number,
): Promise<boolean> {
  if (store.dialect.statements.combinesWrites) {
    // A row this write inserted has only the links this write made, so whether a link is new is
    // known without asking, and the statement can travel with the COMMIT (a round trip saved;
    // nothing in addTurn's transaction reads a new row's links back).
    if (noted(store, kind === 'turn' ? NEW_ROWS.turns : NEW_ROWS.memories)?.has(ownerId)) {
      const made = noted(store, LINKED_NEW_ROWS)!;
      const key = `${kind} ${ownerId} ${entityId}`;
      if (made.has(key)) return false;
      made.add(key);
      await store.sql.runAtCommit(LINK_AND_BUMP_SQL[kind], [ownerId, entityId, now]);
      return true;
    }
    return (await store.sql.run(LINK_AND_BUMP_SQL[kind], [ownerId, entityId, now])).changes > 0;
  }
  if ((await store.sql.run(LINK_SQL[kind], [ownerId, entityId])).changes === 0) return false;
  await store.sql.run(BUMP_SQL, [now, entityId]);
  return true;
}

/**
 * Links the mentioned entities to a turn or a memory (creating entities as needed). A new
 * link adds one to the entity's mention_count; linking again is a no-op, so re-running NER on
 * the same text never inflates counts. Returns the linked entities, each once, and how many
 * links are new.
 */
export async function linkEntities(
  store: Store,
  space: Space,
  owner: Owner,
  mentions: Mention[],
  rows?: ReadonlyMap<number, EntityRow>,
): Promise<{ entities: EntityRow[]; added: number }> {
  const isTurn = 'turnId' in owner;
  const ownerId = isTurn ? owner.turnId : owner.memoryId;
  const linked = new Map<number, EntityRow>();
  let added = 0;
  for (const mention of mentions) {
    const resolved = await resolveEntity(store, space, mention, rows);
    if (!resolved || linked.has(resolved.entity.id)) continue;
    const { entity } = resolved;
    const now = store.clock.now();
    if (!(await linkAndCount(store, isTurn ? 'turn' : 'memory', ownerId, entity.id, now))) {
      linked.set(entity.id, entity);
      continue;
    }
    added++;
    linked.set(entity.id, { ...entity, mentionCount: entity.mentionCount + 1, updatedAt: now });
    publish(store, { type: 'entity', action: 'linked', entityId: entity.id, userId: space.userId, at: now, ...owner });
  }
  return { entities: [...linked.values()], added };
}

/**
 * Deletes entities nothing links to any more (after a forget): the registry must not keep a
 * forgotten name. Entities still linked somewhere stay, with their lowered counts.
 */
export async function dropUnlinkedEntities(store: Store, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const dropped = await store.sql.all<{ id: number; userId: string }>(
    `delete from entities where id in (select value from sm_ids(?))
       and not exists (select 1 from turn_entities where entity_id = entities.id)
       and not exists (select 1 from memory_entities where entity_id = entities.id)
     returning id, user_id as userId`,
    [JSON.stringify([...new Set(ids)])],
  );
  const at = store.clock.now();
  for (const { id: entityId, userId } of dropped)
    publish(store, { type: 'entity', action: 'deleted', entityId, userId, at });
  return dropped.map((d) => d.id);
}
