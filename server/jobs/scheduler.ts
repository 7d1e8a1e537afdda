// Runs named tasks on cron expressions (croner). It knows no task: the host registers them with
// the function that runs one, so the runner never imports the services it runs.
import { Cron } from 'croner';
import { logger } from '../logger.ts';

export type Scheduler<Task extends string> = { stop(): void; next(): Record<Task, Date | null> };

export type ScheduleOptions<Task extends string> = {
  /** Each task's cron expression. */
  tasks: Record<Task, string>;
  timezone?: string;
  run: (task: Task) => Promise<unknown>;
  /**
   * Runs a task's occurrence `slot` (the time it was due, epoch ms) unless another node runs it
   * or has run it (then `undefined`): every node of a shared database schedules the same tasks
   * at the same time, and one of them should do each (`runScheduledOnce`). Without it, every
   * run goes ahead.
   */
  exclusively?: <T>(task: Task, slot: number, fn: () => Promise<T>) => Promise<T | undefined>;
};

export function startScheduler<Task extends string>({
  tasks,
  timezone,
  run,
  exclusively,
}: ScheduleOptions<Task>): Scheduler<Task> {
  const jobs = (Object.entries(tasks) as [Task, string][]).map(([task, expression]) => {
    const job = new Cron(
      expression,
      // protect: a run still going when the next one is due is not started twice.
      { protect: true, ...(timezone ? { timezone } : {}) },
      async (self: Cron) => {
        try {
          // The occurrence this run is for, the same on every node whatever the clocks' skew
          // within a period (croner triggers a little after it).
          const slot = self.previousRuns(1, new Date(Date.now() + 1))[0]?.getTime() ?? Date.now();
          const ran = exclusively
            ? await exclusively(task, slot, async () => ({ report: await run(task) }))
            : { report: await run(task) };
          if (ran) logger.info({ task, report: ran.report }, 'scheduled task done');
          else logger.info({ task }, 'scheduled task left to the node already running it');
        } catch (error) {
          logger.error(
            { task, error: error instanceof Error ? error.message : String(error) },
            'scheduled task failed',
          );
        }
      },
    );
    return [task, job] as const;
  });
  return {
    stop: () => jobs.forEach(([, job]) => job.stop()),
    next: () => Object.fromEntries(jobs.map(([task, job]) => [task, job.nextRun()])) as Record<Task, Date | null>,
  };
}
