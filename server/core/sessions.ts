// Sessions: registered on their first turn (seed 004 sessions_consolidations).
import { count, desc, eq, inArray, sql } from 'drizzle-orm';
import { sessions } from '../../drizzle/schema.ts';
import { prepared, type Store } from './store.ts';

export type SessionRow = typeof sessions.$inferSelect & { turnCount: number };

const sessionColumns = {
  id: sessions.id,
  firstSeenAt: sessions.firstSeenAt,
  lastSeenAt: sessions.lastSeenAt,
  consolidatedAt: sessions.consolidatedAt,
  // Spelled out: inside the subquery drizzle would render both columns unqualified.
  turnCount: sql<number>`(select count(*) from turns where turns.session_id = sessions.id)`,
};

/** Registers the session or moves its last-seen time forward. Returns true when it is new. */
export function ensureSession(store: Store, id: string, at: number): boolean {
  // Most turns continue a session: one update finds out, and the insert runs only when it touched nothing.
  // A new turn reopens a consolidated session: it will be consolidated again (idempotently).
  const touched = prepared(store, 'session.touch', () =>
    store.sqlite.prepare(
      'update sessions set last_seen_at = max(last_seen_at, @at), first_seen_at = min(first_seen_at, @at), consolidated_at = null where id = @id',
    ),
  ).run({ id, at }).changes;
  if (touched > 0) return false;
  prepared(store, 'session.insert', () => store.sqlite.prepare('insert into sessions (id, first_seen_at, last_seen_at) values (@id, @at, @at)')).run({ id, at });
  return true;
}

export function getSession(store: Store, id: string): SessionRow | undefined {
  return store.db.select(sessionColumns).from(sessions).where(eq(sessions.id, id)).get();
}

export function sessionsByIds(store: Store, ids: readonly string[]): Map<string, SessionRow> {
  const rows = store.db.select(sessionColumns).from(sessions).where(inArray(sessions.id, [...ids])).all();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Most recently active first. */
export function listSessions(store: Store, page: { limit: number; offset?: number }) {
  const rows = store.db
    .select(sessionColumns)
    .from(sessions)
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.id))
    .limit(page.limit)
    .offset(page.offset ?? 0)
    .all();
  const total = store.db.select({ n: count() }).from(sessions).get()!.n;
  return { rows, total };
}
