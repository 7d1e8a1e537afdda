// The handle every domain function takes first: the database with its config and clock.
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as tables from '../../drizzle/schema.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';

export type Db = BetterSQLite3Database<typeof tables> & { $client: Database.Database };

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
  | { type: 'entity'; action: 'created' | 'updated' | 'linked' | 'deleted'; entityId: number; at: number; turnId?: number; memoryId?: number }
  | { type: 'consolidation'; sessionId: string; status: 'STARTED' | 'COMPLETED' | 'FAILED'; at: number; report?: Record<string, unknown>; reason?: string }
  /** A user's data was erased (forgetUser), or an access token was revoked. */
  | { type: 'user'; action: 'forgotten'; at: number }
  | { type: 'token'; action: 'created' | 'revoked'; tokenId: number; at: number }
) & { userId: string; agentId?: string | null };

export type ChangeListener = (event: ChangeEvent) => void;

export type Store = {
  db: Db;
  sqlite: Database.Database;
  config: Config;
  clock: Clock;
  /** Which optional SQLite features are usable: FTS5 (else LIKE), sqlite-vec. */
  features: { fts: boolean; vec: boolean };
  /** Set while a write transaction runs: its events, emitted after commit. */
  pending: ChangeEvent[] | null;
  listeners: Set<ChangeListener>;
  /** Prepared statements of the hot path, built once per store (see `prepared`). */
  statements: Map<string, unknown>;
};

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

/**
 * Runs `fn` in one immediate transaction (BEGIN IMMEDIATE takes the write lock up front,
 * so concurrent writers wait on busy_timeout instead of failing mid-transaction).
 * Nested calls join the outer transaction. Change events go out only after commit.
 */
export function write<T>(store: Store, fn: () => T): T {
  if (store.pending) return fn();
  const events: ChangeEvent[] = [];
  store.pending = events;
  let result: T;
  try {
    result = store.sqlite.transaction(fn).immediate();
  } finally {
    store.pending = null;
  }
  for (const event of events) for (const listener of store.listeners) listener(event);
  return result;
}

export function publish(store: Store, event: ChangeEvent) {
  if (store.pending) store.pending.push(event);
  else for (const listener of store.listeners) listener(event);
}

export function onChange(store: Store, listener: ChangeListener): () => void {
  store.listeners.add(listener);
  return () => store.listeners.delete(listener);
}
