// The GC pass: rescore, promote mid->long, clean up mid, optionally purge archived rows.
import { and, eq, isNotNull, lt } from 'drizzle-orm';
import { memories } from '../../../drizzle/schema.ts';
import { DAY_MS, daysBetween } from '../kernel/clock.ts';
import type { Config } from '../kernel/config.ts';
import { Decision, logDecision } from './decisions.ts';
import { deleteMemories } from './forget.ts';
import { purgeFinishedJobs } from '../jobs/jobs.ts';
import { archiveMemory, type MemoryRow } from './memories.ts';
import { score } from './scoring.ts';
import { groupBy } from '../kernel/group-by.ts';
import type { Space } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';

const JOB_RETENTION_DAYS = 7;

export const GcReason = {
  LowScore: 'low_score',
  Expired: 'expired',
  OverCapacity: 'over_capacity',
} as const;
export type GcReason = (typeof GcReason)[keyof typeof GcReason];

export type GcReport = {
  at: number;
  mode: Config['gc']['mode'];
  scored: number;
  promoted: number;
  archived: number;
  deleted: number;
  purged: number;
  /** Finished jobs older than a week, cleared so the queue does not grow with every turn. */
  jobsPurged: number;
  byReason: Record<GcReason, number>;
  averageScore: number;
  averageAgeDays: number;
};

/** Protected memories (decay_rate 0: confirmed facts, reflections, standing memory; and pinned ones) are never cleaned up. */
export const isProtected = (memory: Pick<MemoryRow, 'decayRate'> & Partial<Pick<MemoryRow, 'pinned'>>) =>
  memory.decayRate === 0 || memory.pinned === true;

export function isPromotable(memory: MemoryRow, now: number, mid: Config['mid']) {
  return (
    memory.layer === 'mid' &&
    memory.hits >= mid.promote_hits &&
    daysBetween(memory.lastSeenAt, now) <= mid.promote_within_days
  );
}

/** Why a mid memory would be cleaned up now by its own score and age (capacity aside), or null. */
export function cleanupReason(
  memory: MemoryRow,
  memoryScore: number,
  now: number,
  mid: Config['mid'],
): GcReason | null {
  if (memory.layer !== 'mid' || isProtected(memory)) return null;
  if (memoryScore < mid.min_score) return GcReason.LowScore;
  if (daysBetween(memory.createdAt, now) > mid.demote_age_days) return GcReason.Expired;
  return null;
}

const SET_SCORE = 'update memories set score = ? where id = ?';

type Removal = { memory: MemoryRow; reason: GcReason };

/** Rescores the active memories (of one user, or all), writing the scores that moved, and averages them into `report`. */
async function rescore(store: Store, space: Space | null, report: GcReport) {
  const now = report.at;
  const active = await store.db
    .select()
    .from(memories)
    .where(and(space ? eq(memories.userId, space.userId) : undefined, eq(memories.status, 'active')));
  const scores = new Map<number, number>();
  for (const memory of active) {
    const value = score(memory, now, store.config.scoring);
    scores.set(memory.id, value);
    if (value !== memory.score) await store.sql.run(SET_SCORE, [value, memory.id]);
    report.averageScore += value;
    report.averageAgeDays += daysBetween(memory.createdAt, now);
  }
  report.scored = active.length;
  if (active.length > 0) {
    report.averageScore /= active.length;
    report.averageAgeDays /= active.length;
  }
  return { active, scores };
}

/** Promotes what qualifies; of the rest, what goes and why, and the mid memories kept. */
async function promoteOrSort(
  store: Store,
  scored: { active: MemoryRow[]; scores: Map<number, number> },
  report: GcReport,
): Promise<{ removals: Removal[]; keptMid: MemoryRow[] }> {
  const now = report.at;
  const { mid } = store.config;
  const removals: Removal[] = [];
  const keptMid: MemoryRow[] = [];
  for (const memory of scored.active) {
    if (isPromotable(memory, now, mid)) {
      await store.db
        .update(memories)
        .set({ layer: 'long', decayRate: memory.decayRate === 0 ? 0 : store.config.decay.long_rate })
        .where(eq(memories.id, memory.id))
        .run();
      await logDecision(store, {
        memoryId: memory.id,
        action: Decision.Promoted,
        detail: {
          hits: memory.hits,
          daysSinceSeen: daysBetween(memory.lastSeenAt, now),
        },
      });
      report.promoted++;
      continue;
    }
    const reason = cleanupReason(memory, scored.scores.get(memory.id)!, now, mid);
    if (reason) removals.push({ memory, reason });
    else if (memory.layer === 'mid') keptMid.push(memory);
  }
  return { removals, keptMid };
}

/** Each user's lowest-scored unprotected mid memories past mid.capacity (which counts protected ones too). */
function overCapacity(keptMid: MemoryRow[], scores: Map<number, number>, capacity: number): Removal[] {
  const removals: Removal[] = [];
  for (const userMid of groupBy(keptMid, (m) => m.userId).values()) {
    const overflow = userMid.length - capacity;
    if (overflow <= 0) continue;
    const evictable = userMid
      .filter((m) => !isProtected(m))
      .sort((a, b) => scores.get(a.id)! - scores.get(b.id)! || a.id - b.id);
    for (const memory of evictable.slice(0, overflow)) removals.push({ memory, reason: GcReason.OverCapacity });
  }
  return removals;
}

/** Hard-deletes archived memories whose validity ended more than gc.purge_archived_after_days ago. */
async function purgeArchived(store: Store, space: Space | null, now: number): Promise<number> {
  const days = store.config.gc.purge_archived_after_days;
  if (days === null) return 0;
  const cutoff = now - days * DAY_MS;
  const purge = (
    await store.db
      .select({ id: memories.id })
      .from(memories)
      .where(
        and(
          space ? eq(memories.userId, space.userId) : undefined,
          eq(memories.status, 'archived'),
          isNotNull(memories.validUntil),
          lt(memories.validUntil, cutoff),
        ),
      )
  ).map((r) => r.id);
  await deleteMemories(store, purge, 'purged');
  return purge.length;
}

/**
 * Runs GC for one user, or for every user when `space` is null (the scheduled run). Capacity
 * (mid.capacity) is per user: one user's memories never push out another's.
 */
export async function runGc(store: Store, space: Space | null = null): Promise<GcReport> {
  return write(store, async () => {
    const now = store.clock.now();
    const { gc } = store.config;
    const report: GcReport = {
      at: now,
      mode: gc.mode,
      scored: 0,
      promoted: 0,
      archived: 0,
      deleted: 0,
      purged: 0,
      jobsPurged: 0,
      byReason: { low_score: 0, expired: 0, over_capacity: 0 },
      averageScore: 0,
      averageAgeDays: 0,
    };
    const scored = await rescore(store, space, report);
    const { removals, keptMid } = await promoteOrSort(store, scored, report);
    removals.push(...overCapacity(keptMid, scored.scores, store.config.mid.capacity));
    for (const { memory, reason } of removals) {
      report.byReason[reason]++;
      const detail = { reason, score: scored.scores.get(memory.id), ageDays: daysBetween(memory.createdAt, now) };
      if (gc.mode === 'archive') await archiveMemory(store, memory.id, detail);
      else await deleteMemories(store, [memory.id], reason);
    }
    if (gc.mode === 'archive') report.archived = removals.length;
    else report.deleted = removals.length;
    report.purged = await purgeArchived(store, space, now);
    // The job queue is the whole file's: only the run over every user clears it.
    if (!space) report.jobsPurged = await purgeFinishedJobs(store, now - JOB_RETENTION_DAYS * DAY_MS);
    return report;
  });
}
