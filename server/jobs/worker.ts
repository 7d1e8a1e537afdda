// The in-process worker: runs durable jobs with a concurrency limit, retries with backoff,
// dead-letters after the last attempt, and picks up jobs left behind by a dead process. A batch
// handler takes many due jobs of its type at once (one claim, one run, one completion).
import { hostname } from 'node:os';
import {
  claimJobs,
  completeJobs,
  failJob,
  nextJobAt,
  recoverAbandonedJobs,
  type ClaimFilter,
  type JobRow,
} from '../core/jobs/jobs.ts';
import { onChange, type Store } from '../core/kernel/store.ts';
import { logger } from '../logger.ts';

export type JobHandler = (store: Store, job: JobRow) => Promise<void>;
/**
 * Up to `batch` due jobs of one type in one run: for work whose cost per call (a parse, a
 * request, a transaction) is worth sharing. Jobs whose type it handles are queued one by one as
 * usual; the worker groups them.
 */
export type BatchJobHandler = { batch: number; run: (store: Store, jobs: JobRow[]) => Promise<void> };
export type JobHandlers = Record<string, JobHandler | BatchJobHandler>;

export type DrainReport = { ran: number; done: number; failed: number; dead: number };

/** This process as a job holder: host and pid. */
export const WORKER_ID = `${hostname()}:${process.pid}`;

/** A holder on this host whose process is gone. Holders on other hosts are left to their lease. */
function isGoneLocally(workerId: string): boolean {
  const [host, pid] = workerId.split(':');
  if (host !== hostname() || !pid) return false;
  if (Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Puts jobs of dead local processes back in the queue; call before running jobs. */
export const recoverJobs = (store: Store) => recoverAbandonedJobs(store, isGoneLocally);

/** Errors are stored on the job; keep them to their message (no stack, no request bodies). */
const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/**
 * The next unit of work: the first ready job and, when its handler takes batches, the other
 * ready jobs of its type up to the batch size. Only jobs never tried are grouped: a job that
 * failed once runs alone from then on, so one bad job cannot keep failing a batch of good ones.
 */
async function claimUnit(store: Store, handlers: JobHandlers, filter: ClaimFilter): Promise<JobRow[]> {
  const [first] = await claimJobs(store, 1, filter, WORKER_ID);
  if (!first) return [];
  const handler = handlers[first.type];
  if (!handler || typeof handler === 'function' || handler.batch <= 1 || first.attempts > 1) return [first];
  return [
    first,
    ...(await claimJobs(store, handler.batch - 1, { ...filter, types: [first.type], fresh: true }, WORKER_ID)),
  ];
}

async function runUnit(store: Store, handlers: JobHandlers, unit: JobRow[], report?: DrainReport) {
  const first = unit[0]!;
  if (report) report.ran += unit.length;
  const handler = handlers[first.type];
  try {
    if (!handler) throw new Error(`no handler for job type ${first.type}`);
    if (typeof handler === 'function') await handler(store, first);
    else await handler.run(store, unit);
    await completeJobs(
      store,
      unit.map((job) => job.id),
    );
    if (report) report.done += unit.length;
  } catch (error) {
    logger.warn(
      { jobIds: unit.map((job) => job.id), type: first.type, attempt: first.attempts, error: describe(error) },
      'job failed',
    );
    try {
      for (const job of unit) {
        const status = await failJob(store, job, describe(error));
        if (report) {
          report.failed++;
          if (status === 'dead') report.dead++;
        }
      }
    } catch (failure) {
      // The database is gone too (DATABASE_UNAVAILABLE): the jobs stay claimed, and run again
      // once their lease ends (or at once when this process is gone: recoverJobs).
      logger.warn(
        { jobIds: unit.map((job) => job.id), error: describe(failure) },
        'could not record the failure of a job',
      );
    }
  }
}

/**
 * Runs every job that is due now, `concurrency` units at a time, until none is left
 * (retries scheduled for later stay queued). Used by `sm jobs --run` and embedded commands.
 */
export async function drainJobs(
  store: Store,
  handlers: JobHandlers,
  options: { concurrency?: number; ids?: readonly number[] } = {},
): Promise<DrainReport> {
  const report: DrainReport = { ran: 0, done: 0, failed: 0, dead: 0 };
  const filter = { types: Object.keys(handlers), ids: options.ids };
  await recoverJobs(store);
  for (;;) {
    const units: JobRow[][] = [];
    for (
      let unit = await claimUnit(store, handlers, filter);
      unit.length > 0;
      unit = await claimUnit(store, handlers, filter)
    ) {
      units.push(unit);
      if (units.length === (options.concurrency ?? 4)) break;
    }
    if (units.length === 0) return report;
    await Promise.all(units.map((unit) => runUnit(store, handlers, unit, report)));
  }
}

export type Worker = { stop(): Promise<void> };

/** How often a running worker looks for jobs held by dead processes. */
const RECOVERY_EVERY_MS = 10_000;

/**
 * recoverJobs when `everyMs` have passed since it last ran: a running worker calls it before each
 * claim loop, as a node sharing the database (on this host) may be killed under its jobs.
 */
function periodicRecovery(store: Store, everyMs: number): () => Promise<void> {
  let recoveredAt = Number.NEGATIVE_INFINITY;
  return async () => {
    if (performance.now() - recoveredAt < everyMs) return;
    await recoverJobs(store);
    recoveredAt = performance.now();
  };
}

/** A long-running worker for the server: wakes on new jobs and when the next retry is due. */
export function startWorker(
  store: Store,
  handlers: JobHandlers,
  options: { concurrency?: number; pollMs?: number; recoveryMs?: number } = {},
): Worker {
  const { concurrency = 4, pollMs = 1_000, recoveryMs = RECOVERY_EVERY_MS } = options;
  const recoverWhenDue = periodicRecovery(store, recoveryMs);
  const types = Object.keys(handlers);
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // One claim loop at a time: its claims are awaited, and a second loop started meanwhile would
  // count the same free slots and run past the concurrency. A wake-up during a loop (a unit
  // finishing, a job queued) makes it look again when it ends, instead of being lost when the
  // loop sets its own timer.
  let ticking: Promise<void> | null = null;
  let again = false;

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(loop, Math.max(0, delay));
    timer.unref();
  };
  const wake = () => {
    if (ticking) again = true;
    else schedule(0);
  };
  function loop() {
    if (ticking) return;
    ticking = tick()
      .catch((error: unknown) => {
        // A claim that failed (the database is unreachable): tried again at the next poll.
        logger.warn({ error: describe(error) }, 'the job worker could not claim jobs');
        schedule(pollMs);
      })
      .finally(() => {
        ticking = null;
        if (again) {
          again = false;
          schedule(0);
        }
      });
  }

  async function tick() {
    if (stopped) return;
    await recoverWhenDue(); // jobs of dead processes go back to the queue before the claims
    while (!stopped && inFlight.size < concurrency) {
      const unit = await claimUnit(store, handlers, { types });
      if (unit.length === 0) break;
      const running = runUnit(store, handlers, unit).finally(() => {
        inFlight.delete(running);
        wake();
      });
      inFlight.add(running);
    }
    if (stopped || inFlight.size >= concurrency) return; // a finishing unit wakes it again
    const next = await nextJobAt(store, types);
    if (!again) schedule(next === null ? pollMs : Math.min(pollMs, Math.max(10, next - store.clock.now())));
  }

  const unsubscribe = onChange(store, (event) => {
    if (event.type === 'job' && event.status === 'pending') wake();
  });
  schedule(0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
      // A claim under way finishes first: the units it claimed run, and are waited for below.
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
  };
}
