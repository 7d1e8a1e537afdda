// Ebbinghaus decay (docs/architecture.md#score-and-confidence): confidence = base × exp(−decay_rate × days since the fact was
// last accessed or seen). It is a function of that time alone, so running nightly for 20 days
// and running once on day 20 agree; an access restores the base, so a used fact never fades away.
import { and, eq, gt } from 'drizzle-orm';
import { memories } from '../../../drizzle/schema.ts';
import { daysBetween } from '../kernel/clock.ts';
import { Decision, logDecision } from './decisions.ts';
import { archiveMemory, type MemoryRow } from './memories.ts';
import type { Space } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';

export type DecayReport = { at: number; scanned: number; updated: number; archived: number; threshold: number };

type Decayable = Pick<MemoryRow, 'confidenceBase' | 'decayRate' | 'lastAccessedAt' | 'lastSeenAt'>;

/** The moment the forgetting curve last restarted: the latest access or re-mention. */
export const decayAnchor = (memory: Decayable) => Math.max(memory.lastAccessedAt ?? 0, memory.lastSeenAt);

export function currentConfidence(memory: Decayable, now: number): number {
  if (memory.decayRate === 0) return memory.confidenceBase;
  return memory.confidenceBase * Math.exp(-memory.decayRate * daysBetween(decayAnchor(memory), now));
}

const SET_CONFIDENCE = 'update memories set confidence = ? where id = ?';

/** Decays one user's facts, or every user's when `space` is null (the nightly run; each fact on its own curve). */
export async function runDecay(store: Store, space: Space | null = null): Promise<DecayReport> {
  return write(store, async () => {
    const now = store.clock.now();
    const threshold = store.config.decay.threshold;
    const facts = await store.db
      .select()
      .from(memories)
      .where(
        and(
          space ? eq(memories.userId, space.userId) : undefined,
          eq(memories.status, 'active'),
          eq(memories.kind, 'fact'),
          eq(memories.pinned, false),
          gt(memories.decayRate, 0),
        ),
      );
    const report: DecayReport = { at: now, scanned: facts.length, updated: 0, archived: 0, threshold };
    for (const fact of facts) {
      const confidence = currentConfidence(fact, now);
      if (confidence !== fact.confidence) {
        await store.sql.run(SET_CONFIDENCE, [confidence, fact.id]);
        report.updated++;
      }
      if (confidence < threshold) {
        await logDecision(store, {
          memoryId: fact.id,
          action: Decision.Decayed,
          detail: {
            confidence,
            threshold,
            daysSinceAccess: daysBetween(decayAnchor(fact), now),
          },
        });
        await archiveMemory(store, fact.id, { reason: 'decayed', confidence });
        report.archived++;
      }
    }
    return report;
  });
}
