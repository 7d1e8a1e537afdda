// The GC pass: rescore, promote mid -> long, clean up the mid layer, purge old archived rows.
import type { GcReport as GcReportShape } from '../core/memory/gc.ts';
import { builder } from './builder.ts';
import { optionalSpace, spaceArgs, writeSpace } from './spaces.ts';
import { runGc } from '../services/memories.ts';

const GcMode = builder.enumType('GcMode', {
  description: 'What GC does with the memories it cleans up (config gc.mode).',
  values: {
    ARCHIVE: { value: 'archive', description: 'Archive them: hidden, kept for explain and history.' },
    DELETE: { value: 'delete', description: 'Hard-delete them.' },
  } as const,
});

const GcReasons = builder.objectRef<GcReportShape['byReason']>('GcReasons').implement({
  description: 'How many mid-term memories were cleaned up, by reason.',
  fields: (t) => ({
    lowScore: t.exposeInt('low_score', { description: 'Score below mid.min_score.' }),
    expired: t.exposeInt('expired', { description: 'Older than mid.demote_age_days.' }),
    overCapacity: t.exposeInt('over_capacity', { description: 'Lowest scores beyond mid.capacity.' }),
  }),
});

const GcReport = builder.objectRef<GcReportShape>('GcReport').implement({
  description: 'What a GC pass did.',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'When it ran.' }),
    mode: t.expose('mode', { type: GcMode, description: 'Archive or delete.' }),
    scored: t.exposeInt('scored', { description: 'Active memories rescored.' }),
    promoted: t.exposeInt('promoted', { description: 'Memories promoted from mid-term to long-term.' }),
    archived: t.exposeInt('archived', { description: 'Memories archived (archive mode).' }),
    deleted: t.exposeInt('deleted', { description: 'Memories hard-deleted (delete mode).' }),
    purged: t.exposeInt('purged', {
      description: 'Archived memories hard-deleted after gc.purge_archived_after_days.',
    }),
    jobsPurged: t.exposeInt('jobsPurged', {
      description: 'Finished background jobs older than a week, removed from the queue (dead ones are kept).',
    }),
    byReason: t.field({ type: GcReasons, description: 'Cleanups by reason.', resolve: (r) => r.byReason }),
    averageScore: t.exposeFloat('averageScore', { description: 'Average score of the active memories scored.' }),
    averageAgeDays: t.exposeFloat('averageAgeDays', {
      description: 'Average age in days of the active memories scored.',
    }),
  }),
});

builder.mutationFields((t) => ({
  gc: t.field({
    type: GcReport,
    description:
      "Runs a GC pass now (it also runs on a schedule in the server): over one user's memories (`userId`, or a user token's), " +
      "or every user's (the admin without `userId`). Capacity (mid.capacity) counts per user.",
    args: { ...spaceArgs(t) },
    resolve: (_root, args, context) => {
      const space = optionalSpace(context, args);
      if (space) writeSpace(context, args); // a read-only token may not
      return runGc(context.store, space);
    },
  }),
}));
