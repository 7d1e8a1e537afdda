// The Postgres mirror of drizzle/schema.ts (docs/architecture.md#store-port): the same tables, column names, keys, indexes and
// checks, so the SQL the domain writes for SQLite (drizzle's SQLite builder over schema.ts, and
// raw SQL with `?` parameters) runs here unchanged. Migrations in drizzle/pg-migrations are
// generated from this file by `npm run db:generate`; test/storage/postgres-schema.test.ts checks that
// every table and column of schema.ts is here with a type that takes and gives back what SQLite does.
//
// Types: integers (ids, epoch-ms times, counters) are bigint, read back as JS numbers (the
// connection's int8 parser, server/storage/postgres/postgres-sql.ts); 0/1 flags stay integer because the
// SQLite code writes and reads 0/1, not booleans; JSON columns stay text (drizzle stringifies and
// parses them itself); real is double precision; blobs are bytea.
//
// What SQLite does not have: each searched text (the ones search-index.ts indexes with FTS5)
// carries a stored tsvector column with a GIN index, for full-text search on Postgres.
//
// Autoincrement ids: drizzle's SQLite builder sends `null` for an id it is not given (SQLite
// then picks the next rowid); Postgres refuses a null key, so a trigger created at open time
// (server/storage/postgres/id-triggers.ts) fills it from the identity sequence.
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  JOB_STATUSES,
  MEMORY_KINDS,
  MEMORY_LAYERS,
  MEMORY_STATUSES,
  RELATION_KINDS,
  ROLES,
  SOURCE_REASONS,
} from './vocabulary.ts';

const inList = (column: string, values: readonly string[]) =>
  sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);

/** SQLite integer: ids, epoch-millisecond times and counters, read back as JS numbers. */
const int = (name: string) => bigint(name, { mode: 'number' });
/** A key SQLite numbers itself when given null (see the header). */
const id = () => int('id').primaryKey().generatedByDefaultAsIdentity();
/** A 0/1 flag (SQLite's boolean mode writes 1 and 0, and reads numbers). */
const flag = (name: string) => integer(name);
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** The words of a text for full-text search: English stemming, like FTS5's porter tokenizer. */
const searchable = (name: string, column: string) =>
  tsvector(name).generatedAlwaysAs(sql.raw(`to_tsvector('english', ${column})`));

const userId = () => text('user_id').notNull().default('default');

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  createdAt: int('created_at').notNull(),
});

export const accessTokens = pgTable(
  'access_tokens',
  {
    id: id(),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    userId: text('user_id').notNull(),
    agentId: text('agent_id'),
    readOnly: flag('read_only').notNull().default(0),
    label: text('label'),
    createdAt: int('created_at').notNull(),
    revokedAt: int('revoked_at'),
    lastUsedAt: int('last_used_at'),
  },
  (t) => [uniqueIndex('access_tokens_hash').on(t.tokenHash), index('access_tokens_user').on(t.userId)],
);

export const sessions = pgTable(
  'sessions',
  {
    userId: userId(),
    id: text('id').notNull(),
    firstSeenAt: int('first_seen_at').notNull(),
    lastSeenAt: int('last_seen_at').notNull(),
    consolidatedAt: int('consolidated_at'),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.id] }),
    index('sessions_user_last_seen').on(t.userId, t.lastSeenAt, t.id),
    index('sessions_unconsolidated').on(t.userId, t.lastSeenAt, t.id).where(sql`${t.consolidatedAt} is null`),
  ],
);

export const turns = pgTable(
  'turns',
  {
    id: id(),
    userId: userId(),
    agentId: text('agent_id'),
    sessionId: text('session_id').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    name: text('name'),
    text: text('text').notNull(),
    at: int('at').notNull(),
    createdAt: int('created_at').notNull(),
    enrichedAt: int('enriched_at'),
    textSearch: searchable('text_search', 'text'),
  },
  (t) => [
    foreignKey({ columns: [t.userId, t.sessionId], foreignColumns: [sessions.userId, sessions.id] }).onDelete(
      'cascade',
    ),
    index('turns_session_at').on(t.userId, t.sessionId, t.at, t.id),
    index('turns_user_at').on(t.userId, t.at, t.id),
    index('turns_text_search').using('gin', t.textSearch),
    check('turns_role', inList('role', ROLES)),
  ],
);

/**
 * A session's model-written digest (the extractive one is drawn from the turns when read): the
 * summary of the turns up to `through_at`; a session continued since is summarised again when
 * it is consolidated again.
 */
export const sessionDigests = pgTable(
  'session_digests',
  {
    userId: userId(),
    sessionId: text('session_id').notNull(),
    /** The agent the session's turns were said to, when one; null for shared or mixed sessions. */
    agentId: text('agent_id'),
    summary: text('summary').notNull(),
    /** The model that wrote it. */
    model: text('model').notNull(),
    /** The turns it summarises: how many, and when the last of them was said. */
    turnCount: int('turn_count').notNull(),
    throughAt: int('through_at').notNull(),
    createdAt: int('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.sessionId] }),
    foreignKey({ columns: [t.userId, t.sessionId], foreignColumns: [sessions.userId, sessions.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const turnDates = pgTable(
  'turn_dates',
  {
    turnId: int('turn_id')
      .notNull()
      .references(() => turns.id, { onDelete: 'cascade' }),
    userId: userId(),
    start: int('start').notNull(),
    phrase: text('phrase').notNull(),
    dateFrom: int('date_from').notNull(),
    dateTo: int('date_to').notNull(),
    grain: text('grain').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.turnId, t.start] }),
    index('turn_dates_user_from').on(t.userId, t.dateFrom, t.dateTo),
  ],
);

export const memories = pgTable(
  'memories',
  {
    id: id(),
    userId: userId(),
    agentId: text('agent_id'),
    kind: text('kind', { enum: MEMORY_KINDS }).notNull().default('fact'),
    layer: text('layer', { enum: MEMORY_LAYERS }).notNull().default('mid'),
    status: text('status', { enum: MEMORY_STATUSES }).notNull().default('active'),
    content: text('content').notNull(),
    contentKey: text('content_key').notNull(),
    subject: text('subject'),
    slot: text('slot'),
    value: text('value'),
    polarity: int('polarity'),
    sessionId: text('session_id'),
    hits: int('hits').notNull().default(0),
    accessCount: int('access_count').notNull().default(0),
    score: doublePrecision('score').notNull().default(0),
    confidence: doublePrecision('confidence').notNull().default(1),
    confidenceBase: doublePrecision('confidence_base').notNull().default(1),
    decayRate: doublePrecision('decay_rate').notNull(),
    importance: doublePrecision('importance').notNull().default(0),
    tags: text('tags').notNull().default('[]'),
    createdAt: int('created_at').notNull(),
    eventAt: int('event_at').notNull(),
    lastSeenAt: int('last_seen_at').notNull(),
    lastAccessedAt: int('last_accessed_at'),
    validUntil: int('valid_until'),
    enrichedAt: int('enriched_at'),
    pinned: flag('pinned').notNull().default(0),
    contentSearch: searchable('content_search', 'content'),
  },
  (t) => [
    index('memories_status_layer_score').on(t.userId, t.status, t.layer, t.score, t.id),
    index('memories_kind_status_created').on(t.userId, t.kind, t.status, t.createdAt, t.id),
    index('memories_content_key').on(t.userId, t.contentKey),
    index('memories_subject_slot').on(t.userId, t.subject, t.slot),
    index('memories_session').on(t.userId, t.sessionId),
    index('memories_content_search').using('gin', t.contentSearch),
    check('memories_kind', inList('kind', MEMORY_KINDS)),
    check('memories_layer', inList('layer', MEMORY_LAYERS)),
    check('memories_status', inList('status', MEMORY_STATUSES)),
    check('memories_importance', sql`importance >= 0 and importance <= 1`),
  ],
);

export const memorySources = pgTable(
  'memory_sources',
  {
    memoryId: int('memory_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    turnId: int('turn_id')
      .notNull()
      .references(() => turns.id, { onDelete: 'cascade' }),
    reason: text('reason', { enum: SOURCE_REASONS }).notNull(),
    rule: text('rule'),
    at: int('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.turnId] }), index('memory_sources_turn').on(t.turnId)],
);

export const memoryRelations = pgTable(
  'memory_relations',
  {
    fromId: int('from_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    toId: int('to_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: RELATION_KINDS }).notNull(),
    at: int('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fromId, t.toId, t.kind] }), index('memory_relations_to').on(t.toId)],
);

export const memoryEvents = pgTable(
  'memory_events',
  {
    id: id(),
    userId: userId(),
    memoryId: int('memory_id').notNull(),
    action: text('action').notNull(),
    detail: text('detail').notNull().default('{}'),
    at: int('at').notNull(),
  },
  (t) => [index('memory_events_memory').on(t.memoryId, t.id), index('memory_events_user').on(t.userId)],
);

export const entities = pgTable(
  'entities',
  {
    id: id(),
    userId: userId(),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    type: text('type').notNull(),
    aliases: text('aliases').notNull().default('[]'),
    summary: text('summary'),
    mentionCount: int('mention_count').notNull().default(0),
    createdAt: int('created_at').notNull(),
    updatedAt: int('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('entities_key_type').on(t.userId, t.nameKey, t.type),
    index('entities_user_mentions').on(t.userId, t.mentionCount),
  ],
);

export const memoryEntities = pgTable(
  'memory_entities',
  {
    memoryId: int('memory_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    entityId: int('entity_id')
      .notNull()
      .references(() => entities.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.entityId] }), index('memory_entities_entity').on(t.entityId)],
);

export const turnEntities = pgTable(
  'turn_entities',
  {
    turnId: int('turn_id')
      .notNull()
      .references(() => turns.id, { onDelete: 'cascade' }),
    entityId: int('entity_id')
      .notNull()
      .references(() => entities.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.turnId, t.entityId] }), index('turn_entities_entity').on(t.entityId)],
);

export const meta = pgTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const jobs = pgTable(
  'jobs',
  {
    id: id(),
    type: text('type').notNull(),
    userId: text('user_id'),
    payload: text('payload').notNull().default('{}'),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('pending'),
    attempts: int('attempts').notNull().default(0),
    maxAttempts: int('max_attempts').notNull().default(5),
    runAt: int('run_at').notNull(),
    lockedUntil: int('locked_until'),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    createdAt: int('created_at').notNull(),
    updatedAt: int('updated_at').notNull(),
  },
  (t) => [
    index('jobs_status_run_at').on(t.status, t.runAt),
    // SQLite indexes `payload ->> '$.sessionId'`; the payload is text here, so it is read as jsonb.
    index('jobs_consolidation_session')
      .on(t.userId, sql`(${t.payload}::jsonb ->> 'sessionId')`)
      .where(sql`${t.type} = 'session.consolidate'`),
    index('jobs_user').on(t.userId),
    check('jobs_status', inList('status', JOB_STATUSES)),
  ],
);

const vectorTable = (name: string, owner: typeof turns | typeof memories) =>
  pgTable(
    name,
    {
      id: int('id')
        .primaryKey()
        .references(() => owner.id, { onDelete: 'cascade' }),
      userId: text('user_id').notNull(),
      seq: int('seq').notNull(),
      code: bytea('code').notNull(),
      embedding: bytea('embedding').notNull(),
    },
    (t) => [index(`${name}_user_seq`).on(t.userId, t.seq, t.code)],
  );

export const turnVectors = vectorTable('turn_vectors', turns);
export const memoryVectors = vectorTable('memory_vectors', memories);
