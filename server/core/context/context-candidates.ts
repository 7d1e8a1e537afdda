// The candidates a context block is packed from (docs/architecture.md#context): for a query, the
// facts, reflections and turns search finds, facts drawn from the turns found, and superseded facts
// the query matches; then recent and salient material as a lower tier. Each candidate carries its
// markdown line, its date and the rows behind it.
import { STANDING_KINDS } from '../../../drizzle/vocabulary.ts';
import { DAY_MS } from '../kernel/clock.ts';
import type { Candidate } from './context-pack.ts';
import { sourcesOf } from './context-standing.ts';
import { detectPii } from '../text/pii.ts';
import { topMemories } from '../memory/memory-list.ts';
import { memoriesByIds, type MemoryRow } from '../memory/memories.ts';
import { latestReflection } from '../memory/reflection.ts';
import { quoteOf } from '../search/passages.ts';
import { search, type SearchOptions } from '../search/search.ts';
import { DEFAULT_SPACE, spaceClause, visibleIn, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import type { TurnRow } from '../turns/turns.ts';

/** A candidate with the rows behind it. */
export type Source = {
  candidate: Candidate;
  memory: MemoryRow | null;
  turn: TurnRow | null;
  eventAt: number | null;
  supersededAt: number | null;
};

/** At most this many turns from search (its own limit). */
const SEARCH_LIMIT = 200;
/** Archived facts a newer one replaced, found for the query: history the block may show, marked. */
const SUPERSEDED_LIMIT = 20;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();
const clamp = (n: number, low: number, high: number) => Math.max(low, Math.min(high, n));

type Found = {
  turns: Map<number, { turn: TurnRow; rank: number; tier: Candidate['tier']; passage?: string }>;
  memories: Map<
    number,
    {
      memory: MemoryRow;
      rank: number | null;
      projected: number | null;
      tier: Candidate['tier'];
      supersededAt: number | null;
    }
  >;
};

type Filters = { turnOk: (t: TurnRow) => boolean; memoryOk: (m: MemoryRow) => boolean };

/**
 * The one candidate list: for a query, the facts, reflections and turns search finds (each
 * valued by its rank among its kind), facts drawn from the turns found, and superseded facts the
 * query matches; then, for any query or none, recent turns, salient facts and the latest
 * reflection as a lower tier that fills what space is left. Turns in the short-term window are
 * left out (the caller shows them); `pii` is left out when config says so.
 */
export async function collectCandidates(
  store: Store,
  space: Space,
  args: { query: string | null; tokenBudget: number; window: ReadonlySet<number> },
  options: Pick<SearchOptions, 'queryVector'> = {},
): Promise<Source[]> {
  const { query, tokenBudget, window } = args;
  const hidePii = store.config.context.exclude_pii;
  const filters: Filters = {
    memoryOk: (m) => !(hidePii && m.tags.includes('pii')),
    turnOk: (t) => !window.has(t.id) && !(hidePii && detectPii(t.text).length > 0),
  };
  const found: Found = { memories: new Map(), turns: new Map() };
  if (query) {
    await findTurns(store, space, { query, tokenBudget, found, filters }, options);
    await findMemories(store, space, { query, tokenBudget, found, filters }, options);
  }
  // The fill tier (recent and salient material for the space that query hits leave), and with no
  // query the whole list: newest turns, most salient facts, the latest reflection.
  const chars =
    [...found.turns.values()].reduce((sum, t) => sum + t.turn.text.length, 0) +
    [...found.memories.values()].reduce((sum, m) => sum + m.memory.content.length, 0);
  if (!query || chars / 4 < tokenBudget * 1.5)
    await addFill(store, space, { query, tokenBudget, window, ...filters, ...found });
  return [...(await memorySources(store, found.memories)), ...turnSources(found.turns)];
}

type FindArgs = { query: string; tokenBudget: number; found: Found; filters: Filters };

/** The turns search finds, ranked by the turn ranker (a search of their own, so that facts do not take their share). */
async function findTurns(
  store: Store,
  space: Space,
  { query, tokenBudget, found, filters }: FindArgs,
  options: Pick<SearchOptions, 'queryVector'>,
) {
  const limit = clamp(Math.ceil(tokenBudget / 15), 30, SEARCH_LIMIT);
  const hits = (await search(store, space, { query, kinds: ['turn'], limit }, options)).hits;
  hits.forEach(
    (hit, i) =>
      hit.turn &&
      filters.turnOk(hit.turn) &&
      found.turns.set(hit.id, { turn: hit.turn, rank: i + 1, tier: 'query', passage: hit.passage }),
  );
}

/** Facts and reflections search finds, superseded facts the query names, and facts drawn from the turns found. */
async function findMemories(
  store: Store,
  space: Space,
  { query, tokenBudget, found, filters }: FindArgs,
  options: Pick<SearchOptions, 'queryVector'>,
) {
  const { memories, turns } = found;
  // Standing memories compete here too: those the standing sections had no room for.
  const limit = clamp(Math.ceil(tokenBudget / 40), 15, 100);
  const hits = (await search(store, space, { query, kinds: ['fact', 'reflection', ...STANDING_KINDS], limit }, options))
    .hits;
  const rankOf = { fact: 0, reflection: 0 };
  for (const hit of hits) {
    if (hit.memory && filters.memoryOk(hit.memory))
      memories.set(hit.id, {
        memory: hit.memory,
        rank: ++rankOf[candidateKind(hit.memory)],
        projected: null,
        tier: 'query',
        supersededAt: null,
      });
  }
  // History: facts a newer one replaced, when the query names them, ranked among themselves
  // (their value is the superseded weight times a current fact's of the same rank).
  const archived = (
    await search(store, space, {
      query,
      kinds: ['fact', ...STANDING_KINDS],
      status: 'archived',
      limit: SUPERSEDED_LIMIT,
    })
  ).hits;
  const replaced = await supersededOn(
    store,
    archived.map((h) => h.id),
  );
  let replacedRank = 0;
  for (const hit of archived) {
    if (hit.memory && replaced.has(hit.id) && filters.memoryOk(hit.memory))
      memories.set(hit.id, {
        memory: hit.memory,
        rank: ++replacedRank,
        projected: null,
        tier: 'query',
        supersededAt: replaced.get(hit.id)!,
      });
  }
  // Facts drawn from the turns found, valued by their turn's rank (a short, dated form of it).
  const turnRank = new Map([...turns].map(([id, t]) => [id, t.rank]));
  const drawn = new Map<number, number>();
  for (const { memoryId, turnId } of await factsFromTurns(store, [...turnRank.keys()])) {
    const rank = turnRank.get(turnId)!;
    drawn.set(memoryId, Math.min(drawn.get(memoryId) ?? rank, rank));
  }
  const unread = [...drawn.keys()].filter((id) => !memories.has(id));
  for (const row of (await memoriesByIds(store, unread)).values())
    if (visibleIn(space, row) && filters.memoryOk(row))
      memories.set(row.id, { memory: row, rank: null, projected: null, tier: 'query', supersededAt: null });
  for (const [id, rank] of drawn) {
    const known = memories.get(id);
    if (known) known.projected = rank;
  }
}

/** The memories found, each with its line: dated by when it was stated, and for a superseded one by what replaced it. */
async function memorySources(store: Store, memories: Found['memories']): Promise<Source[]> {
  const provenance = await sourcesOf(store, [...memories.keys()]);
  const replacements = await replacedBy(
    store,
    [...memories].filter(([, m]) => m.supersededAt !== null).map(([id]) => id),
  );
  return [...memories].map(([id, m]) => {
    const source = provenance.get(id);
    const memory = m.memory;
    // The date a fact was stated: its first source turn's; a fact remembered explicitly, when it was saved.
    const stated = source?.firstAt ?? memory.createdAt;
    const supersededAt = m.supersededAt;
    const by = supersededAt === null ? null : (replacements.get(id) ?? null);
    const line =
      memory.kind === 'reflection'
        ? `[${day(memory.createdAt)}] ${oneLine(memory.content)}`
        : `- ${oneLine(memory.content)} (${factDates(stated, memory.eventAt, supersededAt, by)})`;
    return {
      candidate: {
        kind: candidateKind(memory),
        id,
        line,
        at: memory.kind === 'reflection' ? memory.createdAt : stated,
        rank: m.rank,
        projected: m.projected,
        tier: m.tier,
        superseded: supersededAt !== null,
        sourceTurnIds: source?.turnIds ?? [],
      },
      memory,
      turn: null,
      eventAt: memory.kind === 'reflection' ? null : memory.eventAt,
      supersededAt,
    };
  });
}

/** The turns found, each with its line: a long turn is quoted by the passage that matched (passages.ts), not whole. */
function turnSources(turns: Found['turns']): Source[] {
  return [...turns].map(([id, t]) => ({
    candidate: {
      kind: 'turn',
      id,
      line: `[${day(t.turn.at)}] ${t.turn.name ?? t.turn.role}: ${oneLine(quoteOf(t.turn.text, t.passage))}`,
      at: t.turn.at,
      rank: t.rank,
      projected: null,
      tier: t.tier,
      superseded: false,
      sourceTurnIds: [],
    },
    memory: null,
    turn: t.turn,
    eventAt: null,
    supersededAt: null,
  }));
}

async function addFill(
  store: Store,
  space: Space,
  args: Found & {
    query: string | null;
    tokenBudget: number;
    window: ReadonlySet<number>;
    turnOk: (t: TurnRow) => boolean;
    memoryOk: (m: MemoryRow) => boolean;
  },
) {
  const { query, tokenBudget, window, turnOk, memoryOk, turns, memories } = args;
  const tier: Candidate['tier'] = query ? 'fill' : 'query';
  const fillTurns = Math.min(1_000, Math.ceil(tokenBudget / 6));
  (await recentTurns(store, space, fillTurns + window.size))
    .filter(turnOk)
    .slice(0, fillTurns)
    .forEach((turn, i) => turns.has(turn.id) || turns.set(turn.id, { turn, rank: i + 1, tier }));
  const fillFacts = Math.min(500, Math.ceil(tokenBudget / 8));
  [...(await topMemories(store, space, 'long', fillFacts)), ...(await topMemories(store, space, 'mid', fillFacts))]
    .filter((m) => m.kind === 'fact' && memoryOk(m))
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .slice(0, fillFacts)
    .forEach(
      (memory, i) =>
        memories.has(memory.id) ||
        memories.set(memory.id, { memory, rank: i + 1, projected: null, tier, supersededAt: null }),
    );
  const reflection = await latestReflection(store, space);
  if (reflection && memoryOk(reflection) && !memories.has(reflection.id))
    memories.set(reflection.id, { memory: reflection, rank: 1, projected: null, tier, supersededAt: null });
}

/** A user's chat with an assistant (an assistant's turn among the candidates): packed with the chat values. */
export const isChat = (sources: Source[]) => sources.some((s) => s.turn?.role === 'assistant');

/** The ranked list's kinds: standing memories found for the query rank as facts. */
const candidateKind = (m: MemoryRow): 'fact' | 'reflection' => (m.kind === 'reflection' ? 'reflection' : 'fact');

/** Longest replacement quoted in a superseded fact's line. */
const REPLACEMENT_CHARS = 160;

/** "stated 2023-05-08", with the day it is about when another ("about 2023-05-07"), and when it was replaced and by what. */
function factDates(stated: number, eventAt: number, supersededAt: number | null, by: string | null = null): string {
  const parts = [`stated ${day(stated)}`];
  if (Math.abs(eventAt - stated) >= DAY_MS && day(eventAt) !== day(stated)) parts.push(`about ${day(eventAt)}`);
  if (supersededAt !== null) {
    const quoted =
      by === null
        ? ''
        : oneLine(by).length > REPLACEMENT_CHARS
          ? `${oneLine(by).slice(0, REPLACEMENT_CHARS)}…`
          : oneLine(by);
    parts.push(by === null ? `superseded ${day(supersededAt)}` : `replaced ${day(supersededAt)} by: ${quoted}`);
  }
  return parts.join(', ');
}

/** For superseded memories: the content of the newest memory that replaced each. */
async function replacedBy(store: Store, memoryIds: number[]): Promise<Map<number, string>> {
  if (memoryIds.length === 0) return new Map();
  const rows = await store.sql.all<{ id: number; content: string }>(
    `select r.to_id as id, n.content as content from memory_relations r join memories n on n.id = r.from_id
     where r.kind = 'supersedes' and r.to_id in (select value from sm_ids(?)) order by n.event_at, n.id`,
    [JSON.stringify(memoryIds)],
  );
  return new Map(rows.map((r) => [r.id, r.content]));
}

// spaceClause's text is the same for every space (only its parameters differ).
const RECENT_TURNS_SQL = `select t.id as id, t.user_id as userId, t.agent_id as agentId, t.session_id as sessionId, t.role as role, t.name as name, t.text as text, t.at as at,
    t.created_at as createdAt, t.enriched_at as enrichedAt
  from turns t where ${spaceClause(DEFAULT_SPACE, 't').sql} order by t.at desc, t.id desc limit ?`;

async function recentTurns(store: Store, space: Space, limit: number): Promise<TurnRow[]> {
  return store.sql.all<TurnRow>(RECENT_TURNS_SQL, [...(spaceClause(space, 't').params as SqlParam[]), limit]);
}

/** Active facts extracted from these turns. */
async function factsFromTurns(store: Store, turnIds: number[]): Promise<{ memoryId: number; turnId: number }[]> {
  if (turnIds.length === 0) return [];
  return store.sql.all<{ memoryId: number; turnId: number }>(
    `select s.memory_id as memoryId, s.turn_id as turnId from memory_sources s join memories m on m.id = s.memory_id
     where s.turn_id in (select value from sm_ids(?)) and m.status = 'active' and m.kind = 'fact'`,
    [JSON.stringify(turnIds)],
  );
}

/** For superseded memories: when the (earliest) fact that replaced each took effect. */
async function supersededOn(store: Store, memoryIds: number[]): Promise<Map<number, number>> {
  if (memoryIds.length === 0) return new Map();
  const rows = await store.sql.all<{ id: number; at: number }>(
    `select r.to_id as id, min(n.event_at) as at from memory_relations r join memories n on n.id = r.from_id
     where r.kind = 'supersedes' and r.to_id in (select value from sm_ids(?)) group by r.to_id`,
    [JSON.stringify(memoryIds)],
  );
  return new Map(rows.map((r) => [r.id, r.at]));
}
