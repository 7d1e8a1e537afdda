// Saving extracted facts: two-level dedupe (exact inside the batch, then exact or fuzzy against
// the db), conflicts (same subject + slot, new value or flipped polarity) and PII tagging.
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { memories, memorySources } from '../../../drizzle/schema.ts';
import {
  archiveMemory,
  findExactDuplicate,
  insertMemory,
  linkSource,
  reinforce,
  slotFactsAndDuplicate,
  supersede,
  getMemory,
  type MemoryCandidate,
  type MemoryRow,
  type MemorySource,
} from '../memory/memories.ts';
import { writableClause, writableSql, type Space } from '../kernel/space.ts';
import { NEW_ROWS, noted, prepared, type Store } from '../kernel/store.ts';
import { indexTokens, normalizeText } from '../text/text.ts';
import { textIndexOf } from '../text-index/text-index.ts';
import { closestOf, datesIn, findFuzzyDuplicate, fuzzyProbe, type FuzzyProbe } from './fuzzy-duplicate.ts';
import { withPiiTag } from '../text/pii.ts';

/** `unchanged`: the fact was already known from this very turn (consolidation re-reading it). */
export const EXTRACTED_ACTIONS = ['created', 'merged', 'superseded', 'archived', 'unchanged'] as const;
export type ExtractedAction = (typeof EXTRACTED_ACTIONS)[number];

/** What one turn (or one consolidation pass) did to memory. */
export type Extracted = { action: ExtractedAction; memory: MemoryRow; rule: string | null };

export type FactToSave = MemoryCandidate & {
  rule?: string | null;
  exclusive?: boolean;
  /** When the fact was told (its turn's time); it decides which of two conflicting facts is the news. */
  toldAt?: number;
};

/** A move dated this long before the old home was last stated is history ("I moved to Paris in 2010"), not news. */
const HISTORY_MS = 90 * 86_400_000;

/**
 * When a stored fact was first and last told: the times of its source turns (the turns' own
 * times, which an import sets in the past), else when it was written and last seen.
 */
const TOLD_SPAN =
  "select min(t.at) as first, max(t.at) as last from memory_sources s join turns t on t.id = s.turn_id where s.memory_id = ? and s.reason in ('extracted', 'merged', 'conflict')";

async function toldSpan(store: Store, memory: MemoryRow): Promise<{ first: number; last: number }> {
  const span = (await store.sql.get<{ first: number | null; last: number | null }>(TOLD_SPAN, [memory.id]))!;
  return { first: span.first ?? memory.createdAt, last: span.last ?? memory.lastSeenAt };
}

/**
 * Whether stored fact `old` stays current against a conflicting `fresh` one: when it was told
 * later (a re-read of an older turn, an import out of order), or when `fresh` is dated well
 * before `old` was last stated (history, told now). Otherwise the later word wins, even when it
 * is dated a little in the past: "I live in Berlin", then "I moved to Lisbon last month".
 */
async function staysCurrent(
  store: Store,
  old: MemoryRow,
  fresh: { toldAt: number; eventAt: number },
): Promise<boolean> {
  const told = await toldSpan(store, old);
  return told.first > fresh.toldAt || fresh.eventAt < Math.max(told.last, old.eventAt) - HISTORY_MS;
}

const sameValue = (a: MemoryRow, fact: NonNullable<FactToSave['fact']>) =>
  normalizeText(a.value ?? '') === normalizeText(fact.value) && (a.polarity ?? 1) === fact.polarity;

/** Re-reading the same turn is not new evidence: no hit, no link. */
async function alreadyFrom(store: Store, memoryId: number, turnId: number | null): Promise<boolean> {
  if (turnId === null) return false;
  const link = await prepared(store, 'memory.sourceExists', (db) =>
    db
      .select({ memoryId: memorySources.memoryId })
      .from(memorySources)
      .where(
        and(
          eq(memorySources.memoryId, sql.placeholder('memoryId')),
          eq(memorySources.turnId, sql.placeholder('turnId')),
        ),
      )
      .prepare(),
  ).get({ memoryId, turnId });
  return link !== undefined;
}

/** A memory with this content already extracted from this turn (so of the turn's space), whatever its status since. */
const FROM_TURN_BY_KEY =
  'select memories.id from memories inner join memory_sources on memory_sources.memory_id = memories.id where memory_sources.turn_id = ? and memories.content_key = ?';

async function extractedBefore(
  store: Store,
  contentKey: string,
  turnId: number | null,
): Promise<MemoryRow | undefined> {
  if (turnId === null || noted(store, NEW_ROWS.turns)?.has(turnId)) return undefined;
  const id = await store.sql.pluck<number>(FROM_TURN_BY_KEY, [turnId, contentKey]);
  return id === undefined ? undefined : getMemory(store, id);
}

const PROTECT = 'update memories set decay_rate = 0, confidence = 1, confidence_base = 1 where id = ?';

type Conflict = {
  candidate: FactToSave;
  fact: NonNullable<FactToSave['fact']>;
  conflicting: MemoryRow[];
  turnId: number | null;
  source: MemorySource | undefined;
};

/** A fact that contradicts facts of its slot: the later-told one stays current, the other superseded. */
async function saveConflicting(store: Store, space: Space, c: Conflict): Promise<Extracted[]> {
  const { candidate, fact, conflicting, turnId } = c;
  const rule = candidate.rule ?? null;
  const memory = await insertMemory(store, space, candidate, c.source);
  const fresh = { toldAt: candidate.toldAt ?? memory.createdAt, eventAt: memory.eventAt };
  // Older news never replaces newer: the late-arriving fact is kept as history, superseded.
  const current: MemoryRow[] = [];
  for (const m of conflicting) if (await staysCurrent(store, m, fresh)) current.push(m);
  const newer = current.sort((a, b) => b.eventAt - a.eventAt)[0];
  if (newer) {
    await supersede(store, memory.id, newer.id, {
      reason: 'conflict',
      slot: fact.slot,
      older: true,
      ...(turnId ? { turnId } : {}),
    });
    return [{ action: 'superseded', memory: (await getMemory(store, memory.id))!, rule }];
  }
  const results: Extracted[] = [{ action: 'created', memory, rule }];
  for (const old of conflicting) {
    await supersede(store, old.id, memory.id, {
      reason: 'conflict',
      slot: fact.slot,
      ...(turnId ? { turnId } : {}),
    });
    results.push({ action: 'superseded', memory: (await getMemory(store, old.id))!, rule });
  }
  return results;
}

async function saveOne(store: Store, space: Space, candidate: FactToSave, turnId: number | null): Promise<Extracted[]> {
  const source = (reason: MemorySource['reason']): MemorySource | undefined =>
    turnId === null ? undefined : { turnId, reason, rule: candidate.rule ?? null };
  const rule = candidate.rule ?? null;
  const fact = candidate.fact;
  const merge = async (memory: MemoryRow): Promise<Extracted[]> => {
    if (await alreadyFrom(store, memory.id, turnId)) return [{ action: 'unchanged', memory, rule }];
    const merged = await reinforce(store, memory, candidate, source('merged'));
    // A health or diet fact said again of a fact kept unprotected (remembered before): protected now.
    if (candidate.decayRate === 0 && merged.decayRate !== 0) {
      await store.sql.run(PROTECT, [merged.id]);
      return [{ action: 'merged', memory: (await getMemory(store, merged.id))!, rule }];
    }
    return [{ action: 'merged', memory: merged, rule }];
  };

  // Re-reading a turn (consolidation) must not bring back a fact that was superseded since.
  const known = await extractedBefore(store, normalizeText(candidate.content), turnId);
  if (known) return [{ action: 'unchanged', memory: known, rule }];

  const kind = candidate.kind ?? 'fact';
  let exact: MemoryRow | undefined;
  let fuzzy: MemoryRow | undefined;
  // Read with the slot (on Postgres): then the fuzzy duplicate below needs no statement of its own.
  let probe: FuzzyProbe | null = null;
  if (fact) {
    // On a server the fuzzy duplicate's candidates are read with the slot and the exact duplicate:
    // a round trip saved. SQLite has no round trip to save, and reads them only when the slot settles nothing.
    probe = store.dialect.statements.combinesWrites
      ? await fuzzyProbe(store, space, candidate.content, fact.polarity, fact.subject)
      : null;
    const found = await slotFactsAndDuplicate(store, space, {
      fact,
      contentKey: normalizeText(candidate.content),
      kind,
      also: probe ?? undefined,
    });
    const existing = found.slotFacts;
    exact = found.duplicate;
    if (probe && found.also.length > 0) {
      const id = closestOf(
        probe,
        found.also.map((m) => [m.id, m.contentKey, m.polarity] as const),
      );
      fuzzy = found.also.find((m) => m.id === id);
    }
    // The same words dated differently ("went to the gym yesterday", a week apart) are two events.
    const myDates = datesIn(normalizeText(candidate.content));
    const same = existing.find(
      (m) => sameValue(m, fact) && !(myDates && datesIn(m.contentKey) && datesIn(m.contentKey) !== myDates),
    );
    if (same) return merge(same);
    const conflicting = existing.filter((m) => candidate.exclusive || (m.polarity ?? 1) !== fact.polarity);
    if (conflicting.length > 0)
      return saveConflicting(store, space, { candidate, fact, conflicting, turnId, source: source('conflict') });
  }
  // Nothing was written since the slot's read: its duplicates still stand.
  const duplicate =
    (fact ? exact : await findExactDuplicate(store, space, normalizeText(candidate.content), kind)) ??
    (probe ? fuzzy : await findFuzzyDuplicate(store, space, candidate.content, fact?.polarity ?? null, fact?.subject));
  if (duplicate) return merge(duplicate);
  return [{ action: 'created', memory: await insertMemory(store, space, candidate, source('extracted')), rule }];
}

/**
 * Saves a batch of facts from one source turn (or none). Runs inside the caller's transaction.
 * Exact duplicates inside the batch collapse first; each survivor is deduped against the db.
 */
export async function saveFacts(
  store: Store,
  space: Space,
  candidates: FactToSave[],
  turnId: number | null,
): Promise<Extracted[]> {
  const seen = new Set<string>();
  const results: Extracted[] = [];
  for (const candidate of candidates) {
    const key = normalizeText(candidate.content);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    results.push(
      ...(await saveOne(
        store,
        space,
        { ...candidate, tags: withPiiTag(candidate.content, candidate.tags ?? []) },
        turnId,
      )),
    );
  }
  return results;
}

/** Archives the active facts an LLM named as obsolete, by id or by closest content. */
export async function archiveFacts(
  store: Store,
  space: Space,
  targets: { id?: number; content?: string }[],
  turnId: number | null,
): Promise<Extracted[]> {
  const results: Extracted[] = [];
  const ids = targets.flatMap((t) => (t.id ? [t.id] : []));
  // Only facts this space may change: the same user, its own agent's or the shared ones.
  const writable = and(
    eq(memories.userId, space.userId),
    space.agentId === null
      ? isNull(memories.agentId)
      : or(isNull(memories.agentId), eq(memories.agentId, space.agentId)),
  );
  const byId = ids.length
    ? await store.db
        .select()
        .from(memories)
        .where(and(writable, inArray(memories.id, ids), eq(memories.status, 'active')))
        .all()
    : [];
  const byContent: (MemoryRow | undefined)[] = [];
  for (const t of targets) {
    if (t.id || !t.content) continue;
    byContent.push(
      (await findExactDuplicate(store, space, normalizeText(t.content), 'fact')) ??
        (await findFuzzyDuplicate(store, space, t.content, null)),
    );
  }
  for (const memory of [...byId, ...byContent]) {
    if (memory?.status !== 'active' || results.some((r) => r.memory.id === memory.id)) continue;
    if (turnId !== null) await linkSource(store, memory.id, { turnId, reason: 'conflict', rule: 'llm.archive' });
    await archiveMemory(store, memory.id, { reason: 'llm', ...(turnId ? { turnId } : {}) });
    results.push({ action: 'archived', memory: (await getMemory(store, memory.id))!, rule: 'llm.archive' });
  }
  return results;
}

/** How many of the text index's best matches relatedFacts looks through for its facts. */
const RELATED_CANDIDATES = 50;
const RELATED_FACTS = `select m.id from memories m where m.id in (select value from sm_ids(?)) and ${writableSql('m')} and m.status = 'active' and m.kind <> 'reflection'`;

/**
 * The space's active facts sharing words with `text`, best first (FTS5's rank; newest first on
 * Postgres, whose index does not rank): what an LLM sees as "existing memories".
 */
export async function relatedFacts(store: Store, space: Space, text: string, limit = 10): Promise<MemoryRow[]> {
  const index = textIndexOf(store);
  if (index.kind === 'like') return [];
  const source = index.matching(store, space, {
    table: 'memories',
    words: [...new Set(indexTokens(text))].slice(0, 64),
    join: 'any',
    limit: RELATED_CANDIDATES,
    order: 'best',
  });
  if (!source) return [];
  // The candidates in the index's order, then those that are the space's active facts, in that order.
  const candidates = (await store.sql.values(source.sql, source.params)).map((row) => Number(row[0]));
  if (candidates.length === 0) return [];
  const writable = writableClause(space, 'm');
  const kept = new Set(
    (await store.sql.values(RELATED_FACTS, [JSON.stringify(candidates), ...writable.params])).map((row) =>
      Number(row[0]),
    ),
  );
  const facts: MemoryRow[] = [];
  for (const id of candidates.filter((id) => kept.has(id)).slice(0, limit)) facts.push((await getMemory(store, id))!);
  return facts;
}
