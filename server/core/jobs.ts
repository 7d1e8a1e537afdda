// Durable background work (D10): a job row is written in the same transaction as the data
// that caused it; workers claim jobs with a lease, so a job whose process died runs again.
import { and, asc, count, eq, inArray, lte, or, sql } from 'drizzle-orm';
import { jobs, type JobStatus } from '../../drizzle/schema.ts';
import { rowCodec } from './rows.ts';
import { prepared, publish, write, type Store } from './store.ts';

export type JobRow = typeof jobs.$inferSelect;

const jobRows = rowCodec(jobs);

/** Every kind of background work, named once. */
export const JobType = {
  /** LLM extraction for a stored turn (hybrid mode, or llm mode's recovery after a crash). */
  ExtractLlm: 'extract.llm',
  /** Accurate NER (compromise, LLM) for a stored turn and the memories extracted from it. */
  NerAccurate: 'ner.accurate',
  /** Consolidate one finished session (queued when a new session starts, and nightly). */
  Consolidate: 'session.consolidate',
  /** Embed turns and memories for vector search (payload: turnIds, memoryIds). */
  Embed: 'embed',
} as const;
export type JobType = (typeof JobType)[keyof typeof JobType];

export const JOB_DEFAULTS = {
  maxAttempts: 5,
  /** First retry after 1 s, then 2 s, 4 s… capped at one hour. */
  backoffBaseMs: 1_000,
  backoffCapMs: 3_600_000,
  leaseMs: 5 * 60_000,
} as const;

export function enqueueJob(
  store: Store,
  type: JobType,
  payload: Record<string, unknown> = {},
  options: { runAt?: number; maxAttempts?: number } = {},
): JobRow {
  const now = store.clock.now();
  // Prepared once per store: addTurn enqueues on every turn, and building the query cost more
  // (about 0.3 ms) than running it.
  const inserted = prepared(store, 'job.insert', () =>
    store.sqlite
      .prepare(`insert into jobs (type, user_id, payload, run_at, max_attempts, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?) returning ${jobRows.columns}`)
      .raw(),
  ).get(type, typeof payload.userId === 'string' ? payload.userId : null, JSON.stringify(payload), options.runAt ?? now, options.maxAttempts ?? JOB_DEFAULTS.maxAttempts, now, now) as unknown[];
  const job = jobRows.decode(inserted);
  publish(store, { type: 'job', jobId: job.id, jobType: type, status: 'pending', at: now, userId: job.userId ?? '' });
  return job;
}

/** Ready jobs: pending and due, or running with an expired lease (their worker died). */
const ready = (now: number) =>
  or(
    and(eq(jobs.status, 'pending'), lte(jobs.runAt, now)),
    and(eq(jobs.status, 'running'), lte(jobs.lockedUntil, now)),
  );

export type ClaimFilter = { types?: readonly string[]; ids?: readonly number[] };

export function claimJobs(store: Store, limit: number, filter: ClaimFilter = {}, workerId: string | null = null): JobRow[] {
  return write(store, () => {
    const now = store.clock.now();
    const due = store.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(ready(now), filter.types ? inArray(jobs.type, [...filter.types]) : undefined, filter.ids ? inArray(jobs.id, [...filter.ids]) : undefined))
      .orderBy(asc(jobs.runAt), asc(jobs.id))
      .limit(limit)
      .all();
    if (due.length === 0) return [];
    return store.db
      .update(jobs)
      .set({ status: 'running', attempts: sql`${jobs.attempts} + 1`, lockedUntil: now + JOB_DEFAULTS.leaseMs, lockedBy: workerId, updatedAt: now })
      .where(inArray(jobs.id, due.map((j) => j.id)))
      .returning()
      .all()
      .sort((a, b) => a.runAt - b.runAt || a.id - b.id);
  });
}

/** Settles a job whose work was done another way (e.g. inline), so no worker runs it. */
export function completeJob(store: Store, id: number) {
  write(store, () => {
    const now = store.clock.now();
    store.db.update(jobs).set({ status: 'done', lockedUntil: null, lastError: null, updatedAt: now }).where(eq(jobs.id, id)).run();
    publish(store, { type: 'job', jobId: id, status: 'done', at: now, userId: '' });
  });
}

export const backoffMs = (attempts: number) =>
  Math.min(JOB_DEFAULTS.backoffCapMs, JOB_DEFAULTS.backoffBaseMs * 2 ** Math.max(0, attempts - 1));

/** A failed attempt: retried later with exponential backoff, or dead-lettered with its error. */
export function failJob(store: Store, job: JobRow, error: string): JobStatus {
  return write(store, () => {
    const now = store.clock.now();
    const status: JobStatus = job.attempts >= job.maxAttempts ? 'dead' : 'pending';
    store.db
      .update(jobs)
      .set({ status, lastError: error.slice(0, 2000), lockedUntil: null, runAt: now + backoffMs(job.attempts), updatedAt: now })
      .where(eq(jobs.id, job.id))
      .run();
    publish(store, { type: 'job', jobId: job.id, status, at: now, userId: job.userId ?? '' });
    return status;
  });
}

export function jobCounts(store: Store): Record<JobStatus, number> {
  const rows = store.db.select({ status: jobs.status, n: count() }).from(jobs).groupBy(jobs.status).all();
  const counts: Record<JobStatus, number> = { pending: 0, running: 0, done: 0, dead: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

export function listJobs(store: Store, filter: { status?: JobStatus; limit?: number } = {}): JobRow[] {
  return store.db
    .select()
    .from(jobs)
    .where(filter.status ? eq(jobs.status, filter.status) : undefined)
    .orderBy(sql`${jobs.id} desc`)
    .limit(filter.limit ?? 50)
    .all();
}

/**
 * Jobs left `running` by a worker that no longer exists (its process was killed) go back to
 * pending at once instead of waiting for their lease. `isGone` decides from the lockedBy id.
 */
export function recoverAbandonedJobs(store: Store, isGone: (workerId: string) => boolean): number {
  return write(store, () => {
    const running = store.db.select({ id: jobs.id, lockedBy: jobs.lockedBy }).from(jobs).where(eq(jobs.status, 'running')).all();
    const abandoned = running.filter((job) => job.lockedBy !== null && isGone(job.lockedBy)).map((job) => job.id);
    if (abandoned.length > 0) {
      store.db
        .update(jobs)
        .set({ status: 'pending', lockedUntil: null, lockedBy: null, runAt: store.clock.now(), updatedAt: store.clock.now() })
        .where(inArray(jobs.id, abandoned))
        .run();
    }
    return abandoned.length;
  });
}

/** Deletes jobs that finished before `before`; dead ones stay for inspection. */
export function purgeFinishedJobs(store: Store, before: number): number {
  return store.db.delete(jobs).where(and(eq(jobs.status, 'done'), lte(jobs.updatedAt, before))).run().changes;
}

/** When the next pending job is due (for a worker deciding how long to sleep), or null. */
export function nextJobAt(store: Store, types?: readonly string[]): number | null {
  const row = store.db
    .select({ at: sql<number | null>`min(case when ${jobs.status} = 'pending' then ${jobs.runAt} else ${jobs.lockedUntil} end)` })
    .from(jobs)
    .where(and(inArray(jobs.status, ['pending', 'running']), types ? inArray(jobs.type, [...types]) : undefined))
    .get();
  return row?.at ?? null;
}
