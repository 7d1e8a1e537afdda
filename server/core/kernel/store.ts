// The handle every domain function takes first: the storage port with its config and clock.
// The domain reaches the database only through it (docs/architecture.md#store-port), and only asynchronously, so a
// networked database (Postgres) fits behind it as well as the embedded SQLite file.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type * as tables from '../../../drizzle/schema.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { DialectStatements } from './dialect-statements.ts';
import type { Space } from './space.ts';
import type { SqlParam } from './sql-param.ts';

/** Drizzle's query builder over the port (`query-builder.ts`): `await store.db.select()…`. */
export type Db = BaseSQLiteDatabase<'async', { changes: number }, typeof tables>;

export type { SqlParam } from './sql-param.ts';

/**
 * The storage port: plain SQL in the dialect both backends share (positional `?` parameters,
 * `on conflict`, `returning`), run where the store keeps its data. Queries inside `write()`
 * run in its transaction wherever they are issued from.
 */
export interface Sql {
  readonly dialect: 'sqlite' | 'postgres';
  /** Rows as objects keyed by column name. */
  all<T = Record<string, unknown>>(text: string, params?: readonly SqlParam[]): Promise<T[]>;
  get<T = Record<string, unknown>>(text: string, params?: readonly SqlParam[]): Promise<T | undefined>;
  /** Rows as arrays in select order (for `rowCodec` decoding). */
  values(text: string, params?: readonly SqlParam[]): Promise<unknown[][]>;
  /** The first row as an array, without reading the rest. */
  row(text: string, params?: readonly SqlParam[]): Promise<unknown[] | undefined>;
  /** The first column of the first row. */
  pluck<T = unknown>(text: string, params?: readonly SqlParam[]): Promise<T | undefined>;
  run(text: string, params?: readonly SqlParam[]): Promise<{ changes: number }>;
  /**
   * A write that nothing later in its transaction reads back (a counter growing): inside a
   * transaction on a server it travels with the COMMIT (a round trip saved) and fails with it;
   * elsewhere it runs at once.
   */
  runAtCommit(text: string, params?: readonly SqlParam[]): Promise<void>;
  /** Runs `fn` in one transaction that holds the write lock from its start. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A write that gives up instead of waiting when another process holds the write lock
   * (bookkeeping such as access counts): `undefined` when it gave up.
   */
  writeIfFree<T>(fn: () => Promise<T>): Promise<T | undefined>;
  /**
   * Rewrites the storage so deleted rows leave nothing behind (their text in free pages or in
   * full-text index segments), outside any transaction. Slow: on demand only (forgetUser).
   */
  compact(): Promise<void>;
  /** Moves when another connection commits (caches keyed on it see those writes). */
  dataVersion(): Promise<number>;
  /** Where the data lives, safe to print: a file path (`:memory:`), or a server's host, port and database (never its password). */
  readonly location: string;
  /** The backend's own read-only consistency check (doctor): what it ran, and the problems found (none: ok). */
  check(): Promise<{ method: string; problems: string[] }>;
  /** Merges the full-text indexes' pending entries (nightly maintenance): which indexes, and the wall time in ms. */
  optimize(): Promise<{ indexes: string[]; ms: number }>;
  readonly open: boolean;
  close(): Promise<void>;
  /**
   * Runs `fn` unless the task `name` runs elsewhere now, then gives up with `undefined`: a
   * scheduled task runs once across the nodes sharing a database (Postgres: a session advisory
   * lock per name; SQLite: one server per file, so only this process's own runs count).
   */
  exclusively<T>(name: string, fn: () => Promise<T>): Promise<T | undefined>;
  /**
   * Tells the other nodes on this database about events, from inside the transaction under way
   * (they hear them when it commits, never if it rolls back), or at once outside one. Absent
   * where no other node can exist (SQLite: one server per file).
   */
  announce?(events: readonly ChangeEvent[]): Promise<void>;
  /**
   * A read-only view of the data as it is now, on a connection of its own, for a long read (an
   * export) that must not see writes halfway nor hold them up: a repeatable-read transaction on a
   * Postgres server. Absent where the backend has its own way (SQLite: a second connection on the
   * file, server/storage/sqlite/snapshot.ts) or none (PGlite: one connection).
   */
  snapshot?(): Promise<{ sql: Sql; close(): Promise<void> }>;
  /** Hears the events other nodes announce, until `stop()`; `ready` once listening. Absent with `announce`. */
  listen?(deliver: (event: ChangeEvent) => void): Hearing;
}

/**
 * What a backend says in its own SQL, handed to the store by whoever opens it (server/storage/):
 * the domain asks the store for it instead of branching on the backend's name
 * (docs/architecture.md#store-port).
 */
export interface Dialect {
  /** The same name as `Sql.dialect`. */
  readonly name: 'sqlite' | 'postgres';
  /** The backend's full-text index (used while `features.fts` and the config allow it; else LIKE). */
  readonly textIndex: TextIndex;
  /** The backend's vector statements (core/vectors/vector-sql.ts runs them). */
  readonly vectors: VectorDialect;
  /** The rest of what the backends spell differently, by domain. */
  readonly statements: DialectStatements;
}

/** A vector row as stored: its sign-bit code and its float32 embedding. */
export type StoredVector = { id: number; userId: string; seq: number; code: Buffer; vector: Float32Array };

/** How a backend stores vectors and reranks a KNN's candidates (tables are named by the caller). */
export interface VectorDialect {
  /** Names the statements built from it (in caches keyed by text). */
  readonly key: string;
  /** Why vectors cannot go on here (a missing extension), or null. */
  unavailable(store: Store): string | null;
  /** The upsert of `rows` rows into table `name`; `upsertCells` gives one row's values in its order. */
  upsertText(name: string, rows: number): string;
  upsertCells(row: StoredVector): SqlParam[];
  /** Aggregates of one row of a user's codes: the ids as a comma list, the codes as hex, both by seq. */
  readonly codesColumns: { ids: string; codes: string };
  /** The candidates that still exist for the user, nearest to `vector` first by cosine distance (ties by id). */
  rerank(
    store: Store,
    name: string,
    query: { userId: string; candidates: number[]; vector: Float32Array },
  ): Promise<{ id: number; distance: number }[]>;
  /** Makes the store ready to keep and search vectors when they go on (their columns, older tables moved). */
  prepare(store: Store, spec: { dimensions: number }): Promise<void>;
}

// The shape of a full-text index: each backend's (FTS5, tsvector) is in server/storage/, and LIKE
// is the domain's own (text-index/like-index.ts).
export type Scored = { id: number; score: number };
export type Clause = { sql: string; params: SqlParam[] };
export type TextTable = 'turns' | 'memories';
/**
 * A ranked match: the user's rows of `table` that hold any of `terms` (all of them with `join`
 * 'all') and pass `clauses` (the first is the space's), at most `limit`. `rows`: how many rows
 * the user has in `table` (tableRows, read once per search). `newest`: rank only that many of the
 * newest rows that match (for words so common that ranking every match costs more than it tells).
 */
export type RankQuery = {
  table: TextTable;
  terms: string[];
  clauses: Clause[];
  limit: number;
  rows: number;
  join?: 'any' | 'all';
  newest?: number;
};
/** The rows of `table` holding any (or all) of `words`: at most `limit`, newest first unless `best`. */
export type MatchQuery = {
  table: TextTable;
  words: string[];
  join: 'any' | 'all';
  limit: number;
  order?: 'newest' | 'best';
};

export interface TextIndex {
  /** Each kind counts a little differently (tokens, lexemes, substrings): it names their cache. */
  readonly kind: 'fts5' | 'tsvector' | 'like';
  /** In how many of the user's rows of `table` the term appears, counted up to COMMON_DF + 1. */
  count(store: Store, space: Space, table: TextTable, term: string): Promise<number>;
  /** The rows of a RankQuery, best first (higher score is better). */
  rank(store: Store, space: Space, query: RankQuery): Promise<Scored[]>;
  /**
   * A subquery selecting `id`: the user's rows of `table` holding any (or all) of `words`, at
   * most `limit`, newest first (`best`: FTS5's best ranked, where it ranks). For a statement to
   * join its own filters to; null when no word can be matched. `limit` is part of the text.
   */
  matching(store: Store, space: Space, query: MatchQuery): Clause | null;
}

/** A subscription to other nodes' events (see `Sql.listen`). */
export type Hearing = { ready: Promise<void>; stop(): Promise<void> };

export type Store = {
  db: Db;
  sql: Sql;
  /** The SQLite connection, for the SQLite-only parts (FTS5 indexes, sqlite-vec, WAL checkpoints). */
  sqlite: import('better-sqlite3').Database;
  config: Config;
  clock: Clock;
  /** The statements only this backend can say (its text index, ...), given by the opener. */
  dialect: Dialect;
  /** Which optional features are usable: full-text indexes (else LIKE), vector distance functions. */
  features: { fts: boolean; vec: boolean };
  listeners: Set<ChangeListener>;
  /** Objects built once per store (drizzle prepared queries, see `prepared`). */
  statements: Map<string, unknown>;
};

/**
 * A change that committed. Published after the transaction, never for a rolled-back one. Each
 * names the user whose data changed, so a subscriber hears only its own space.
 */
export type ChangeEvent = (
  | {
      type: 'memory';
      action: string;
      memoryId: number;
      at: number;
      detail: Record<string, unknown>;
      /** The row as it was, for a `deleted` event (the row itself is gone). Never stored. */
      snapshot?: typeof tables.memories.$inferSelect;
    }
  | { type: 'turn'; turnId: number; sessionId: string; at: number }
  | { type: 'job'; jobId: number; jobType?: string; status: string; at: number }
  /** An entity was created, renamed or given an alias (updated), linked to a turn or memory, or deleted. */
  | {
      type: 'entity';
      action: 'created' | 'updated' | 'linked' | 'deleted';
      entityId: number;
      at: number;
      turnId?: number;
      memoryId?: number;
    }
  | {
      type: 'consolidation';
      sessionId: string;
      status: 'STARTED' | 'COMPLETED' | 'FAILED';
      at: number;
      report?: Record<string, unknown>;
      reason?: string;
    }
  /** A user's data was erased (forgetUser), or an access token was revoked. */
  | { type: 'user'; action: 'forgotten'; at: number }
  | { type: 'token'; action: 'created' | 'revoked'; tokenId: number; at: number }
) & { userId: string; agentId?: string | null };

export type ChangeListener = (event: ChangeEvent) => void;

/**
 * Builds a statement once per store and reuses it: query building and SQL compilation cost
 * more than running these small indexed queries, and addTurn runs several of them.
 */
export function prepared<T>(store: Store, key: string, build: (db: Db) => T): T {
  let statement = store.statements.get(key) as T | undefined;
  if (statement === undefined) {
    statement = build(store.db);
    store.statements.set(key, statement);
  }
  return statement;
}

/** The write under way in this async context: its store, the events it will publish, its notes (see `noted`). */
type WriteScope = { store: Store; events: ChangeEvent[]; notes?: Map<string, Set<string | number>> };
const scope = new AsyncLocalStorage<WriteScope>();

/** The write transaction this code runs in on `store`, if any (an object stable for its length). */
export function currentWrite(store: Store): object | undefined {
  const current = scope.getStore();
  return current?.store === store ? current : undefined;
}

/**
 * What the write under way has noted under `topic` (rows it created, or found present), for
 * statements it can then skip: `undefined` outside a write. Gone with the transaction, so a
 * note never outlives what it says (a rollback, another process's delete).
 */
export function noted(store: Store, topic: string): Set<string | number> | undefined {
  const current = scope.getStore();
  if (current?.store !== store) return undefined;
  current.notes ??= new Map();
  let set = current.notes.get(topic);
  if (!set) current.notes.set(topic, (set = new Set()));
  return set;
}

/**
 * Topics of `noted` for the rows the write under way inserted: nothing outside it can have
 * extracted from them, linked them or sourced them yet (it holds the write lock).
 */
export const NEW_ROWS = { turns: 'new turns', memories: 'new memories' } as const;

/**
 * Runs `fn` in one transaction holding the write lock from its start (concurrent writers wait
 * instead of failing midway). Nested calls join the outer transaction. Change events go out
 * only after commit.
 */
export async function write<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  if (currentWrite(store)) return fn();
  const events: ChangeEvent[] = [];
  const result = await store.sql.transaction(() =>
    scope.run({ store, events }, store.sql.announce ? announcing(store, events, fn) : fn),
  );
  for (const event of events) for (const listener of store.listeners) listener(event);
  return result;
}

/** `fn`, then its events announced to the other nodes before the commit (so a rollback sends none). */
const announcing =
  <T>(store: Store, events: ChangeEvent[], fn: () => Promise<T>) =>
  async (): Promise<T> => {
    const result = await fn();
    if (events.length > 0) await store.sql.announce!(events);
    return result;
  };

/**
 * `write` for bookkeeping that must never wait for the lock (access counts, a token's last
 * use): gives up at once, returning `undefined`, when another process holds it. Inside a write
 * it joins it.
 */
export async function writeIfFree<T>(store: Store, fn: () => Promise<T>): Promise<T | undefined> {
  if (currentWrite(store)) return fn();
  const events: ChangeEvent[] = [];
  const result = await store.sql.writeIfFree(() =>
    scope.run({ store, events }, store.sql.announce ? announcing(store, events, fn) : fn),
  );
  for (const event of events) for (const listener of store.listeners) listener(event);
  return result;
}

export function publish(store: Store, event: ChangeEvent) {
  const current = scope.getStore();
  if (current?.store === store) current.events.push(event);
  else {
    for (const listener of store.listeners) listener(event);
    // Outside a transaction (a consolidation starting): announced on its own; one that cannot be
    // (the database is gone) is lost to the other nodes' live subscribers only, like one they missed.
    if (store.sql.announce) void store.sql.announce([event]).catch(() => undefined);
  }
}

export function onChange(store: Store, listener: ChangeListener): () => void {
  store.listeners.add(listener);
  return () => store.listeners.delete(listener);
}

/** The hearings open per store, shared: each event of another node reaches each listener once. */
const hearings = new WeakMap<Store, { hearing: Hearing; users: number }>();

/**
 * Delivers the events other nodes commit on this database to this store's listeners, as its own
 * are delivered (a server's subscribers, its worker's wake-ups), until `stop()`. Nothing to hear
 * on SQLite. Calls share one hearing.
 */
export function hearOtherNodes(store: Store): Hearing {
  if (!store.sql.listen) return { ready: Promise.resolve(), stop: async () => undefined };
  let shared = hearings.get(store);
  if (!shared) {
    shared = {
      hearing: store.sql.listen((event) => {
        for (const listener of store.listeners) listener(event);
      }),
      users: 0,
    };
    hearings.set(store, shared);
  }
  shared.users++;
  const { hearing } = shared;
  let stopped = false;
  return {
    ready: hearing.ready,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (--shared.users === 0) {
        hearings.delete(store);
        await hearing.stop();
      }
    },
  };
}
