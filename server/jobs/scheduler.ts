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
};

export function startScheduler<Task extends string>({ tasks, timezone, run }: ScheduleOptions<Task>): Scheduler<Task> {
  const jobs = (Object.entries(tasks) as [Task, string][]).map(([task, expression]) => {
    const job = new Cron(
      expression,
      // protect: a run still going when the next one is due is not started twice.
      { name: task, protect: true, ...(timezone ? { timezone } : {}) },
      async () => {
        try {
          const report = await run(task);
          logger.info({ task, report }, 'scheduled task done');
        } catch (error) {
          logger.error({ task, error: error instanceof Error ? error.message : String(error) }, 'scheduled task failed');
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
