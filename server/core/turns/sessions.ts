// Sessions: registered on their first turn, with their consolidation state.
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { sessions } from '../../../drizzle/schema.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';

export type SessionRow = typeof sessions.$inferSelect & { turnCount: number };

const sessionColumns = {
  userId: sessions.userId,
  id: sessions.id,
  firstSeenAt: sessions.firstSeenAt,
  lastSeenAt: sessions.lastSeenAt,
  consolidatedAt: sessions.consolidatedAt,
  // Spelled out: inside the subquery drizzle would render both columns unqualified.
  turnCount: sql<number>`(select count(*) from turns where turns.user_id = sessions.user_id and turns.session_id = sessions.id)`,
};

const TOUCH_SESSION = `update sessions set
  last_seen_at = case when last_seen_at > ? then last_seen_at else ? end,
  first_seen_at = case when first_seen_at < ? then first_seen_at else ? end,
  consolidated_at = null
  where user_id = ? and id = ?`;
const INSERT_SESSION = 'insert into sessions (user_id, id, first_seen_at, last_seen_at) values (?, ?, ?, ?)';

/** Registers the session or moves its last-seen time forward. Returns true when it is new. */
export async function ensureSession(store: Store, space: Space, id: string, at: number): Promise<boolean> {
  // Most turns continue a session: one update finds out, and the insert runs only when it touched nothing.
  // A new turn reopens a consolidated session: it will be consolidated again (idempotently).
  const { changes } = await store.sql.run(TOUCH_SESSION, [at, at, at, at, space.userId, id]);
  if (changes > 0) return false;
  await store.sql.run(INSERT_SESSION, [space.userId, id, at, at]);
  return true;
}

export async function getSession(store: Store, space: Space, id: string): Promise<SessionRow | undefined> {
  return store.db
    .select(sessionColumns)
    .from(sessions)
    .where(and(eq(sessions.userId, space.userId), eq(sessions.id, id)))
    .get();
}

/** A session is named by its user and its own id: the key of the batched loads. */
export const sessionKey = (userId: string, id: string) => JSON.stringify([userId, id]);

const SESSIONS_BY_KEYS = `select s.user_id as userId, s.id as id, s.first_seen_at as firstSeenAt, s.last_seen_at as lastSeenAt, s.consolidated_at as consolidatedAt,
    (select count(*) from turns t where t.user_id = s.user_id and t.session_id = s.id) as turnCount
  from sessions s where s.user_id in (select value from sm_texts(?)) and s.id in (select value from sm_texts(?))`;

/** Sessions by sessionKey (a user's session ids are the app's own, so they repeat across users). */
export async function sessionsByKeys(store: Store, keys: readonly string[]): Promise<Map<string, SessionRow>> {
  const pairs = keys.map((key) => JSON.parse(key) as [string, string]);
  // Every user's sessions of every id asked for (a batch is mostly one user's), then the pairs asked for.
  const users = JSON.stringify([...new Set(pairs.map(([userId]) => userId))]);
  const ids = JSON.stringify([...new Set(pairs.map(([, id]) => id))]);
  const rows = await store.sql.all<SessionRow>(SESSIONS_BY_KEYS, [users, ids]);
  const wanted = new Set(keys);
  return new Map(rows.map((row) => [sessionKey(row.userId, row.id), row] as const).filter(([key]) => wanted.has(key)));
}

/** A user's sessions, most recently active first. */
export async function listSessions(store: Store, space: Space, page: { limit: number; offset?: number }) {
  const rows = await store.db
    .select(sessionColumns)
    .from(sessions)
    .where(eq(sessions.userId, space.userId))
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.id))
    .limit(page.limit)
    .offset(page.offset ?? 0);
  const total = (await store.db.select({ n: count() }).from(sessions).where(eq(sessions.userId, space.userId)).get())!
    .n;
  return { rows, total };
}
