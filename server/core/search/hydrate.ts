// Turns fused keys into hits: reads the rows of the best entries in batches, drops those the
// filters exclude (signals like entities and vectors do not filter in SQL), and attaches provenance.
import type { MemoryRow } from '../memory/memories.ts';
import { visibleIn, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import type { TurnRow } from '../turns/turns.ts';
import type { Fused } from './fuse.ts';
import { SIGNALS } from '../kernel/vocabulary.ts';
import type { SearchFilter, SearchHit, Signal, SignalRanks } from './types.ts';

/** Rows read per batch after the first, which is twice the limit (filters drop some). */
const BATCH = 50;

type Parts = { memoryKinds: string[]; turns: boolean; allowTurn: (turn: TurnRow) => boolean };

function memoryAllowed(filter: SearchFilter, kinds: string[], m: MemoryRow): boolean {
  return (
    m.status === filter.status &&
    kinds.includes(m.kind) &&
    (!filter.sessionIds?.length || (m.sessionId !== null && filter.sessionIds.includes(m.sessionId))) &&
    (!filter.excludeSessionId || m.sessionId !== filter.excludeSessionId) &&
    (filter.from == null || m.eventAt >= filter.from) &&
    (filter.to == null || m.eventAt <= filter.to) &&
    (filter.tags ?? []).every((tag) => m.tags.includes(tag))
  );
}

const ranksOf = (ranks: Partial<Record<Signal, number>>): SignalRanks =>
  Object.fromEntries(SIGNALS.map((s) => [s, ranks[s] ?? null])) as SignalRanks;

// Named columns: on Postgres `*` would also read the tsvector the search index keeps.
const MEMORY_ROWS = `select id, user_id, agent_id, kind, layer, status, content, content_key, subject, slot, value, polarity, session_id, hits,
  access_count, score, confidence, confidence_base, decay_rate, importance, tags, created_at, event_at, last_seen_at, last_accessed_at,
  valid_until, enriched_at, pinned from memories where id in (select value from sm_ids(?))`;
const TURN_ROWS =
  'select id, user_id as userId, agent_id as agentId, session_id as sessionId, role, name, text, at, created_at as createdAt, enriched_at as enrichedAt from turns where id in (select value from sm_ids(?))';
export const SOURCES =
  'select s.memory_id as memoryId, s.turn_id as turnId from memory_sources s where s.memory_id in (select value from sm_ids(?)) order by s.at, s.turn_id';

async function readMemories(store: Store, ids: number[]): Promise<Map<number, MemoryRow>> {
  if (ids.length === 0) return new Map();
  const rows = await store.sql.all(MEMORY_ROWS, [JSON.stringify(ids)]);
  // Raw rows: map to the drizzle shape (camelCase, tags parsed) that MemoryRow describes.
  return new Map(rows.map((r) => [r.id as number, toMemoryRow(r)]));
}

function toMemoryRow(r: Record<string, any>): MemoryRow {
  return {
    id: r.id,
    userId: r.user_id,
    agentId: r.agent_id,
    kind: r.kind,
    layer: r.layer,
    status: r.status,
    content: r.content,
    contentKey: r.content_key,
    subject: r.subject,
    slot: r.slot,
    value: r.value,
    polarity: r.polarity,
    sessionId: r.session_id,
    hits: r.hits,
    accessCount: r.access_count,
    score: r.score,
    confidence: r.confidence,
    confidenceBase: r.confidence_base,
    decayRate: r.decay_rate,
    importance: r.importance,
    tags: JSON.parse(r.tags ?? '[]'),
    createdAt: r.created_at,
    eventAt: r.event_at,
    lastSeenAt: r.last_seen_at,
    lastAccessedAt: r.last_accessed_at,
    validUntil: r.valid_until,
    enrichedAt: r.enriched_at,
    pinned: Boolean(r.pinned),
  };
}

async function readTurns(store: Store, ids: number[]): Promise<Map<number, TurnRow>> {
  if (ids.length === 0) return new Map();
  const rows = await store.sql.all<TurnRow>(TURN_ROWS, [JSON.stringify(ids)]);
  return new Map(rows.map((r) => [r.id, r]));
}

async function sourcesOf(store: Store, memoryIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (memoryIds.length === 0) return out;
  const rows = await store.sql.all<{ memoryId: number; turnId: number }>(SOURCES, [JSON.stringify(memoryIds)]);
  for (const row of rows) out.set(row.memoryId, [...(out.get(row.memoryId) ?? []), row.turnId]);
  return out;
}

/** Every hit is checked against the space once more here: signals that read links (entities, vectors) reach rows by id. */
export async function hydrate(
  store: Store,
  space: Space,
  fused: Fused<Signal>[],
  filter: SearchFilter,
  parts: Parts,
): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (
    let start = 0, size = Math.max(filter.limit * 2, 10);
    start < fused.length && hits.length < filter.limit;
    start += size, size = BATCH
  ) {
    const batch = fused.slice(start, start + size);
    const memoryIds = batch.filter((f) => f.key[0] === 'm').map((f) => Number(f.key.slice(1)));
    const turnIds = batch.filter((f) => f.key[0] === 't').map((f) => Number(f.key.slice(1)));
    const memoryRows = await readMemories(store, memoryIds);
    const turnRows = parts.turns ? await readTurns(store, turnIds) : new Map<number, TurnRow>();
    const kept: SearchHit[] = [];
    for (const entry of batch) {
      const id = Number(entry.key.slice(1));
      if (entry.key[0] === 'm') {
        const m = memoryRows.get(id);
        if (!m || !visibleIn(space, m) || !memoryAllowed(filter, parts.memoryKinds, m)) continue;
        kept.push({
          kind: m.kind,
          id,
          text: m.content,
          sessionId: m.sessionId,
          at: m.eventAt,
          score: entry.score,
          ranks: ranksOf(entry.ranks),
          memory: m,
          turn: null,
          sourceTurnIds: [],
        });
      } else {
        const t = turnRows.get(id);
        if (!t || !visibleIn(space, t) || !parts.allowTurn(t)) continue;
        kept.push({
          kind: 'turn',
          id,
          text: t.text,
          sessionId: t.sessionId,
          at: t.at,
          score: entry.score,
          ranks: ranksOf(entry.ranks),
          memory: null,
          turn: t,
          sourceTurnIds: [],
        });
      }
      if (hits.length + kept.length >= filter.limit) break;
    }
    const sources = await sourcesOf(
      store,
      kept.filter((h) => h.memory).map((h) => h.id),
    );
    for (const hit of kept) if (hit.memory) hit.sourceTurnIds = sources.get(hit.id) ?? [];
    hits.push(...kept);
  }
  return hits;
}
