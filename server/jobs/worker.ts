// The in-process worker: runs durable jobs with a concurrency limit, retries with backoff,
// dead-letters after the last attempt, and picks up jobs left behind by a dead process.
import { hostname } from 'node:os';
import { claimJobs, completeJob, failJob, nextJobAt, recoverAbandonedJobs, type JobRow } from '../core/jobs.ts';
import { onChange, type Store } from '../core/store.ts';
import { logger } from '../logger.ts';

export type JobHandler = (store: Store, job: JobRow) => Promise<void>;
export type JobHandlers = Record<string, JobHandler>;

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

async function runOne(store: Store, handlers: JobHandlers, job: JobRow, report?: DrainReport) {
  if (report) report.ran++;
  const handler = handlers[job.type];
  try {
    if (!handler) throw new Error(`no handler for job type ${job.type}`);
    await handler(store, job);
    completeJob(store, job.id);
    if (report) report.done++;
  } catch (error) {
    const status = failJob(store, job, describe(error));
    if (report) {
      report.failed++;
      if (status === 'dead') report.dead++;
    }
    logger.warn({ jobId: job.id, type: job.type, attempt: job.attempts, status, error: describe(error) }, 'job failed');
  }
}

/**
 * Runs every job that is due now, `concurrency` at a time, until none is left
 * (retries scheduled for later stay queued). Used by `sm jobs --run` and embedded commands.
 */
export async function drainJobs(
  store: Store,
  handlers: JobHandlers,
  options: { concurrency?: number; ids?: readonly number[] } = {},
): Promise<DrainReport> {
  const report: DrainReport = { ran: 0, done: 0, failed: 0, dead: 0 };
  const filter = { types: Object.keys(handlers), ids: options.ids };
  recoverJobs(store);
  for (;;) {
    const batch = claimJobs(store, options.concurrency ?? 4, filter, WORKER_ID);
    if (batch.length === 0) return report;
    await Promise.all(batch.map((job) => runOne(store, handlers, job, report)));
  }
}

export type Worker = { stop(): Promise<void> };

/** A long-running worker for the server: wakes on new jobs and when the next retry is due. */
export function startWorker(store: Store, handlers: JobHandlers, options: { concurrency?: number; pollMs?: number } = {}): Worker {
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 1_000;
  const types = Object.keys(handlers);
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, delay));
    timer.unref();
  };

  function tick() {
    if (stopped) return;
    const free = concurrency - inFlight.size;
    if (free <= 0) return; // a finishing job calls tick again
    const batch = claimJobs(store, free, { types }, WORKER_ID);
    for (const job of batch) {
      const running = runOne(store, handlers, job).finally(() => {
        inFlight.delete(running);
        schedule(0);
      });
      inFlight.add(running);
    }
    if (batch.length === free) return;
    const next = nextJobAt(store, types);
    schedule(next === null ? pollMs : Math.min(pollMs, Math.max(10, next - store.clock.now())));
  }

  recoverJobs(store);
  const unsubscribe = onChange(store, (event) => {
    if (event.type === 'job' && event.status === 'pending') schedule(0);
  });
  schedule(0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
      await Promise.allSettled([...inFlight]);
    },
  };
}
