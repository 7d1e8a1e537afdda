// Explain (REST `why`): why a memory is where it is, from its numbers and its decision log.
import { eq, or } from 'drizzle-orm';
import { memoryRelations, memorySources } from '../../../drizzle/schema.ts';
import { daysBetween } from '../kernel/clock.ts';
import { currentConfidence } from './decay.ts';
import { listDecisions, type DecisionRow } from './decisions.ts';
import { notFound } from '../kernel/errors.ts';
import { cleanupReason, isPromotable, isProtected } from './gc.ts';
import { getMemory, type MemoryRow } from './memories.ts';
import { score, scoreTerms, type ScoreTerms } from './scoring.ts';
import { visibleIn, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { memoryIdSchema, parseInput } from '../kernel/validation.ts';

export type Explanation = {
  memoryId: number;
  /** Null once the memory was hard-deleted; the decisions still tell what happened. */
  memory: MemoryRow | null;
  status: 'active' | 'archived' | 'deleted';
  score: number;
  scoreTerms: ScoreTerms;
  hits: number;
  ageDays: number;
  daysSinceSeen: number;
  daysSinceAccess: number | null;
  /** Trust now: the base decayed by the days since last access or re-mention (what nightly decay will store). */
  confidence: number;
  decayRate: number;
  accessCount: number;
  protected: boolean;
  rules: string[];
  sources: { turnId: number; reason: string; rule: string | null }[];
  supersedes: number[];
  supersededBy: number[];
  derivedFrom: number[];
  decisions: DecisionRow[];
};

const ZERO_TERMS: ScoreTerms = { frequency: 0, recency: 0, importance: 0 };

function matchedRules(
  store: Store,
  memory: MemoryRow,
  memoryScore: number,
  now: number,
  sources: Explanation['sources'],
) {
  const { mid } = store.config;
  const rules = sources.filter((s) => s.rule).map((s) => `extracted: ${s.rule} (turn ${s.turnId})`);
  if (isProtected(memory)) rules.push('protected: decay_rate = 0 (never decays, exempt from cleanup)');
  if (memory.status !== 'active') return rules;
  if (isPromotable(memory, now, mid)) {
    rules.push(`promote: hits ${memory.hits} >= ${mid.promote_hits} and seen within ${mid.promote_within_days} days`);
  }
  const reason = cleanupReason(memory, memoryScore, now, mid);
  if (reason === 'low_score') rules.push(`cleanup: score ${memoryScore.toFixed(3)} < ${mid.min_score}`);
  if (reason === 'expired')
    rules.push(`cleanup: age ${daysBetween(memory.createdAt, now).toFixed(1)} days > ${mid.demote_age_days}`);
  return rules;
}

export async function explain(store: Store, space: Space, id: number): Promise<Explanation> {
  const memoryId = parseInput(memoryIdSchema, id);
  const found = await getMemory(store, memoryId);
  const memory = found && visibleIn(space, found) ? found : null;
  // A deleted memory's log is the user's; one of another space is indistinguishable from none.
  const decisions =
    found && !memory ? [] : (await listDecisions(store, memoryId, 20)).filter((d) => d.userId === space.userId);
  if (!memory && decisions.length === 0) throw notFound('memory', memoryId);
  const now = store.clock.now();
  if (!memory) {
    return {
      memoryId,
      memory,
      status: 'deleted',
      score: 0,
      scoreTerms: ZERO_TERMS,
      hits: 0,
      ageDays: 0,
      daysSinceSeen: 0,
      daysSinceAccess: null,
      confidence: 0,
      decayRate: 0,
      accessCount: 0,
      protected: false,
      rules: [],
      sources: [],
      supersedes: [],
      supersededBy: [],
      derivedFrom: [],
      decisions,
    };
  }
  const sources = await store.db
    .select({ turnId: memorySources.turnId, reason: memorySources.reason, rule: memorySources.rule })
    .from(memorySources)
    .where(eq(memorySources.memoryId, memoryId));
  const relations = await store.db
    .select()
    .from(memoryRelations)
    .where(or(eq(memoryRelations.fromId, memoryId), eq(memoryRelations.toId, memoryId)));
  const related = (kind: string, side: 'from' | 'to') =>
    relations
      .filter((r) => r.kind === kind && (side === 'from' ? r.fromId === memoryId : r.toId === memoryId))
      .map((r) => (side === 'from' ? r.toId : r.fromId));
  const memoryScore = score(memory, now, store.config.scoring);
  return {
    memoryId,
    memory,
    status: memory.status,
    score: memoryScore,
    scoreTerms: scoreTerms(memory, now, store.config.scoring),
    hits: memory.hits,
    ageDays: daysBetween(memory.createdAt, now),
    daysSinceSeen: daysBetween(memory.lastSeenAt, now),
    daysSinceAccess: memory.lastAccessedAt === null ? null : daysBetween(memory.lastAccessedAt, now),
    confidence: currentConfidence(memory, now),
    decayRate: memory.decayRate,
    accessCount: memory.accessCount,
    protected: isProtected(memory),
    rules: matchedRules(store, memory, memoryScore, now, sources),
    sources,
    supersedes: related('supersedes', 'from'),
    supersededBy: related('supersedes', 'to'),
    derivedFrom: related('derived_from', 'from'),
    decisions,
  };
}
