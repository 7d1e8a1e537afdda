// Memories: facts and reflections, saved with dedupe, reinforced, archived (docs/architecture.md#memories).
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  memories,
  memoryRelations,
  type MemoryKind,
  type MemoryLayer,
  type SourceReason,
} from '../../../drizzle/schema.ts';
import { Decision, logDecision, publishDecision } from './decisions.ts';
import { linkMemoriesFast } from '../entities/ner/link.ts';
import { notFound } from '../kernel/errors.ts';
import { score } from './scoring.ts';
import { enqueueEmbedding } from '../vectors/embed-queue.ts';
import { rowCodec } from '../kernel/rows.ts';
import { visibleIn, writableClause, writableSql, type Space } from '../kernel/space.ts';
import { ensureUser } from '../users/users.ts';
import { NEW_ROWS, noted, prepared, write, type SqlParam, type Store } from '../kernel/store.ts';
import { normalizeText } from '../text/text.ts';
import { contentSchema, importanceSchema, memoryIdSchema, parseInput, tagsSchema } from '../kernel/validation.ts';

export type MemoryRow = typeof memories.$inferSelect;

/** What an extractor, `remember` or consolidation proposes to save. */
export type MemoryCandidate = {
  content: string;
  kind?: MemoryKind;
  layer?: MemoryLayer;
  importance?: number;
  tags?: string[];
  sessionId?: string | null;
  eventAt?: number;
  decayRate?: number;
  fact?: { subject: string; slot: string; value: string; polarity: 1 | -1 };
};

export type MemorySource = { turnId: number; reason: SourceReason; rule?: string | null };

export type SaveResult = { action: 'created' | 'merged'; memory: MemoryRow };

export function decayRateFor(store: Store, kind: MemoryKind, layer: MemoryLayer) {
  // Reflections and standing memory (instructions, preferences, profile facts) are protected.
  if (kind !== 'fact') return 0;
  return layer === 'long' ? store.config.decay.long_rate : store.config.decay.rate;
}

export const memoryRows = rowCodec(memories);

// Raw statements of the write path, their text built once (the port caches statements by text).
const MEMORY_BY_ID = `select ${memoryRows.columns} from memories where id = ?`;
const MEMORIES_BY_IDS = `select ${memoryRows.columns} from memories where id in (select value from sm_ids(?))`;
// `|| ''` keeps kind and status from being index candidates: the (user, content_key) index is the one to use.
/** Memories `space` may change that match `where`; `tag`: a first column saying which part of a union a row is from. */
const writableWhere = (where: string, tag = '') =>
  `select ${tag}${memoryRows.columnsOf('m')} from memories m where ${writableSql('m')} and ${where}`;
// Facts and standing memory are one family for dedupe ("has a cat" once, whatever kind said it first); reflections another.
const EXACT_WHERE =
  "m.content_key = ? and (case when m.kind = 'reflection' then 'reflection' else 'fact' end) = ? and m.status || '' = 'active'";
const dedupeFamily = (kind: MemoryKind) => (kind === 'reflection' ? 'reflection' : 'fact');
const SLOT_WHERE = "m.subject = ? and m.slot = ? and m.status = 'active'";
const EXACT_DUPLICATE = writableWhere(EXACT_WHERE);
/** Both reads a new fact needs, in one statement (one round trip on a server): its slot's facts (0), then exact duplicates (1). */
const SLOT_FACTS_AND_DUPLICATE = `${writableWhere(SLOT_WHERE, '0, ')} union all ${writableWhere(EXACT_WHERE, '1, ')}`;
const LINK_SOURCE =
  'insert into memory_sources (memory_id, turn_id, reason, rule, at) values (?, ?, ?, ?, ?) on conflict do nothing';
const INSERT_MEMORY = `insert into memories (user_id, agent_id, kind, layer, content, content_key, subject, slot, value, polarity, session_id, importance, tags, decay_rate, score, created_at, event_at, last_seen_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${memoryRows.columns}`;
/**
 * Postgres: a new memory, its source and its decision in one statement, two round trips fewer
 * for every fact extracted (a round trip is what a statement costs on a server). The same rows
 * as insertMemory's three statements on SQLite.
 */
const INSERT_MEMORY_SOURCED = `with m as (${INSERT_MEMORY}),
  s as (insert into memory_sources (memory_id, turn_id, reason, rule, at) select m.id, cast(? as bigint), cast(? as text), cast(? as text), cast(? as bigint) from m on conflict do nothing),
  e as (insert into memory_events (user_id, memory_id, action, detail, at) select m.user_id, m.id, '${Decision.Created}', cast(? as text), cast(? as bigint) from m)
  select * from m`;

export async function getMemory(store: Store, id: number): Promise<MemoryRow | undefined> {
  const [raw] = await store.sql.values(MEMORY_BY_ID, [id]);
  return raw && memoryRows.decode(raw);
}

/** A memory of this space, or NOT_FOUND: one of another space is indistinguishable from none. */
export async function requireMemory(store: Store, space: Space, id: number): Promise<MemoryRow> {
  const memory = await getMemory(store, parseInput(memoryIdSchema, id));
  if (!memory || !visibleIn(space, memory)) throw notFound('memory', id);
  return memory;
}

/** A memory of this space, or undefined (another space's counts as none). */
export async function memoryIn(store: Store, space: Space, id: number): Promise<MemoryRow | undefined> {
  const memory = await getMemory(store, id);
  return memory && visibleIn(space, memory) ? memory : undefined;
}

export async function memoriesByIds(store: Store, ids: readonly number[]): Promise<Map<number, MemoryRow>> {
  if (ids.length === 0) return new Map();
  const rows = (await store.sql.values(MEMORIES_BY_IDS, [JSON.stringify(ids)])).map((raw) => memoryRows.decode(raw));
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * An active memory of the same family (facts and standing memory together, reflections apart)
 * whose normalised content is identical. Only the content_key
 * index may serve it (`+` keeps kind and status off the index): without ANALYZE statistics the
 * planner prefers the two-column (kind, status) index, which is a scan of every active fact.
 */
export async function findExactDuplicate(
  store: Store,
  space: Space,
  contentKey: string,
  kind: MemoryKind,
): Promise<MemoryRow | undefined> {
  const [raw] = await store.sql.values(EXACT_DUPLICATE, [
    ...writableClause(space, 'm').params,
    contentKey,
    dedupeFamily(kind),
  ]);
  return raw && memoryRows.decode(raw);
}

export async function linkSource(store: Store, memoryId: number, source: MemorySource) {
  await store.sql.run(LINK_SOURCE, [memoryId, source.turnId, source.reason, source.rule ?? null, store.clock.now()]);
}

/** Reinforces an existing memory (docs/architecture.md#reinforcement): one more hit, seen now, tags and importance folded in. */
export async function reinforce(
  store: Store,
  existing: MemoryRow,
  candidate: MemoryCandidate,
  source?: MemorySource,
): Promise<MemoryRow> {
  const now = store.clock.now();
  const hits = existing.hits + 1;
  const importance = Math.max(existing.importance, candidate.importance ?? 0);
  const tags = [...new Set([...existing.tags, ...(candidate.tags ?? [])])];
  const memory = (await prepared(store, 'memory.reinforce', (db) =>
    db
      .update(memories)
      // Placeholders in SET bypass column mapping, so tags go in as JSON text.
      .set({
        hits: sql`${sql.placeholder('hits')}`,
        importance: sql`${sql.placeholder('importance')}`,
        tags: sql`${sql.placeholder('tags')}`,
        lastSeenAt: sql`${sql.placeholder('now')}`,
        score: sql`${sql.placeholder('score')}`,
        // Seen again: the forgetting curve restarts.
        confidence: sql`${memories.confidenceBase}`,
      })
      .where(eq(memories.id, sql.placeholder('id')))
      .returning()
      .prepare(),
  ).get({
    id: existing.id,
    hits,
    importance,
    tags: JSON.stringify(tags),
    now,
    score: score({ ...existing, hits, importance }, now, store.config.scoring),
  }))!;
  if (source) await linkSource(store, memory.id, { ...source, reason: 'merged' });
  await logDecision(store, {
    memoryId: memory.id,
    action: Decision.Merged,
    detail: { hits, ...(source ? { turnId: source.turnId } : {}) },
    known: memory,
  });
  return memory;
}

export async function insertMemory(
  store: Store,
  space: Space,
  candidate: MemoryCandidate,
  source?: MemorySource,
): Promise<MemoryRow> {
  const now = store.clock.now();
  await ensureUser(store, space.userId);
  const kind = candidate.kind ?? 'fact';
  const layer = candidate.layer ?? (kind === 'reflection' ? 'long' : 'mid');
  const importance = candidate.importance ?? 0;
  const row = [
    space.userId,
    space.agentId,
    kind,
    layer,
    candidate.content,
    normalizeText(candidate.content),
    candidate.fact?.subject ?? null,
    candidate.fact?.slot ?? null,
    candidate.fact?.value ?? null,
    candidate.fact?.polarity ?? null,
    candidate.sessionId ?? null,
    importance,
    JSON.stringify(candidate.tags ?? []),
    candidate.decayRate ?? decayRateFor(store, kind, layer),
    score({ hits: 0, importance, createdAt: now }, now, store.config.scoring),
    now,
    candidate.eventAt ?? now,
    now,
  ];
  const detail = {
    kind,
    layer,
    ...(source ? { turnId: source.turnId, reason: source.reason, rule: source.rule ?? undefined } : {}),
  };
  let memory: MemoryRow;
  if (source && store.dialect.statements.combinesWrites) {
    const at = store.clock.now();
    const [inserted] = await store.sql.values(INSERT_MEMORY_SOURCED, [
      ...row,
      source.turnId,
      source.reason,
      source.rule ?? null,
      at,
      JSON.stringify(detail),
      at,
    ]);
    memory = memoryRows.decode(inserted!);
    publishDecision(store, { memoryId: memory.id, action: Decision.Created, detail, at, owner: space });
  } else {
    const [inserted] = await store.sql.values(INSERT_MEMORY, row);
    memory = memoryRows.decode(inserted!);
    if (source) await linkSource(store, memory.id, source);
    await logDecision(store, { memoryId: memory.id, action: Decision.Created, detail, known: space });
  }
  noted(store, NEW_ROWS.memories)?.add(memory.id);
  // Every new memory (extracted, remembered, consolidated, corrected) gets a vector by a job.
  await enqueueEmbedding(store, space, { memoryIds: [memory.id] });
  return memory;
}

/** Saves a candidate: merges into an exact duplicate (after normalising) or inserts it. */
export async function saveMemory(
  store: Store,
  space: Space,
  candidate: MemoryCandidate,
  source?: MemorySource,
): Promise<SaveResult> {
  const kind = candidate.kind ?? 'fact';
  const duplicate = await findExactDuplicate(store, space, normalizeText(candidate.content), kind);
  if (duplicate) return { action: 'merged', memory: await reinforce(store, duplicate, candidate, source) };
  return { action: 'created', memory: await insertMemory(store, space, candidate, source) };
}

export const rememberSchema = z.object({
  content: contentSchema,
  importance: importanceSchema.default(0),
  tags: tagsSchema.default([]),
});
export type RememberInput = z.input<typeof rememberSchema>;
/** A RememberInput as rememberSchema made it (trimmed, tags deduplicated, defaults filled in). */
export type ParsedRemember = z.output<typeof rememberSchema>;

/** Explicitly saves a fact (the user or agent said "remember this"). */
export function remember(store: Store, space: Space, input: RememberInput): Promise<SaveResult> {
  return rememberParsed(store, space, parseInput(rememberSchema, input));
}

/** remember of input its caller parsed with rememberSchema already. */
export async function rememberParsed(store: Store, space: Space, parsed: ParsedRemember): Promise<SaveResult> {
  return write(store, async () => {
    const result = await saveMemory(store, space, parsed);
    // Entities an explicit fact names link at once, as a turn's do.
    if (result.action === 'created') await linkMemoriesFast(store, space, [result.memory], null);
    return result;
  });
}

/** Archives (docs/architecture.md#removal): hidden from search and context, kept for explain and history. */
export async function archiveMemory(store: Store, id: number, detail: Record<string, unknown>) {
  const now = store.clock.now();
  await store.db.update(memories).set({ status: 'archived', validUntil: now }).where(eq(memories.id, id)).run();
  await logDecision(store, { memoryId: id, action: Decision.Archived, detail });
}

export async function addRelation(store: Store, fromId: number, toId: number, kind: 'supersedes' | 'derived_from') {
  await store.db
    .insert(memoryRelations)
    .values({ fromId, toId, kind, at: store.clock.now() })
    .onConflictDoNothing()
    .run();
}

/** Marks `oldId` superseded by `newId`: archived, linked, and logged on both sides. */
export async function supersede(store: Store, oldId: number, newId: number, detail: Record<string, unknown> = {}) {
  await archiveMemory(store, oldId, { reason: 'superseded', by: newId, ...detail });
  await addRelation(store, newId, oldId, 'supersedes');
  await logDecision(store, { memoryId: oldId, action: Decision.Superseded, detail: { by: newId, ...detail } });
}

/**
 * The active facts sharing a fact's subject and slot (conflict candidates), and an exact
 * duplicate of its content (as findExactDuplicate): the duplicate is needed only when the slot
 * settles nothing, but both in one statement cost one round trip on a server where two cost two.
 * `also`, a read of more memories (as `m`; the fuzzy duplicate's candidates), joins them: its rows
 * come back as they are.
 */
export async function slotFactsAndDuplicate(
  store: Store,
  space: Space,
  input: {
    fact: { subject: string; slot: string };
    contentKey: string;
    kind: MemoryKind;
    also?: { select(columns: string): string; params: SqlParam[] };
  },
): Promise<{ slotFacts: MemoryRow[]; duplicate: MemoryRow | undefined; also: MemoryRow[] }> {
  const { fact, contentKey, kind, also } = input;
  const writable = writableClause(space, 'm').params;
  const text = also
    ? `${SLOT_FACTS_AND_DUPLICATE} union all ${also.select(`2, ${memoryRows.columnsOf('m')}`)}`
    : SLOT_FACTS_AND_DUPLICATE;
  const rows = await store.sql.values(text, [
    ...writable,
    fact.subject,
    fact.slot,
    ...writable,
    contentKey,
    dedupeFamily(kind),
    ...(also?.params ?? []),
  ]);
  const slotFacts: MemoryRow[] = [];
  const more: MemoryRow[] = [];
  let duplicate: MemoryRow | undefined;
  for (const [part, ...raw] of rows) {
    const which = Number(part);
    if (which === 0) slotFacts.push(memoryRows.decode(raw));
    else if (which === 1) duplicate ??= memoryRows.decode(raw);
    else more.push(memoryRows.decode(raw));
  }
  return { slotFacts, duplicate, also: more };
}
