// Maintenance on demand: the nightly tasks (entity enrichment, consolidation catch-up, decay,
// search index optimization, weekly reflection) run now, each with its typed report.
import type { DecayReport as DecayReportShape } from '../core/memory/decay.ts';
import {
  MAINTENANCE_TASKS,
  runMaintenance,
  type ConsolidationRunReport,
  type EnrichmentReport as EnrichmentReportShape,
  type MaintenanceReport as MaintenanceReportShape,
  type MaintenanceTask as MaintenanceTaskName,
  type OptimizationReport as OptimizationReportShape,
  type ReflectionReport as ReflectionReportShape,
} from '../services/maintenance.ts';
import { nerEnricher } from '../services/ner.ts';
import { builder } from './builder.ts';
import { optionalSpace, requireAdmin, spaceArgs, writeSpace } from './spaces.ts';
import { ConsolidationReport } from './consolidation.ts';
import { MemoryRef } from './refs.ts';

const TASK_DESCRIPTIONS: Record<MaintenanceTaskName, string> = {
  enrich:
    'Entity enrichment: re-reads memories and turns that name few entities with the accurate NER providers (nightly 02:00).',
  consolidate:
    'Consolidation catch-up: every unconsolidated session idle for consolidation.idle_minutes (nightly 03:00).',
  decay:
    'Forgetting curve: lowers the confidence of facts by time since last access; archives those below decay.threshold (nightly 04:00).',
  reflect:
    "Weekly reflection from the last days' facts, when enough are new and none was written recently (Sunday 03:00).",
  optimize:
    'Merges the FTS5 search indexes (turns, memories) into one segment each, which speeds up text search after many writes (nightly 04:30).',
};

const MaintenanceTask = builder.enumType('MaintenanceTask', {
  description: "A maintenance task. Each also runs on the server's schedule (config `schedule`).",
  values: Object.fromEntries(
    MAINTENANCE_TASKS.map((task) => [task.toUpperCase(), { value: task, description: TASK_DESCRIPTIONS[task] }]),
  ) as { [K in MaintenanceTaskName as Uppercase<K>]: { value: K; description: string } },
});

const EnrichmentReport = builder.objectRef<EnrichmentReportShape>('EnrichmentReport').implement({
  description: 'What entity enrichment did.',
  fields: (t) => ({
    skipped: t.exposeBoolean('skipped', {
      description: 'True when it did not run (e.g. no accurate NER provider is available; see `reason`).',
    }),
    reason: t.exposeString('reason', { description: 'Why it was skipped, or what it looked at.' }),
    memories: t.exposeInt('memories', { description: 'Memories that gained entity links.' }),
    turns: t.exposeInt('turns', { description: 'Turns that gained entity links.' }),
    links: t.exposeInt('links', { description: 'Entity links added in all.' }),
  }),
});

const ConsolidationFailure = builder
  .objectRef<ConsolidationRunReport['failed'][number]>('ConsolidationFailure')
  .implement({
    description: 'A session whose consolidation failed (it stays pending and is retried on the next run).',
    fields: (t) => ({
      userId: t.exposeString('userId', { description: 'The user whose session it is.' }),
      sessionId: t.exposeString('sessionId', { description: 'The session.' }),
      reason: t.exposeString('reason', { description: 'Why it failed.' }),
    }),
  });

const ConsolidationRun = builder.objectRef<ConsolidationRunReport>('ConsolidationRun').implement({
  description: 'What a consolidation catch-up did: one report per consolidated session, and the failures.',
  fields: (t) => ({
    sessions: t.field({
      type: [ConsolidationReport],
      description: 'The sessions consolidated, oldest activity first.',
      resolve: (r) => r.sessions,
    }),
    failed: t.field({ type: [ConsolidationFailure], description: 'Sessions that failed.', resolve: (r) => r.failed }),
  }),
});

const DecayReport = builder.objectRef<DecayReportShape>('DecayReport').implement({
  description: 'What a decay pass did (confidence = base × exp(−decay_rate × days since last access)).',
  fields: (t) => ({
    scanned: t.exposeInt('scanned', { description: 'Active, unprotected facts looked at.' }),
    updated: t.exposeInt('updated', { description: 'Facts whose confidence changed.' }),
    archived: t.exposeInt('archived', {
      description: 'Facts archived because their confidence fell below the threshold.',
    }),
    threshold: t.exposeFloat('threshold', { description: 'The threshold used (config decay.threshold).' }),
  }),
});

const ReflectionPath = builder.enumType('ReflectionPath', {
  description: 'How a reflection was written.',
  values: {
    LLM: { value: 'llm', description: 'By the configured LLM.' },
    TEMPLATE: { value: 'template', description: 'From a template (no LLM configured, or it failed).' },
  } as const,
});

const ReflectionReport = builder.objectRef<ReflectionReportShape>('ReflectionReport').implement({
  description: 'What the weekly reflection task did for one user.',
  fields: (t) => ({
    userId: t.exposeString('userId', { description: 'The user it ran for (each user reflects on its own week).' }),
    created: t.exposeBoolean('created', { description: 'True when a reflection was written.' }),
    reason: t.exposeString('reason', {
      description: 'Why it was (e.g. `5 new facts`) or was not written (too few facts, too soon).',
    }),
    path: t.expose('path', {
      type: ReflectionPath,
      nullable: true,
      description: 'How it was written; null when none was.',
    }),
    reflection: t.field({
      type: MemoryRef,
      nullable: true,
      description: 'The new reflection; null when none was written.',
      resolve: (r) => r.reflection,
    }),
  }),
});

const OptimizationReport = builder.objectRef<OptimizationReportShape>('OptimizationReport').implement({
  description: 'What merging the FTS5 search indexes did.',
  fields: (t) => ({
    indexes: t.exposeStringList('indexes', {
      description:
        'The FTS5 indexes merged into one segment each (`memories_fts`, `turns_fts`); empty when this SQLite build has no FTS5.',
    }),
    ms: t.exposeFloat('ms', { description: 'How long the merge took, in milliseconds.' }),
  }),
});

/** The report's task-specific part, or null for the other tasks. */
const part = <K extends 'enrichment' | 'consolidation' | 'decay' | 'reflection' | 'reflections' | 'optimization'>(
  report: MaintenanceReportShape,
  key: K,
) =>
  ((report as Record<string, unknown>)[key] ?? null) as Extract<MaintenanceReportShape, Record<K, unknown>>[K] | null;

const MaintenanceReport = builder.objectRef<MaintenanceReportShape>('MaintenanceReport').implement({
  description: 'What a maintenance task did. Exactly one of the task fields is set: the one of `task`.',
  fields: (t) => ({
    task: t.expose('task', { type: MaintenanceTask, description: 'The task that ran.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When it started.' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', description: 'When it finished.' }),
    enrichment: t.field({
      type: EnrichmentReport,
      nullable: true,
      description: 'For ENRICH: its report.',
      resolve: (r) => part(r, 'enrichment'),
    }),
    consolidation: t.field({
      type: ConsolidationRun,
      nullable: true,
      description: 'For CONSOLIDATE: its report.',
      resolve: (r) => part(r, 'consolidation'),
    }),
    decay: t.field({
      type: DecayReport,
      nullable: true,
      description: 'For DECAY: its report.',
      resolve: (r) => part(r, 'decay'),
    }),
    reflection: t.field({
      type: ReflectionReport,
      nullable: true,
      description:
        "For REFLECT: the report of the one user it ran for; over every user, the first that got a reflection (else the first user's).",
      resolve: (r) => part(r, 'reflection'),
    }),
    reflections: t.field({
      type: [ReflectionReport],
      nullable: true,
      description: 'For REFLECT: one report per user it ran for.',
      resolve: (r) => part(r, 'reflections'),
    }),
    optimization: t.field({
      type: OptimizationReport,
      nullable: true,
      description: 'For OPTIMIZE: its report.',
      resolve: (r) => part(r, 'optimization'),
    }),
  }),
});

builder.mutationFields((t) => ({
  runMaintenance: t.field({
    type: MaintenanceReport,
    description:
      'Runs a maintenance task now (the server also runs each on its schedule). ENRICH is the entity enrichment ' +
      '(memories and turns with few entities re-read by the accurate pass). Tasks that call the LLM wait for it (llm.timeout_s per call). CONSOLIDATE, DECAY and REFLECT ' +
      "run over one user (`userId`, or a user token's) or every user (the admin without `userId`); ENRICH and OPTIMIZE need the admin token.",
    args: { task: t.arg({ type: MaintenanceTask, required: true, description: 'The task to run.' }), ...spaceArgs(t) },
    resolve: (_root, { task, ...args }, context) => {
      // ENRICH and OPTIMIZE work on the whole file; the others on one user (or every user for the admin).
      if (task === 'enrich' || task === 'optimize') requireAdmin(context);
      const space = optionalSpace(context, args);
      if (space) writeSpace(context, args);
      return runMaintenance(context.runtime, task, nerEnricher, space);
    },
  }),
}));
