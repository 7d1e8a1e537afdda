// Drizzle table definitions: the whole data model (docs/architecture.md#data-model).
// Migrations in drizzle/migrations are generated from this file by `npm run db:generate`.
// The FTS5 virtual tables are created at open time (server/storage/sqlite/search-index.ts) because they
// depend on what the SQLite build provides.
import { sql } from 'drizzle-orm';
import {
  blob,
  check,
  foreignKey,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import {
  JOB_STATUSES,
  MEMORY_KINDS,
  MEMORY_LAYERS,
  MEMORY_STATUSES,
  RELATION_KINDS,
  ROLES,
  SOURCE_REASONS,
  STANDING_CONDITION,
} from './vocabulary.ts';

export type Role = (typeof ROLES)[number];
export type MemoryKind = (typeof MEMORY_KINDS)[number];
export type MemoryLayer = (typeof MEMORY_LAYERS)[number];
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];
export type SourceReason = (typeof SOURCE_REASONS)[number];
export type RelationKind = (typeof RELATION_KINDS)[number];
export type JobStatus = (typeof JOB_STATUSES)[number];

const inList = (column: string, values: readonly string[]) =>
  sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);

/**
 * The memory space a row belongs to (docs/architecture.md#spaces): every owned row carries its user, and indexes lead
 * with it so a user's reads cost what that user's data costs. Rows written before spaces
 * existed belong to `default`.
 */
const userId = () => text('user_id').notNull().default('default');

/** The users that own data: registered on their first write, so listing them is not a scan. */
export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Scoped access tokens (docs/architecture.md#scope). Only a SHA-256 hash of the token is stored; the token itself is
 * shown once, when created. A token reaches one user (and one agent, when set).
 */
export const accessTokens = sqliteTable(
  'access_tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tokenHash: text('token_hash').notNull(),
    /** The first characters of the token, to recognise it in a list (not enough to use it). */
    prefix: text('prefix').notNull(),
    userId: text('user_id').notNull(),
    agentId: text('agent_id'),
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
    label: text('label'),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [uniqueIndex('access_tokens_hash').on(t.tokenHash), index('access_tokens_user').on(t.userId)],
);

/** A conversation of one user. Registered on its first turn; consolidated once finished. */
export const sessions = sqliteTable(
  'sessions',
  {
    userId: userId(),
    id: text('id').notNull(),
    firstSeenAt: integer('first_seen_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    consolidatedAt: integer('consolidated_at'),
  },
  (t) => [
    // Session ids are the app's own: two users may both have a session "chat-1".
    primaryKey({ columns: [t.userId, t.id] }),
    index('sessions_user_last_seen').on(t.userId, t.lastSeenAt, t.id),
    // pendingSessions, on every new session: the few unconsolidated ones, oldest first, not a scan of all.
    index('sessions_unconsolidated').on(t.userId, t.lastSeenAt, t.id).where(sql`${t.consolidatedAt} is null`),
  ],
);

/** The episodic layer (docs/architecture.md#turns): every user/assistant turn, stored once, never dropped on overflow. */
export const turns = sqliteTable(
  'turns',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: userId(),
    /** The agent this turn was said to, when the app names one; null for the user's shared history. */
    agentId: text('agent_id'),
    sessionId: text('session_id').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    name: text('name'),
    text: text('text').notNull(),
    at: integer('at').notNull(),
    createdAt: integer('created_at').notNull(),
    enrichedAt: integer('enriched_at'),
  },
  (t) => [
    foreignKey({ columns: [t.userId, t.sessionId], foreignColumns: [sessions.userId, sessions.id] }).onDelete(
      'cascade',
    ),
    index('turns_session_at').on(t.userId, t.sessionId, t.at, t.id),
    index('turns_user_at').on(t.userId, t.at, t.id),
    check('turns_role', inList('role', ROLES)),
  ],
);

/**
 * A session's model-written digest (the extractive one is drawn from the turns when read): the
 * summary of the turns up to `through_at`; a session continued since is summarised again when
 * it is consolidated again.
 */
export const sessionDigests = sqliteTable(
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
    turnCount: integer('turn_count').notNull(),
    throughAt: integer('through_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.sessionId] }),
    foreignKey({ columns: [t.userId, t.sessionId], foreignColumns: [sessions.userId, sessions.id] }).onDelete(
      'cascade',
    ),
  ],
);

/**
 * Time phrases of a turn ("yesterday", "last Saturday", "in May 2023") resolved against the
 * turn's own time into calendar dates (server/core/extraction/time-phrases.ts): what a turn
 * talks about, as opposed to when it was said. One row per phrase; a phrase with two readings is
 * not resolved, so a turn without rows may still name a time in words. `date_from`/`date_to` are
 * the first and last instants of the calendar days named, as UTC epoch ms of those dates.
 */
export const turnDates = sqliteTable(
  'turn_dates',
  {
    turnId: integer('turn_id')
      .notNull()
      .references(() => turns.id, { onDelete: 'cascade' }),
    userId: userId(),
    /** Where the phrase starts in the turn's text (UTF-16 offset). */
    start: integer('start').notNull(),
    phrase: text('phrase').notNull(),
    dateFrom: integer('date_from').notNull(),
    dateTo: integer('date_to').notNull(),
    /** day | week | weekend | month | year | about (a fuzzy range: "two weeks ago"). */
    grain: text('grain').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.turnId, t.start] }),
    // The turns that talk about a date range: ranges start at most a year before they end.
    index('turn_dates_user_from').on(t.userId, t.dateFrom, t.dateTo),
  ],
);

/** Facts and reflections, with salience (score) and trust (confidence) kept apart (docs/architecture.md#score-and-confidence). */
export const memories = sqliteTable(
  'memories',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: userId(),
    /** This agent's own memory of the user; null: shared by every agent of the user. */
    agentId: text('agent_id'),
    kind: text('kind', { enum: MEMORY_KINDS }).notNull().default('fact'),
    layer: text('layer', { enum: MEMORY_LAYERS }).notNull().default('mid'),
    status: text('status', { enum: MEMORY_STATUSES }).notNull().default('active'),
    content: text('content').notNull(),
    /** Normalised content (lowercase, no punctuation): the exact-duplicate key. */
    contentKey: text('content_key').notNull(),
    /** Structured form of an extracted fact, used to detect conflicts (same subject + slot). */
    subject: text('subject'),
    slot: text('slot'),
    value: text('value'),
    polarity: integer('polarity'),
    /** The session (of the same user) it was learnt in; no foreign key: it outlives its session. */
    sessionId: text('session_id'),
    hits: integer('hits').notNull().default(0),
    accessCount: integer('access_count').notNull().default(0),
    score: real('score').notNull().default(0),
    /** Trust now: confidence_base decayed by the time since the fact was last accessed or seen. */
    confidence: real('confidence').notNull().default(1),
    /** Trust right after the last access; decay starts again from here, so it never compounds. */
    confidenceBase: real('confidence_base').notNull().default(1),
    decayRate: real('decay_rate').notNull(),
    importance: real('importance').notNull().default(0),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull().default([]),
    createdAt: integer('created_at').notNull(),
    eventAt: integer('event_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    lastAccessedAt: integer('last_accessed_at'),
    validUntil: integer('valid_until'),
    enrichedAt: integer('enriched_at'),
    /** Always in context, whatever the query (and never cleaned up by GC). */
    pinned: integer('pinned', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    // topMemories: best score first, ties newest first, read backwards off the index (no temp B-tree).
    index('memories_status_layer_score').on(t.userId, t.status, t.layer, t.score, t.id),
    // latestReflection: the newest active reflection is the last entry of its range.
    index('memories_kind_status_created').on(t.userId, t.kind, t.status, t.createdAt, t.id),
    index('memories_content_key').on(t.userId, t.contentKey),
    index('memories_subject_slot').on(t.userId, t.subject, t.slot),
    index('memories_session').on(t.userId, t.sessionId),
    // The standing sections of every context block: only a user's standing and pinned memories,
    // newest stated first off the index, however many facts the user holds.
    index('memories_standing')
      .on(t.userId, t.pinned, t.eventAt, t.accessCount, t.id)
      .where(sql.raw(`status = 'active' and (${STANDING_CONDITION})`)),
    check('memories_kind', inList('kind', MEMORY_KINDS)),
    check('memories_layer', inList('layer', MEMORY_LAYERS)),
    check('memories_status', inList('status', MEMORY_STATUSES)),
    check('memories_importance', sql`importance >= 0 and importance <= 1`),
  ],
);

/** Provenance: which turns a memory came from, and why (docs/architecture.md#provenance). */
export const memorySources = sqliteTable(
  'memory_sources',
  {
    memoryId: integer('memory_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    turnId: integer('turn_id')
      .notNull()
      .references(() => turns.id, { onDelete: 'cascade' }),
    reason: text('reason', { enum: SOURCE_REASONS }).notNull(),
    /** The extraction rule (or path) that produced the memory from this turn. */
    rule: text('rule'),
    at: integer('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.turnId] }), index('memory_sources_turn').on(t.turnId)],
);

/** Provenance between memories: `from` supersedes / is derived from `to`. */
export const memoryRelations = sqliteTable(
  'memory_relations',
  {
    fromId: integer('from_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    toId: integer('to_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: RELATION_KINDS }).notNull(),
    at: integer('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fromId, t.toId, t.kind] }), index('memory_relations_to').on(t.toId)],
);

/**
 * Append-only decision log that `explain` reads. No foreign key: the log outlives
 * archived rows, and a `deleted` entry outlives the hard-deleted memory (without its text).
 */
export const memoryEvents = sqliteTable(
  'memory_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: userId(),
    memoryId: integer('memory_id').notNull(),
    action: text('action').notNull(),
    detail: text('detail', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    at: integer('at').notNull(),
  },
  (t) => [index('memory_events_memory').on(t.memoryId, t.id), index('memory_events_user').on(t.userId)],
);

/** Named entities: one row per real-world thing of one user (Alice of one user is not Alice of another). */
export const entities = sqliteTable(
  'entities',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: userId(),
    name: text('name').notNull(),
    /** Normalised name (lowercase, possessive stripped): the lookup key with `type`. */
    nameKey: text('name_key').notNull(),
    type: text('type').notNull(),
    aliases: text('aliases', { mode: 'json' }).$type<string[]>().notNull().default([]),
    summary: text('summary'),
    mentionCount: integer('mention_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('entities_key_type').on(t.userId, t.nameKey, t.type),
    index('entities_user_mentions').on(t.userId, t.mentionCount),
  ],
);

export const memoryEntities = sqliteTable(
  'memory_entities',
  {
    memoryId: integer('memory_id')
      .notNull()
      .references(() => memories.id, { onDelete: 'cascade' }),
    entityId: integer('entity_id')
      .notNull()
      .references(() => entities.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.entityId] }), index('memory_entities_entity').on(t.entityId)],
);

export const turnEntities = sqliteTable(
  'turn_entities',
  {
    turnId: integer('turn_id')
      .notNull()
      .references(() => turns.id, { onDelete: 'cascade' }),
    entityId: integer('entity_id')
      .notNull()
      .references(() => entities.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.turnId, t.entityId] }), index('turn_entities_entity').on(t.entityId)],
);

/** Config overrides and schema facts (e.g. embedding dimensions). Values are JSON. */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value', { mode: 'json' }).notNull(),
});

/** Durable background work (docs/architecture.md#jobs), written in the same transaction as its cause. */
export const jobs = sqliteTable(
  'jobs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    type: text('type').notNull(),
    /** Whose data the job works on (also in the payload); null for work on the whole file. */
    userId: text('user_id'),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    runAt: integer('run_at').notNull(),
    /** A running job's lease: past it, the job counts as abandoned (its process died) and runs again. */
    lockedUntil: integer('locked_until'),
    /** The worker holding the lease (host:pid), so a restart can reclaim jobs of a dead process at once. */
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('jobs_status_run_at').on(t.status, t.runAt),
    // queueConsolidation: is a job for this session already waiting? Consolidation jobs only.
    index('jobs_consolidation_session')
      .on(t.userId, sql`${t.payload} ->> '$.sessionId'`)
      .where(sql`${t.type} = 'session.consolidate'`),
    index('jobs_user').on(t.userId),
    check('jobs_status', inList('status', JOB_STATUSES)),
  ],
);

/**
 * Embeddings of turns and memories (server/core/search/vectors.ts), in plain tables rather than
 * sqlite-vec's vec0: KNN runs over an in-memory index of sign bits that reads `code` and catches
 * up by `seq`, then reranks exactly by reading `embedding` by id (see vectors.ts for the figures
 * behind the choice). A vector goes with its row (cascade), whatever deletes the row.
 */
const vectorTable = (name: string, owner: typeof turns | typeof memories) =>
  sqliteTable(
    name,
    {
      id: integer('id')
        .primaryKey()
        .references(() => owner.id, { onDelete: 'cascade' }),
      userId: text('user_id').notNull(),
      /** When it was written, from a counter that never goes back: an index knows which rows are newer than it. */
      seq: integer('seq').notNull(),
      /** Sign bits of the embedding, 32 dimensions per little-endian uint32. */
      code: blob('code', { mode: 'buffer' }).notNull(),
      /** float32 values, unit length. */
      embedding: blob('embedding', { mode: 'buffer' }).notNull(),
    },
    // Covers the index build and its catch-up (a user's codes after a seq) without reading embeddings.
    (t) => [index(`${name}_user_seq`).on(t.userId, t.seq, t.code)],
  );

export const turnVectors = vectorTable('turn_vectors', turns);
export const memoryVectors = vectorTable('memory_vectors', memories);
