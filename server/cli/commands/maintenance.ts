// gc, maintenance TASK, jobs, stats, doctor: operating the memory.
import { Argument, Option, type Command } from 'commander';
import { JOB_STATUSES } from '../../../drizzle/vocabulary.ts';
import { MAINTENANCE_TASKS } from '../../services/maintenance-tasks.ts';
import { withBackend } from '../backend.ts';
import { count, emit, fixed, green, red, table } from '../output.ts';
import { integer, upper } from '../parse.ts';
import type { GlobalOptions, RegisterCommand } from '../runtime.ts';
import type { RunMaintenanceMutation, StatsQuery } from '../../../client/src/generated/sdk.ts';

export function registerMaintenanceCommands(program: Command, globals: () => GlobalOptions) {
  for (const register of [gc, maintenance, jobs, stats, reembed, doctor]) register(program, globals);
}

const gc: RegisterCommand = (program, globals) =>
  program
    .command('gc')
    .description('recompute scores, promote mid->long, archive (or delete) weak and old mid memories')
    .addHelpText('after', '\nExample:\n  sm gc --json')
    .action(async () => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { gc: r } = await sdk.gc();
        emit(options, r, () =>
          [
            `scored ${r.scored} · promoted ${r.promoted} · ${r.mode === 'ARCHIVE' ? `archived ${r.archived}` : `deleted ${r.deleted}`} · purged ${r.purged}`,
            `  low score ${r.byReason.lowScore} · expired ${r.byReason.expired} · over capacity ${r.byReason.overCapacity}`,
            `  average score ${fixed(r.averageScore)} · average age ${fixed(r.averageAgeDays, 1)} days`,
          ].join('\n'),
        );
      });
    });

/** What a maintenance task did, in a few lines. */
function maintenanceText(r: RunMaintenanceMutation['runMaintenance']): string {
  if (r.decay)
    return `decay: ${count(r.decay.scanned, 'fact')} scanned, ${r.decay.updated} updated, ${r.decay.archived} archived (threshold ${r.decay.threshold})`;
  if (r.reflection)
    return r.reflection.created
      ? `reflection written (${r.reflection.path?.toLowerCase()}):\n${r.reflection.reflection?.content}`
      : `no reflection: ${r.reflection.reason}`;
  if (r.consolidation) {
    const done = r.consolidation.sessions.map(
      (s) => `  ${s.sessionId}: ${s.created} created, ${s.merged} merged, ${s.superseded} superseded`,
    );
    const failed = r.consolidation.failed.map((f) => `  ${f.sessionId}: failed (${f.reason})`);
    return [`consolidated ${count(r.consolidation.sessions.length, 'session')}`, ...done, ...failed].join('\n');
  }
  if (r.optimization) {
    return r.optimization.indexes.length === 0
      ? 'optimize: no FTS5 search indexes (this SQLite build has no FTS5)'
      : `optimized ${r.optimization.indexes.join(', ')} in ${fixed(r.optimization.ms, 1)} ms`;
  }
  if (r.enrichment)
    return r.enrichment.skipped
      ? `enrichment skipped: ${r.enrichment.reason}`
      : `enrichment: ${count(r.enrichment.memories, 'memory', 'memories')}, ${count(r.enrichment.turns, 'turn')}, ${count(r.enrichment.links, 'link')}`;
  return 'done';
}

const maintenance: RegisterCommand = (program, globals) =>
  program
    .command('maintenance')
    .description('run a nightly maintenance task now and print its report')
    .addArgument(new Argument('<task>', 'the task').choices(MAINTENANCE_TASKS))
    .addHelpText(
      'after',
      '\nExamples:\n  sm maintenance decay\n  sm maintenance reflect --json\n  sm maintenance optimize',
    )
    .action(async (task: string) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { runMaintenance: r } = await sdk.runMaintenance({ task: upper(task) as never });
        emit(options, r, () => maintenanceText(r));
      });
    });

const jobs: RegisterCommand = (program, globals) =>
  program
    .command('jobs')
    .description('the background job queue; --run runs every due job now')
    .addOption(new Option('--status <status>').choices(JOB_STATUSES))
    .option('--limit <n>', 'at most this many', integer, 20)
    .option('--run', 'run the due jobs now (LLM extraction, consolidation, NER, embeddings)')
    .addHelpText('after', '\nExamples:\n  sm jobs --status dead\n  sm jobs --run')
    .action(async (opts: { status?: string; limit: number; run?: boolean }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        if (opts.run) {
          const { runJobs: r } = await sdk.runJobs();
          emit(
            options,
            r,
            () => `ran ${count(r.ran, 'job')}: ${r.done} done, ${r.failed} failed (${r.dead} dead-lettered)`,
          );
          return;
        }
        const { jobs } = await sdk.jobs({ status: upper(opts.status) as never, first: opts.limit });
        emit(options, jobs, () =>
          jobs.length === 0
            ? 'no jobs'
            : table(
                ['id', 'type', 'status', 'attempts', 'run at', 'last error'],
                jobs.map((j) => [
                  j.id,
                  j.type,
                  j.status.toLowerCase(),
                  `${j.attempts}/${j.maxAttempts}`,
                  j.runAt,
                  j.lastError,
                ]),
              ),
        );
      });
    });

/** The counts, the job queue, the features and the extraction table. */
function statsText(s: StatsQuery['stats']): string {
  return [
    `memories ${s.memories.total} (${s.memories.active} active: ${s.memories.mid} mid, ${s.memories.long} long, ${s.memories.reflections} reflections; ${s.memories.archived} archived)`,
    `turns ${s.turns} in ${count(s.sessions, 'session')} · entities ${s.entities}`,
    `jobs: ${s.jobs.pending} pending, ${s.jobs.running} running, ${s.jobs.done} done, ${s.jobs.dead} dead · backlog ${s.jobs.backlog}, lag ${fixed(s.jobs.lagSeconds, 1)} s` +
      (s.jobs.byType.length > 0
        ? ` (${s.jobs.byType.map((t) => `${t.type} ${t.backlog}, ${fixed(t.lagSeconds, 1)} s`).join('; ')})`
        : ''),
    ...(s.jobs.nerCheapMode || s.jobs.nerDeferred > 0
      ? [
          `ner: ${s.jobs.nerCheapMode ? 'cheap mode (fast pass only: the accurate queue is at ner.max_backlog)' : 'catching up'}, ${count(s.jobs.nerDeferred, 'turn')} waiting for the accurate pass`,
        ]
      : []),
    `features: fts ${s.features.fts ? 'on' : 'off (LIKE)'}, sqlite-vec ${s.features.vec ? 'loaded' : 'missing'}, word vectors ${s.features.semantic ? 'on' : 'off (sm doctor says why)'}`,
    table(
      ['extraction', 'runs', 'failures', 'facts', 'avg ms', 'tokens in/out', 'last error'],
      s.extraction.map((e) => [
        e.path,
        e.runs,
        e.failures,
        e.facts,
        fixed(e.averageMs, 2),
        `${e.promptTokens}/${e.completionTokens}`,
        e.lastError,
      ]),
    ),
  ].join('\n');
}

const stats: RegisterCommand = (program, globals) =>
  program
    .command('stats')
    .description('counts of memories, turns, sessions, entities and jobs; job backlog and lag; extraction figures')
    .addHelpText('after', '\nExample:\n  sm stats --json')
    .action(async () => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { stats: s } = await sdk.stats();
        emit(options, s, () => statsText(s));
      });
    });

const reembed: RegisterCommand = (program, globals) =>
  program
    .command('reembed')
    .description('embed every turn and memory that has no vector yet (after configuring an embedding model)')
    .option('--reset', 'drop all vectors and lock the configured model and size (after changing them)')
    .option('--all', 'embed rows that already have a vector too')
    .addHelpText('after', '\nExamples:\n  sm reembed\n  sm reembed --reset')
    .action(async (opts: { reset?: boolean; all?: boolean }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { reembed: r } = await sdk.reembed({ reset: opts.reset ?? false, all: opts.all ?? false });
        emit(
          options,
          r,
          () =>
            `embedded ${count(r.turns, 'turn')} and ${count(r.memories, 'memory', 'memories')} with ${r.model} (${r.dimensions} dimensions); ${count(r.storedTurns, 'turn')} and ${count(r.storedMemories, 'memory', 'memories')} have vectors`,
        );
      });
    });

const doctor: RegisterCommand = (program, globals) =>
  program
    .command('doctor')
    .description('check the installation: FTS5, sqlite-vec, integrity, LLM and embedding endpoints, jobs')
    .addHelpText('after', '\nExample:\n  sm doctor')
    .action(async () => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { doctor } = await sdk.doctor();
        emit(options, doctor, () =>
          doctor
            .map(
              (c) =>
                `${c.ok ? green('pass') : red('FAIL')}  ${c.name}: ${c.detail}${!c.ok && c.hint ? `\n      hint: ${c.hint}` : ''}`,
            )
            .join('\n'),
        );
        if (doctor.some((c) => !c.ok)) process.exitCode = 1;
      });
    });
