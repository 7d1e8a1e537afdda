// Model summaries of sessions (the digest a configured model writes in the background): one row
// per session, replaced when the session is summarised again, gone with the session, and dropped
// when a turn of the session is forgotten (it may repeat what was forgotten).
import { and, eq, inArray } from 'drizzle-orm';
import { sessionDigests } from '../../../drizzle/schema.ts';
import { enqueueJob, JobType } from '../jobs/jobs.ts';
import { visibleIn, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';

export type SessionSummary = typeof sessionDigests.$inferSelect;

/** The summary a session's turns were given, or undefined; one of an agent the space does not see counts as none. */
export async function sessionSummary(
  store: Store,
  space: Space,
  sessionId: string,
): Promise<SessionSummary | undefined> {
  const row = await store.db
    .select()
    .from(sessionDigests)
    .where(and(eq(sessionDigests.userId, space.userId), eq(sessionDigests.sessionId, sessionId)))
    .get();
  return row && visibleIn(space, row) ? row : undefined;
}

/** The summaries of these sessions of the space, by session id. */
export async function sessionSummaries(
  store: Store,
  space: Space,
  sessionIds: string[],
): Promise<Map<string, SessionSummary>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await store.db
    .select()
    .from(sessionDigests)
    .where(and(eq(sessionDigests.userId, space.userId), inArray(sessionDigests.sessionId, [...new Set(sessionIds)])));
  return new Map(rows.filter((row) => visibleIn(space, row)).map((row) => [row.sessionId, row]));
}

/** Writes (or replaces) a session's summary. Inside a write. */
export async function saveSessionSummary(store: Store, row: Omit<SessionSummary, 'createdAt'>) {
  const values = { ...row, createdAt: store.clock.now() };
  await store.db
    .insert(sessionDigests)
    .values(values)
    .onConflictDoUpdate({ target: [sessionDigests.userId, sessionDigests.sessionId], set: values })
    .run();
}

/** Drops the summaries of the sessions these turns belong to (before the turns are deleted). Inside a write. */
export async function dropSummariesOfTurns(store: Store, turnIds: number[]) {
  if (turnIds.length === 0) return;
  await store.sql.run(
    `delete from session_digests where exists (select 1 from turns t where t.id in (select value from sm_ids(?))
       and t.user_id = session_digests.user_id and t.session_id = session_digests.session_id)`,
    [JSON.stringify(turnIds)],
  );
}

/** Drops the space's summaries whose text matches `pattern` (a LIKE pattern over normalised text, as forget builds it). Inside a write. */
export async function dropSummariesSaying(store: Store, space: Space, pattern: string) {
  const rows = await store.sql.all<{ sessionId: string; agentId: string | null }>(
    `select session_id as sessionId, agent_id as agentId from session_digests where user_id = ? and (' ' || sm_normalize(summary) || ' ') like ? escape '\\'`,
    [space.userId, pattern],
  );
  for (const row of rows.filter((r) => visibleIn(space, { userId: space.userId, agentId: r.agentId }))) {
    await store.sql.run('delete from session_digests where user_id = ? and session_id = ?', [
      space.userId,
      row.sessionId,
    ]);
  }
}

/** Queues the model summary of a finished session. Inside a write. */
export async function queueSessionSummary(store: Store, space: Space, sessionId: string) {
  await enqueueJob(store, JobType.Digest, { sessionId, userId: space.userId });
}
