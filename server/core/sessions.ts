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
  const at$ = sql.placeholder('at');
  const existing = prepared(store, 'session.exists', (db) =>
    db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sql.placeholder('id'))).prepare(),
  ).get({ id });
  if (existing) {
    prepared(store, 'session.touch', (db) =>
      db
        .update(sessions)
        // A new turn reopens a consolidated session: it will be consolidated again (idempotently).
        .set({ lastSeenAt: sql`max(${sessions.lastSeenAt}, ${at$})`, firstSeenAt: sql`min(${sessions.firstSeenAt}, ${at$})`, consolidatedAt: null })
        .where(eq(sessions.id, sql.placeholder('id')))
        .prepare(),
    ).run({ id, at });
    return false;
  }
  prepared(store, 'session.insert', (db) =>
    db.insert(sessions).values({ id: sql.placeholder('id'), firstSeenAt: at$, lastSeenAt: at$ }).prepare(),
  ).run({ id, at });
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
