// Session digests (docs/digests.md): the extractive digest is drawn from the session's turns
// when read; with a model configured, consolidation queues a model summary as a durable job.
// A failing endpoint fails the job (retried with backoff, then dead), never the consolidation,
// and the extractive digest stays what readers get meanwhile.
import { sessionDigestLines, type DigestLine } from '../core/digests/digest-lines.ts';
import { saveSessionSummary, sessionSummary, type SessionSummary } from '../core/digests/summaries.ts';
import { JobType } from '../core/jobs/jobs.ts';
import { getSession } from '../core/turns/sessions.ts';
import { spaceOf, type Space } from '../core/kernel/space.ts';
import { write } from '../core/kernel/store.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { llmSummarizeSession } from '../llm/digest.ts';
import type { Runtime } from './runtime.ts';

export type SessionDigest = {
  userId: string;
  sessionId: string;
  /** One line per exchange, oldest first, drawn from the turns visible in the space. */
  lines: DigestLine[];
  /** The model's summary, when one was written (it may cover fewer turns than the lines). */
  summary: SessionSummary | null;
};

/** A session's digest in the space, or null when the session has no turn there. */
export async function sessionDigest(runtime: Runtime, space: Space, sessionId: string): Promise<SessionDigest | null> {
  const { store } = runtime;
  if (!(await getSession(store, space, sessionId))) return null;
  const lines = await sessionDigestLines(store, space, sessionId);
  const summary = (await sessionSummary(store, space, sessionId)) ?? null;
  if (lines.length === 0 && !summary) return null;
  return { userId: space.userId, sessionId, lines, summary };
}

/** Summarises one session with the model; throws on any failure (the job retries). */
export async function summarizeSession(
  runtime: Runtime,
  userId: string,
  sessionId: string,
): Promise<SessionSummary | null> {
  const { store, llm } = runtime;
  // Queued while a model was configured and none is now: nothing to do, the extractive digest stands.
  if (!llm) return null;
  const user = spaceOf(userId);
  const lines = await sessionDigestLines(store, user, sessionId);
  if (lines.length === 0) return null;
  const turns = await store.sql.all<{ agentId: string | null; n: number; last: number }>(
    'select agent_id as agentId, count(*) as n, max(at) as last from turns where user_id = ? and session_id = ? group by agent_id',
    [userId, sessionId],
  );
  // A session said to one agent gets that agent's summary; a mixed one a shared one (as consolidation's facts).
  const agentId = turns.length === 1 ? turns[0]!.agentId : null;
  const { summary } = await llmSummarizeSession(llm, {
    date: new Date(lines[0]!.at).toISOString().slice(0, 10),
    lines: lines.map((l) => `[${new Date(l.at).toISOString().slice(0, 10)}] ${l.text}`),
  });
  const row = {
    userId,
    sessionId,
    agentId,
    summary,
    model: llm.model,
    turnCount: turns.reduce((sum, t) => sum + Number(t.n), 0),
    throughAt: Math.max(...turns.map((t) => Number(t.last))),
  };
  // The session may have been forgotten while the model was writing.
  return write(store, async () => {
    if (!(await getSession(store, user, sessionId))) return null;
    await saveSessionSummary(store, row);
    return { ...row, createdAt: store.clock.now() };
  });
}

export const digestJobHandlers = (runtime: Runtime): JobHandlers => ({
  [JobType.Digest]: async (_store, job) => {
    await summarizeSession(runtime, String(job.userId ?? job.payload.userId), String(job.payload.sessionId));
  },
});
