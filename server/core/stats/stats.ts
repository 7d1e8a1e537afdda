// Counts for `sm stats` and the Stats API type: what is stored, what is queued, what the db can do.
import { count, eq, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { JOB_STATUSES, MEMORY_KINDS, MEMORY_LAYERS, MEMORY_STATUSES } from '../../../drizzle/vocabulary.ts';
import {
  entities,
  jobs,
  memories,
  sessions,
  turns,
  type JobStatus,
  type MemoryKind,
  type MemoryLayer,
  type MemoryStatus,
} from '../../../drizzle/schema.ts';
import { jobBacklog, type JobBacklog } from '../jobs/jobs.ts';
import { deferredTurnCount, nerCheapMode } from '../entities/ner/deferral.ts';
import { semanticOn } from '../vectors/semantic.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';

export type Stats = {
  memories: {
    total: number;
    byStatus: Record<MemoryStatus, number>;
    /** Active memories only: the layers are what the assistant currently remembers. */
    byLayer: Record<MemoryLayer, number>;
    /** Active memories only. */
    byKind: Record<MemoryKind, number>;
  };
  turns: number;
  sessions: number;
  entities: number;
  jobs: Record<JobStatus, number> &
    JobBacklog & {
      /** Turns whose accurate NER waits for the catch-up (deferred in cheap mode). */
      nerDeferred: number;
      /** True while new turns get the fast NER pass only (the accurate-NER queue is at ner.max_backlog). */
      nerCheapMode: boolean;
    };
  /** semantic: the local word vectors rank turns (vectors/semantic.ts; off while they are being converted). */
  features: { fts: boolean; vec: boolean; semantic: boolean };
};

const zeroes = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** One user's counts (jobs: that user's), or the whole file's when `space` is null (admin). */
export async function getStats(store: Store, space: Space | null): Promise<Stats> {
  const { db } = store;
  const mine = <T extends { userId: SQLiteColumn }>(table: T) => (space ? eq(table.userId, space.userId) : undefined);
  const byStatus = zeroes(MEMORY_STATUSES);
  const byLayer = zeroes(MEMORY_LAYERS);
  const byKind = zeroes(MEMORY_KINDS);
  // One grouped scan gives all three breakdowns.
  const groups = await db
    .select({ status: memories.status, layer: memories.layer, kind: memories.kind, n: count() })
    .from(memories)
    .where(mine(memories))
    .groupBy(memories.status, memories.layer, memories.kind)
    .all();
  let total = 0;
  for (const g of groups) {
    total += g.n;
    byStatus[g.status] += g.n;
    if (g.status !== 'active') continue;
    byLayer[g.layer] += g.n;
    byKind[g.kind] += g.n;
  }
  const jobCounts = zeroes(JOB_STATUSES);
  for (const g of await db
    .select({ status: jobs.status, n: count() })
    .from(jobs)
    .where(space ? eq(jobs.userId, space.userId) : undefined)
    .groupBy(jobs.status)
    .all()) {
    jobCounts[g.status] = g.n;
  }
  const countOf = async (table: typeof turns | typeof sessions | typeof entities) =>
    (await db.select({ n: sql<number>`count(*)` }).from(table).where(mine(table)).get())!.n;
  return {
    memories: { total, byStatus, byLayer, byKind },
    turns: await countOf(turns),
    sessions: await countOf(sessions),
    entities: await countOf(entities),
    jobs: {
      ...jobCounts,
      ...(await jobBacklog(store, space?.userId ?? null)),
      nerDeferred: await deferredTurnCount(store, space?.userId ?? null),
      nerCheapMode: await nerCheapMode(store),
    },
    features: {
      fts: store.features.fts && store.config.fts.enabled,
      vec: store.features.vec,
      semantic: semanticOn(store),
    },
  };
}
