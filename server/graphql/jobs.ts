// Background jobs (docs/architecture.md#jobs): what is queued, failing or dead, and running the due ones now.
import { z } from 'zod';
import { JOB_STATUSES } from '../../drizzle/vocabulary.ts';
import type { JobRow } from '../core/jobs/jobs.ts';
import { jobHandlers } from '../services/job-handlers.ts';
import { drainJobs, type DrainReport } from '../jobs/worker.ts';
import { builder } from './builder.ts';
import { requireAdmin } from './spaces.ts';
import { JobType, listJobs } from '../services/stats.ts';

const STATUS_DESCRIPTIONS: Record<(typeof JOB_STATUSES)[number], string> = {
  pending: 'Waiting to run (new, or a retry waiting for its backoff).',
  running: 'Claimed by a worker now.',
  done: 'Finished.',
  dead: 'Gave up after its last attempt (see `lastError`).',
};

const JobStatus = builder.enumType('JobStatus', {
  description: 'Where a background job is.',
  values: Object.fromEntries(
    JOB_STATUSES.map((s) => [s.toUpperCase(), { value: s, description: STATUS_DESCRIPTIONS[s] }]),
  ) as {
    [K in (typeof JOB_STATUSES)[number] as Uppercase<K>]: { value: K; description: string };
  },
});

const KNOWN_TYPES = Object.values(JobType)
  .map((type) => `\`${type}\``)
  .join(', ');

/** Ids from a job's payload; anything else in it (which could be user text) is never exposed. */
const payloadId = (job: JobRow, key: 'turnId' | 'sessionId') => job.payload[key];

const Job = builder.objectRef<JobRow>('Job').implement({
  description:
    'A durable background job (LLM extraction, accurate NER, consolidation...), retried with backoff. Its payload is not exposed, only the ids it refers to.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Stable integer id.' }),
    type: t.exposeString('type', { description: `What it does (${KNOWN_TYPES}).` }),
    status: t.expose('status', { type: JobStatus, description: 'Where it is.' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    maxAttempts: t.exposeInt('maxAttempts', { description: 'Attempts allowed before it is dead-lettered.' }),
    runAt: t.expose('runAt', {
      type: 'DateTime',
      description: 'When it is (or was) due: a retry is due after its backoff.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'The error of its last failed attempt; null if none failed.',
    }),
    turnId: t.int({
      nullable: true,
      description: 'The turn it works on (extraction, NER), when it has one.',
      resolve: (job) => {
        const id = payloadId(job, 'turnId');
        return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
      },
    }),
    sessionId: t.string({
      nullable: true,
      description: 'The session it works on (consolidation), when it has one.',
      resolve: (job) => {
        const id = payloadId(job, 'sessionId');
        return typeof id === 'string' ? id : null;
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was queued.' }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      description: 'When it last changed (claimed, failed, finished).',
    }),
  }),
});

const RunJobsReport = builder.objectRef<DrainReport>('RunJobsReport').implement({
  description: 'What running the due jobs did.',
  fields: (t) => ({
    ran: t.exposeInt('ran', { description: 'Attempts made.' }),
    done: t.exposeInt('done', { description: 'Jobs that finished.' }),
    failed: t.exposeInt('failed', { description: 'Attempts that failed (retried later, or dead).' }),
    dead: t.exposeInt('dead', { description: 'Jobs that gave up after their last attempt.' }),
  }),
});

builder.queryFields((t) => ({
  jobs: t.field({
    type: [Job],
    description: 'Background jobs, newest first. `stats.jobs` has the counts by status.',
    args: {
      status: t.arg({ type: JobStatus, description: 'Only jobs with this status.' }),
      first: t.arg.int({
        required: true,
        defaultValue: 50,
        description: 'How many (1 to 500).',
        validate: z.number().int().min(1).max(500),
      }),
    },
    resolve: (_root, { status, first }, context) => {
      requireAdmin(context);
      return listJobs(context.store, { status: status ?? undefined, limit: first });
    },
  }),
}));

builder.mutationFields((t) => ({
  runJobs: t.field({
    type: RunJobsReport,
    description:
      'Runs every job that is due now, until none is left (retries scheduled later stay queued), and waits for them. ' +
      "The server's worker runs them anyway; this is for catching up at once.",
    resolve: (_root, _args, context) => {
      requireAdmin(context);
      return drainJobs(context.runtime.store, jobHandlers(context.runtime));
    },
  }),
}));
