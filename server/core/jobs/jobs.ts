// Durable background work (docs/architecture.md#jobs): a job row is written in the same transaction as the data
// that caused it; workers claim jobs with a lease, so a job whose process died runs again.
import { and, asc, count, eq, inArray, lte, or, sql } from 'drizzle-orm';
import { jobs, type JobStatus } from '../../../drizzle/schema.ts';
import { unavailable } from '../kernel/errors.ts';
import { rowCodec } from '../kernel/rows.ts';
import { publish, write, type Store } from '../kernel/store.ts';

export type JobRow = typeof jobs.$inferSelect;

const jobRows = rowCodec(jobs);

/** Every kind of background work, named once. */
export const JobType = {
  /** LLM extraction for a stored turn (hybrid mode, or llm mode's recovery after a crash). */
  ExtractLlm: 'extract.llm',
  /** Accurate NER (compromise, LLM) for a stored turn and the memories extracted from it. */
  NerAccurate: 'ner.accurate',
  /** Accurate NER for the turns deferred while its queue was full (see entities/ner/deferral.ts), a batch at a time. */
  NerCatchUp: 'ner.catchup',
  /** Consolidate one finished session (queued when a new session starts, and nightly). */
  Consolidate: 'session.consolidate',
  /** A model summary of one consolidated session, when a model is configured (its digest). */
  Digest: 'session.digest',
  /** Embed turns and memories for vector search (payload: turnIds, memoryIds). */
  Embed: 'embed',
} as const;
export type JobType = (typeof JobType)[keyof typeof JobType];

export const JOB_DEFAULTS = {
  maxAttempts: 5,
  /** First retry after 1 s, then 2 s, 4 s… capped at one hour. */
  backoffBaseMs: 1_000,
  backoffCapMs: 3_600_000,
} as const;

/** Until when a job claimed now is its worker's (worker.lease_s). */
const leaseEnd = (store: Store, now: number) => now + store.config.worker.lease_s * 1000;

// Raw SQL built once: addTurn enqueues on every turn, and building the drizzle query cost more
// (about 0.3 ms) than running it; the port reuses the statement by its text.
const INSERT_JOB = `insert into jobs (type, user_id, payload, run_at, max_attempts, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?) returning ${jobRows.columns}`;

export async function enqueueJob(
  store: Store,
  type: JobType,
  payload: Record<string, unknown> = {},
  options: { runAt?: number; maxAttempts?: number } = {},
): Promise<JobRow> {
  const now = store.clock.now();
  const [inserted] = await store.sql.values(INSERT_JOB, [
    type,
    typeof payload.userId === 'string' ? payload.userId : null,
    JSON.stringify(payload),
    options.runAt ?? now,
    options.maxAttempts ?? JOB_DEFAULTS.maxAttempts,
    now,
    now,
  ]);
  return jobQueued(store, inserted!);
}

/**
 * Postgres: a job about the turn a statement inserts (its CTE `turn`), written by the same
 * statement (addTurn's round trip saved): its payload is `{turnId, userId}` as enqueueJob writes
 * it. Parameters: type, run_at, max_attempts, created_at, updated_at.
 */
export const JOB_OF_TURN = `insert into jobs (type, user_id, payload, run_at, max_attempts, created_at, updated_at)
  select ?, user_id, json_build_object('turnId', id, 'userId', user_id)::text, ?, ?, ?, ? from turn returning ${jobRows.columns}`;
export const jobColumnCount = jobRows.columns.split(', ').length;

/** A job row just inserted (by enqueueJob, or with its turn): counted in the queue's load and announced. */
export function jobQueued(store: Store, inserted: unknown[]): JobRow {
  const job = jobRows.decode(inserted);
  const load = loads.get(store);
  if (load) {
    load.pending++;
    if (job.type === JobType.NerAccurate) load.ner++;
  }
  publish(store, {
    type: 'job',
    jobId: job.id,
    jobType: job.type,
    status: 'pending',
    at: job.createdAt,
    userId: job.userId ?? '',
  });
  return job;
}

/**
 * How long a count of the queue serves the bounds: addTurn asks on every turn, and counting
 * thousands of pending rows each time would cost more than the turn. In between, this process's
 * enqueues keep the count current, and its claims and failures have it counted again.
 */
const LOAD_TTL_MS = 250;
type Load = { pending: number; ner: number; at: number };
const loads = new WeakMap<Store, Load>();

const COUNT_LOAD =
  "select count(*) as pending, coalesce(sum(case when type = 'ner.accurate' then 1 else 0 end), 0) as ner from jobs where status = 'pending'";

/** Pending jobs, all of them and the accurate-NER ones (see LOAD_TTL_MS). */
export async function queueLoad(store: Store): Promise<{ pending: number; ner: number }> {
  const now = performance.now();
  let load = loads.get(store);
  if (!load || now - load.at > LOAD_TTL_MS) {
    const row = (await store.sql.get<{ pending: number; ner: number }>(COUNT_LOAD))!;
    load = { pending: Number(row.pending), ner: Number(row.ner), at: now };
    loads.set(store, load);
  }
  return load;
}

/** Retry-After for a full queue: long enough for a worker to make room, short enough to keep a writer going. */
export const QUEUE_FULL_RETRY_SECONDS = 2;

/**
 * Back-pressure: a write that queues background work is refused (UNAVAILABLE, HTTP 503 with
 * Retry-After) once worker.max_queue jobs wait, instead of letting the queue grow without bound.
 * Nothing is written, so the client's retry is the only copy: nothing acknowledged is lost.
 */
export async function assertQueueRoom(store: Store) {
  const { pending } = await queueLoad(store);
  const max = store.config.worker.max_queue;
  if (pending < max) return;
  throw unavailable(
    `${pending} background jobs are waiting (worker.max_queue is ${max}): retry in ${QUEUE_FULL_RETRY_SECONDS} s`,
    QUEUE_FULL_RETRY_SECONDS,
  );
}

/** Ready jobs: pending and due, or running with an expired lease (their worker died). */
const ready = (now: number) =>
  or(
    and(eq(jobs.status, 'pending'), lte(jobs.runAt, now)),
    and(eq(jobs.status, 'running'), lte(jobs.lockedUntil, now)),
  );

/** `fresh`: only jobs never tried before (a batch groups those: see the worker). */
export type ClaimFilter = { types?: readonly string[]; ids?: readonly number[]; fresh?: boolean };

/**
 * Where the backend can (Postgres), one statement that locks the due rows it picks and skips rows
 * other nodes' claims hold (the dialect's text). It runs outside write(): the database-wide write
 * lock would queue each claim behind every other node's writes, which is what SKIP LOCKED is there
 * to avoid, and the row locks are all a claim needs (the readers that look at jobs, such as "is a
 * consolidation job waiting?", count running jobs as waiting too).
 */
async function claimSkippingLocked(
  store: Store,
  statement: string,
  limit: number,
  filter: ClaimFilter,
  workerId: string | null,
): Promise<JobRow[]> {
  const now = store.clock.now();
  const types = filter.types ? JSON.stringify(filter.types) : null;
  const ids = filter.ids ? JSON.stringify(filter.ids) : null;
  const rows = await store.sql.values(statement, [
    leaseEnd(store, now),
    workerId,
    now,
    now,
    now,
    types,
    types,
    ids,
    ids,
    filter.fresh ? 1 : 0,
    limit,
  ]);
  if (rows.length > 0) loads.delete(store);
  return rows.map((row) => jobRows.decode(row)).sort((a, b) => a.runAt - b.runAt || a.id - b.id);
}

export async function claimJobs(
  store: Store,
  limit: number,
  filter: ClaimFilter = {},
  workerId: string | null = null,
): Promise<JobRow[]> {
  const skipLocked = store.dialect.statements.jobs.claimSkippingLocked;
  if (skipLocked) return claimSkippingLocked(store, skipLocked(jobRows.columns), limit, filter, workerId);
  return write(store, async () => {
    const now = store.clock.now();
    const due = await store.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          ready(now),
          filter.types ? inArray(jobs.type, [...filter.types]) : undefined,
          filter.ids ? inArray(jobs.id, [...filter.ids]) : undefined,
          filter.fresh ? eq(jobs.attempts, 0) : undefined,
        ),
      )
      .orderBy(asc(jobs.runAt), asc(jobs.id))
      .limit(limit);
    if (due.length === 0) return [];
    loads.delete(store); // fewer pending from here: the next queueLoad counts again
    const claimed = await store.db
      .update(jobs)
      .set({
        status: 'running',
        attempts: sql`${jobs.attempts} + 1`,
        lockedUntil: leaseEnd(store, now),
        lockedBy: workerId,
        updatedAt: now,
      })
      .where(
        inArray(
          jobs.id,
          due.map((j) => j.id),
        ),
      )
      .returning();
    return claimed.sort((a, b) => a.runAt - b.runAt || a.id - b.id);
  });
}

/** Settles a job whose work was done another way (e.g. inline), so no worker runs it. */
export const completeJob = (store: Store, id: number) => completeJobs(store, [id]);

const COMPLETE_JOBS =
  "update jobs set status = 'done', locked_until = null, last_error = null, updated_at = ? where id in (select value from sm_ids(?))";

/** Settles finished jobs in one write (a batch handler's many jobs). */
export async function completeJobs(store: Store, ids: readonly number[]) {
  if (ids.length === 0) return;
  await write(store, async () => {
    const now = store.clock.now();
    await store.sql.run(COMPLETE_JOBS, [now, JSON.stringify(ids)]);
    for (const id of ids) publish(store, { type: 'job', jobId: id, status: 'done', at: now, userId: '' });
  });
}

export const backoffMs = (attempts: number) =>
  Math.min(JOB_DEFAULTS.backoffCapMs, JOB_DEFAULTS.backoffBaseMs * 2 ** Math.max(0, attempts - 1));

/** A failed attempt: retried later with exponential backoff, or dead-lettered with its error. */
export async function failJob(store: Store, job: JobRow, error: string): Promise<JobStatus> {
  loads.delete(store);
  return write(store, async () => {
    const now = store.clock.now();
    const status: JobStatus = job.attempts >= job.maxAttempts ? 'dead' : 'pending';
    await store.db
      .update(jobs)
      .set({
        status,
        lastError: error.slice(0, 2000),
        lockedUntil: null,
        runAt: now + backoffMs(job.attempts),
        updatedAt: now,
      })
      .where(eq(jobs.id, job.id))
      .run();
    publish(store, { type: 'job', jobId: job.id, status, at: now, userId: job.userId ?? '' });
    return status;
  });
}

export async function jobCounts(store: Store): Promise<Record<JobStatus, number>> {
  const rows = await store.db.select({ status: jobs.status, n: count() }).from(jobs).groupBy(jobs.status);
  const counts: Record<JobStatus, number> = { pending: 0, running: 0, done: 0, dead: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

export type JobBacklog = {
  /** Jobs due and not yet claimed: work waiting for a worker. */
  backlog: number;
  /** How long the oldest of them has waited since it was due, in seconds to 0.1 (0 when none waits). */
  lagSeconds: number;
  byType: { type: string; backlog: number; lagSeconds: number }[];
};

const BACKLOG = (byUser: boolean) =>
  `select type, count(*) as n, min(run_at) as oldest from jobs where status = 'pending' and run_at <= ? ${byUser ? 'and user_id = ?' : ''} group by type order by type`;
const BACKLOG_ALL = BACKLOG(false);
const BACKLOG_OF_USER = BACKLOG(true);

/** The queue's backlog and lag: one user's jobs, or all of them (null). Retries waiting for their backoff are not due yet. */
export async function jobBacklog(store: Store, userId: string | null): Promise<JobBacklog> {
  const now = store.clock.now();
  const rows = await store.sql.all<{ type: string; n: number; oldest: number }>(
    userId === null ? BACKLOG_ALL : BACKLOG_OF_USER,
    userId === null ? [now] : [now, userId],
  );
  const byType = rows.map((r) => ({
    type: r.type,
    backlog: r.n,
    lagSeconds: Math.round(Math.max(0, now - r.oldest) / 100) / 10,
  }));
  return {
    backlog: byType.reduce((n, t) => n + t.backlog, 0),
    lagSeconds: Math.max(0, ...byType.map((t) => t.lagSeconds)),
    byType,
  };
}

export async function listJobs(store: Store, filter: { status?: JobStatus; limit?: number } = {}): Promise<JobRow[]> {
  return store.db
    .select()
    .from(jobs)
    .where(filter.status ? eq(jobs.status, filter.status) : undefined)
    .orderBy(sql`${jobs.id} desc`)
    .limit(filter.limit ?? 50)
    .all();
}

const RUNNING_HOLDERS = "select distinct locked_by from jobs where status = 'running' and locked_by is not null";
// Only rows still held by a gone holder: one claimed again meanwhile (its lease expired, another
// node took it: Postgres claims outside the write lock) names its new holder and is left alone.
const RELEASE_HOLDERS =
  "update jobs set status = 'pending', locked_until = null, locked_by = null, run_at = ?, updated_at = ? where status = 'running' and locked_by in (select value from sm_texts(?))";

/**
 * Jobs left `running` by a worker that no longer exists (its process was killed) go back to
 * pending at once instead of waiting for their lease. `isGone` decides from the lockedBy id.
 * Nothing is written when no holder is gone (workers ask every few seconds).
 */
export async function recoverAbandonedJobs(store: Store, isGone: (workerId: string) => boolean): Promise<number> {
  const holders = (await store.sql.values(RUNNING_HOLDERS)).map((row) => row[0] as string);
  const gone = holders.filter(isGone);
  if (gone.length === 0) return 0;
  loads.delete(store);
  const now = store.clock.now();
  return write(store, async () => (await store.sql.run(RELEASE_HOLDERS, [now, now, JSON.stringify(gone)])).changes);
}

/** Deletes jobs that finished before `before`; dead ones stay for inspection. */
export async function purgeFinishedJobs(store: Store, before: number): Promise<number> {
  return (
    await store.db
      .delete(jobs)
      .where(and(eq(jobs.status, 'done'), lte(jobs.updatedAt, before)))
      .run()
  ).changes;
}

/** When the next pending job is due (for a worker deciding how long to sleep), or null. */
export async function nextJobAt(store: Store, types?: readonly string[]): Promise<number | null> {
  const row = await store.db
    .select({
      at: sql<number | null>`min(case when ${jobs.status} = 'pending' then ${jobs.runAt} else ${jobs.lockedUntil} end)`,
    })
    .from(jobs)
    .where(and(inArray(jobs.status, ['pending', 'running']), types ? inArray(jobs.type, [...types]) : undefined))
    .get();
  return row?.at ?? null;
}

const LAST_RUN = 'select value from meta where key = ?';
const SET_LAST_RUN =
  'insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value';

/**
 * Runs the occurrence `slot` (when it was due, epoch ms) of the scheduled task `name` once across
 * the nodes sharing the database: under `exclusively` (a node finding the task under way leaves
 * it), and not again once one has finished it (meta `schedule.<name>` holds the last occurrence
 * done), for the node whose clock runs late. A run that failed is not recorded: a later node may
 * still do it. `undefined` when it was left to another.
 */
export async function runScheduledOnce<T>(
  store: Store,
  name: string,
  slot: number,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  const key = `schedule.${name}`;
  const done = { value: undefined as T | undefined };
  const ran = await store.sql.exclusively(name, async () => {
    const last = await store.sql.pluck<string>(LAST_RUN, [key]);
    if (last !== undefined && Number(JSON.parse(last)) >= slot) return false;
    done.value = await fn();
    await write(store, async () => void (await store.sql.run(SET_LAST_RUN, [key, JSON.stringify(slot)])));
    return true;
  });
  return ran ? done.value : undefined;
}
