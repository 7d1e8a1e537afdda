// The maintenance tasks (enrichment, consolidation catch-up, decay, weekly reflection, and merging the
// full-text search indexes). The scheduler runs them nightly; the API (`runMaintenance`) and CLI (`sm maintenance TASK`) run them on demand.
import { pendingSessions, pendingSessionsOfAll, type ConsolidationReport } from '../core/extraction/consolidation.ts';
import type { Space } from '../core/kernel/space.ts';
import type { Sql } from '../core/kernel/store.ts';
import { runDecay, type DecayReport } from '../core/memory/decay.ts';
import { runScheduledOnce } from '../core/jobs/jobs.ts';
import { reflectionDue, saveReflection, templateReflection, type ReflectionInputs } from '../core/memory/reflection.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import { consolidateSession } from './consolidate.ts';
import { describeLlmError } from '../llm/client.ts';
import { logger } from '../logger.ts';
import type { ScheduleOptions } from '../jobs/scheduler.ts';
import type { Runtime } from './runtime.ts';

import type { MaintenanceTask } from './maintenance-tasks.ts';

export { MAINTENANCE_TASKS, type MaintenanceTask } from './maintenance-tasks.ts';

export type ReflectionReport = {
  userId: string;
  created: boolean;
  reason: string;
  reflection: MemoryRow | null;
  path: 'llm' | 'template' | null;
};
export type ConsolidationRunReport = {
  sessions: ConsolidationReport[];
  failed: { userId: string; sessionId: string; reason: string }[];
};
export type EnrichmentReport = { skipped: boolean; reason: string; memories: number; turns: number; links: number };
/** The full-text indexes merged (SQLite: FTS5 segments into one, none without FTS5; Postgres: GIN pending lists) and how long it took. */
export type OptimizationReport = Awaited<ReturnType<Sql['optimize']>>;

export type MaintenanceReport =
  | { task: 'enrich'; startedAt: number; finishedAt: number; enrichment: EnrichmentReport }
  | { task: 'consolidate'; startedAt: number; finishedAt: number; consolidation: ConsolidationRunReport }
  | { task: 'decay'; startedAt: number; finishedAt: number; decay: DecayReport }
  /** `reflection`: the one user's report, or for a run over every user the first created (else the first); `reflections`: one per user. */
  | {
      task: 'reflect';
      startedAt: number;
      finishedAt: number;
      reflection: ReflectionReport;
      reflections: ReflectionReport[];
    }
  | { task: 'optimize'; startedAt: number; finishedAt: number; optimization: OptimizationReport };

async function llmReflection(runtime: Runtime, inputs: ReflectionInputs): Promise<string | null> {
  if (!runtime.llm) return null;
  try {
    const facts = inputs.facts.map((f) => `- ${f.content}`).join('\n');
    const changes =
      inputs.changes.map(([fresh, old]) => `- "${fresh.content}" replaced "${old.content}"`).join('\n') || '(none)';
    const result = await runtime.llm.chat([
      {
        role: 'system',
        content:
          "You write a weekly reflection for an assistant's long-term memory: what the week's new facts say about the people involved, patterns, what changed, and what to keep in mind. At most 150 words of plain text.",
      },
      { role: 'user', content: `New facts this week:\n${facts}\n\nWhat changed:\n${changes}` },
    ]);
    return result.content.trim() || null;
  } catch (error) {
    logger.warn({ error: describeLlmError(error) }, 'LLM reflection failed; writing the template reflection');
    return null;
  }
}

/** The weekly reflection of one user (per user per week: each user's facts, each user's interval). */
export async function runReflection(runtime: Runtime, space: Space): Promise<ReflectionReport> {
  const due = await reflectionDue(runtime.store, space);
  if (!due.run) return { userId: space.userId, created: false, reason: due.reason, reflection: null, path: null };
  const written = await llmReflection(runtime, due.inputs);
  const content = written ?? templateReflection(due.inputs);
  const reflection = await saveReflection(runtime.store, space, content, due.inputs);
  return {
    userId: space.userId,
    created: true,
    reason: `${due.inputs.facts.length} new facts`,
    reflection,
    path: written ? 'llm' : 'template',
  };
}

const userIds = async (runtime: Runtime) =>
  (await runtime.store.sql.all<{ id: string }>('select id from users order by id')).map((row) => row.id);

/** Nightly catch-up: every unconsolidated session idle for `consolidation.idle_minutes`, of one user or of all. */
export async function runConsolidation(runtime: Runtime, space: Space | null = null): Promise<ConsolidationRunReport> {
  const { store } = runtime;
  const idleBefore = store.clock.now() - store.config.consolidation.idle_minutes * 60_000;
  const report: ConsolidationRunReport = { sessions: [], failed: [] };
  const pending = space
    ? (await pendingSessions(store, space, { idleBefore })).map((sessionId) => ({ userId: space.userId, sessionId }))
    : await pendingSessionsOfAll(store, idleBefore);
  for (const { userId, sessionId } of pending) {
    try {
      report.sessions.push(await consolidateSession(runtime, { userId, agentId: null }, sessionId));
    } catch (error) {
      report.failed.push({ userId, sessionId, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return report;
}

async function reflectAll(runtime: Runtime, space: Space | null) {
  const reports: ReflectionReport[] = [];
  for (const userId of space ? [space.userId] : await userIds(runtime))
    reports.push(await runReflection(runtime, { userId, agentId: null }));
  const none: ReflectionReport = {
    userId: space?.userId ?? '',
    created: false,
    reason: 'no users',
    reflection: null,
    path: null,
  };
  return { reflection: reports.find((r) => r.created) ?? reports[0] ?? none, reflections: reports };
}

export type Enricher = (runtime: Runtime) => Promise<EnrichmentReport> | EnrichmentReport;

/** The nightly schedule (config `schedule`) and how to run each task, for the host's scheduler. */
export function maintenanceSchedule(runtime: Runtime, enrich?: Enricher): ScheduleOptions<MaintenanceTask> {
  const { schedule } = runtime.store.config;
  return {
    tasks: {
      enrich: schedule.enrich,
      consolidate: schedule.consolidate,
      decay: schedule.decay,
      reflect: schedule.reflect,
      optimize: schedule.optimize,
    },
    timezone: schedule.timezone || undefined,
    run: (task) => runMaintenance(runtime, task, enrich),
    // Every node sharing a Postgres database schedules these at the same time: one runs each.
    exclusively: (task, slot, fn) => runScheduledOnce(runtime.store, `maintenance.${task}`, slot, fn),
  };
}

/** Runs a task over one user's data, or over every user's (`space` null: the schedule, the admin). */
export async function runMaintenance(
  runtime: Runtime,
  task: MaintenanceTask,
  enrich?: Enricher,
  space: Space | null = null,
): Promise<MaintenanceReport> {
  const startedAt = runtime.store.clock.now();
  const finished = <R extends object>(result: R) => ({ startedAt, finishedAt: runtime.store.clock.now(), ...result });
  switch (task) {
    case 'enrich':
      return finished({
        task,
        enrichment: enrich
          ? await enrich(runtime)
          : { skipped: true, reason: 'no entity enrichment available', memories: 0, turns: 0, links: 0 },
      });
    case 'consolidate':
      return finished({ task, consolidation: await runConsolidation(runtime, space) });
    case 'decay':
      return finished({ task, decay: await runDecay(runtime.store, space) });
    case 'reflect':
      return finished({ task, ...(await reflectAll(runtime, space)) });
    case 'optimize':
      return finished({ task, optimization: await runtime.store.sql.optimize() });
  }
}
