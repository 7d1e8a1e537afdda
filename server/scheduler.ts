// Nightly maintenance in the server (croner): 02:00 enrichment, 03:00 consolidation, 04:00 decay,
// 04:30 search index optimization, Sunday 03:00 reflection by default; expressions and time zone come from config `schedule`.
import { Cron } from 'croner';
import { logger } from './logger.ts';
import { runMaintenance, type Enricher, type MaintenanceTask } from './maintenance.ts';
import type { Runtime } from './runtime.ts';

export type Scheduler = { stop(): void; next(): Record<MaintenanceTask, Date | null> };

export function startScheduler(runtime: Runtime, enrich?: Enricher): Scheduler {
  const { schedule } = runtime.store.config;
  const tasks: Record<MaintenanceTask, string> = {
    enrich: schedule.enrich,
    consolidate: schedule.consolidate,
    decay: schedule.decay,
    reflect: schedule.reflect,
    optimize: schedule.optimize,
  };
  const jobs = Object.entries(tasks).map(([task, expression]) => {
    const job = new Cron(
      expression,
      // protect: a run still going when the next one is due is not started twice.
      { name: task, protect: true, ...(schedule.timezone ? { timezone: schedule.timezone } : {}) },
      async () => {
        try {
          const report = await runMaintenance(runtime, task as MaintenanceTask, enrich);
          logger.info({ task, report }, 'scheduled maintenance done');
        } catch (error) {
          logger.error({ task, error: error instanceof Error ? error.message : String(error) }, 'scheduled maintenance failed');
        }
      },
    );
    return [task as MaintenanceTask, job] as const;
  });
  return {
    stop: () => jobs.forEach(([, job]) => job.stop()),
    next: () => Object.fromEntries(jobs.map(([task, job]) => [task, job.nextRun()])) as Record<MaintenanceTask, Date | null>,
  };
}
