// Session consolidation, the parts without a model: which sessions are
// pending, reading a session's turns in pages, the heuristic pass, and marking completion.
import { and, asc, eq, gt, or } from 'drizzle-orm';
import { sessions, turns } from '../../../drizzle/schema.ts';
import { extractHeuristically } from './extract-turn.ts';
import type { Extracted } from './save-facts.ts';
import { enqueueJob, JobType } from '../jobs/jobs.ts';
import { perDialect } from '../kernel/dialect-statements.ts';
import type { Space } from '../kernel/space.ts';
import { publish, write, type Store } from '../kernel/store.ts';
import type { TurnRow } from '../turns/turns.ts';

export const CONSOLIDATION_PAGE = 30;

export type ConsolidationReport = {
  userId: string;
  sessionId: string;
  status: 'completed' | 'skipped';
  /** Why it was skipped, or which extractor ran ("heuristic", "llm", "llm+heuristic"). */
  detail: string;
  turns: number;
  pages: number;
  created: number;
  merged: number;
  superseded: number;
  unchanged: number;
};

export const emptyReport = (userId: string, sessionId: string): ConsolidationReport => ({
  userId,
  sessionId,
  status: 'completed',
  detail: 'heuristic',
  turns: 0,
  pages: 0,
  created: 0,
  merged: 0,
  superseded: 0,
  unchanged: 0,
});

export function tally(report: ConsolidationReport, results: Extracted[]) {
  for (const result of results) {
    if (result.action === 'created') report.created++;
    else if (result.action === 'merged') report.merged++;
    else if (result.action === 'superseded' || result.action === 'archived') report.superseded++;
    else report.unchanged++;
  }
}

export async function isConsolidated(store: Store, space: Space, sessionId: string): Promise<boolean> {
  const row = await store.db
    .select({ at: sessions.consolidatedAt })
    .from(sessions)
    .where(and(eq(sessions.userId, space.userId), eq(sessions.id, sessionId)))
    .get();
  return row?.at != null;
}

/**
 * A user's unconsolidated sessions, oldest first, except `exclude` and those active after `idleBefore`.
 * Runs on every new session: the partial index sessions_unconsolidated holds only these.
 */
const PENDING_SESSIONS = `select id from sessions
  where user_id = ? and consolidated_at is null and (cast(? as text) is null or id <> ?) and (cast(? as bigint) is null or last_seen_at < ?)
  order by last_seen_at`;

export async function pendingSessions(
  store: Store,
  space: Space,
  options: { exclude?: string; idleBefore?: number } = {},
): Promise<string[]> {
  const exclude = options.exclude ?? null;
  const idleBefore = options.idleBefore ?? null;
  const rows = await store.sql.all<{ id: string }>(PENDING_SESSIONS, [
    space.userId,
    exclude,
    exclude,
    idleBefore,
    idleBefore,
  ]);
  return rows.map((row) => row.id);
}

const PENDING_SESSIONS_OF_ALL =
  'select user_id as userId, id as sessionId from sessions where consolidated_at is null and last_seen_at < ? order by last_seen_at';

/** Every user's unconsolidated sessions idle since before `idleBefore` (the nightly catch-up). */
export async function pendingSessionsOfAll(
  store: Store,
  idleBefore: number,
): Promise<{ userId: string; sessionId: string }[]> {
  return store.sql.all<{ userId: string; sessionId: string }>(PENDING_SESSIONS_OF_ALL, [idleBefore]);
}

// The type is spelled out, not bound, so that the partial index jobs_consolidation_session serves
// it; the payload is read as that index reads it on each backend (Postgres keeps it as text).
// One statement for all the sessions: a new session usually finds several of the user's waiting.
/** The sessions of a list that have a consolidation job waiting (the jobs_consolidation_session index). */
const consolidationWaiting = perDialect(
  (statements) => `select value from sm_texts(?) where exists (select 1 from jobs
  where jobs.type = '${JobType.Consolidate}' and jobs.user_id = ? and jobs.status in ('pending', 'running') and ${statements.jsonField('jobs.payload', 'sessionId')} = value)`,
);

/** Queues consolidation for each of the user's sessions unless a job for it is already waiting. Inside a write. */
export async function queueConsolidation(store: Store, space: Space, sessionIds: string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const rows = await store.sql.values(consolidationWaiting(store.dialect.statements, ''), [
    JSON.stringify(sessionIds),
    space.userId,
  ]);
  const waiting = new Set(rows.map(([sessionId]) => sessionId as string));
  let queued = 0;
  for (const sessionId of sessionIds) {
    if (waiting.has(sessionId)) continue;
    await enqueueJob(store, JobType.Consolidate, { sessionId, userId: space.userId });
    queued++;
  }
  return queued;
}

/** One page of a user's session's turns in conversation order, after the turn `after` (keyset). */
export async function turnPage(
  store: Store,
  space: Space,
  sessionId: string,
  after: TurnRow | null,
  size = CONSOLIDATION_PAGE,
): Promise<TurnRow[]> {
  return store.db
    .select()
    .from(turns)
    .where(
      and(
        eq(turns.userId, space.userId),
        eq(turns.sessionId, sessionId),
        after ? or(gt(turns.at, after.at), and(eq(turns.at, after.at), gt(turns.id, after.id))) : undefined,
      ),
    )
    .orderBy(asc(turns.at), asc(turns.id))
    .limit(size)
    .all();
}

/** The heuristic pass over one page: every user turn, with facts already known from it unchanged. */
export async function consolidatePageHeuristically(store: Store, page: TurnRow[]): Promise<Extracted[]> {
  return write(store, async () => {
    const extracted: Extracted[] = [];
    for (const turn of page) if (turn.role === 'user') extracted.push(...(await extractHeuristically(store, turn)));
    return extracted;
  });
}

export async function markConsolidated(store: Store, space: Space, sessionId: string) {
  await write(store, async () => {
    await store.db
      .update(sessions)
      .set({ consolidatedAt: store.clock.now() })
      .where(and(eq(sessions.userId, space.userId), eq(sessions.id, sessionId)))
      .run();
  });
}

export function publishConsolidation(
  store: Store,
  space: Space,
  sessionId: string,
  status: 'STARTED' | 'COMPLETED' | 'FAILED',
  extra: { report?: ConsolidationReport; reason?: string } = {},
) {
  publish(store, { type: 'consolidation', sessionId, status, at: store.clock.now(), userId: space.userId, ...extra });
}
