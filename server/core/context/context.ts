// Context for the next model call (docs/architecture.md#context): the short-term window of the session, and one markdown
// block packed from a single ranked list of facts, turns and reflections. Search ranks them for
// the query (or the session's latest user turn); with neither, recency and salience do. The list
// fills the token budget best value per token first (context-pack.ts), and every item carries
// its date.
import { z } from 'zod';
import { DAY_MS } from '../kernel/clock.ts';
import { DEFAULT_PACK_TUNING, pack, type Candidate, type PackTuning } from './context-pack.ts';
import { standingBlock, type StandingSection } from './context-standing.ts';
import { STANDING_KINDS } from '../../../drizzle/vocabulary.ts';
import { detectPii } from '../text/pii.ts';
import { timelineFor, type Timeline } from './timeline.ts';
import { topMemories } from '../memory/memory-list.ts';
import { memoriesByIds, type MemoryRow } from '../memory/memories.ts';
import { latestReflection } from '../memory/reflection.ts';
import { quoteOf } from '../search/passages.ts';
import { search, type SearchOptions } from '../search/search.ts';
import { DEFAULT_SPACE, spaceClause, visibleIn, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import { countTokens, TOKENIZER } from '../text/token-count.ts';
import { shortTermWindow, type TurnRow } from '../turns/turns.ts';
import { parseInput } from '../kernel/validation.ts';

export { TOKENIZER } from '../text/token-count.ts';

export const MIN_TOKEN_BUDGET = 50;
export const MAX_TOKEN_BUDGET = 32_000;

const budget = z
  .number()
  .int()
  .min(MIN_TOKEN_BUDGET, `must be at least ${MIN_TOKEN_BUDGET}`)
  .max(MAX_TOKEN_BUDGET, `must be at most ${MAX_TOKEN_BUDGET}`);

export const contextSchema = z
  .object({
    sessionId: z.string().trim().min(1, 'must not be empty'),
    /** Deprecated: memories per layer before context was packed to a budget. Checked, not used. */
    k: z.number().int().min(1).max(200).nullish(),
    /** What the next turn is about; omitted: the session's latest user turn; empty: recency. */
    query: z.string().max(20_000).nullish(),
    /** Size of `markdown` in tokens (o200k_base), 50 to 32 000; config context.token_budget by default. */
    tokenBudget: budget.nullish(),
    /** Deprecated alias of tokenBudget. */
    maxTokens: budget.nullish(),
  })
  .refine((v) => v.tokenBudget == null || v.maxTokens == null || v.tokenBudget === v.maxTokens, {
    message: 'give tokenBudget or its deprecated alias maxTokens, not both',
    path: ['maxTokens'],
  });
export type ContextInput = z.input<typeof contextSchema>;
export type ContextRequest = z.output<typeof contextSchema>;

export type ContextItem = {
  /** Fact, reflection or turn; in the standing sections, the memory's own kind. */
  kind: Candidate['kind'] | MemoryRow['kind'];
  /** The memory id (facts, reflections: what `explain` takes) or the turn id. */
  id: number;
  /** The memory's content or the turn's text. */
  text: string;
  /** The line as written in `markdown`, with its date. */
  line: string;
  /** The date shown: when a fact was stated (its first source turn), a turn's time, a reflection's. */
  at: number;
  /** For a fact: when what it says happened or began (memories.event_at). */
  eventAt: number | null;
  /** For a superseded fact: when the fact that replaced it took effect. */
  supersededAt: number | null;
  /** Tokens of the line (o200k_base). */
  tokens: number;
  /** Value for the query that won its place (relative; higher is better). */
  value: number;
  /** `query` when search found it for the query; `recency` when it is there as recent or salient material (all of a block without a query); `standing` in the standing sections. */
  reason: 'query' | 'recency' | 'standing';
  sessionId: string | null;
  memory: MemoryRow | null;
  turn: TurnRow | null;
  /** For a memory: the turns it came from, oldest first. */
  sourceTurnIds: number[];
};

export type Context = {
  sessionId: string;
  /** The text the block was ranked for: the query, or the session's latest user turn; null: recency. */
  query: string | null;
  tokenBudget: number;
  /** Tokens of `markdown`, counted whole. */
  tokensUsed: number;
  tokenizer: string;
  /** What the block holds: the standing sections' items first, then the ranked ones, best value first. */
  items: ContextItem[];
  /** The sections that open the block whatever the query: standing instructions, and what is known about the user (with pinned memories). */
  standing: { instructions: ContextSectionOf<ContextItem>; about: ContextSectionOf<ContextItem>; tokens: number };
  shortTerm: TurnRow[];
  /** Facts in the block, by layer (best first). */
  midTerm: MemoryRow[];
  longTerm: MemoryRow[];
  /** Every fact in the block, best first. */
  relevant: MemoryRow[];
  /** The latest weekly reflection, if any (in the block only when it won its place). */
  reflection: MemoryRow | null;
  /** For a question about order, progress or a summary: the dated session digests at the top of the block. */
  timeline: Timeline;
  markdown: string;
};

/** Half the characters of a source turn short enough to say nothing more than its standing item. */
const MAX_RESTATED = 200;

export type ContextSectionOf<T> = Omit<StandingSection, 'items'> & { items: T[] };

export type ContextOptions = Pick<SearchOptions, 'queryVector'> & {
  tuning?: Partial<PackTuning>;
  /** false: no timeline whatever the query (the benchmark's same-run comparison). */
  timeline?: boolean;
};

/** At most this many turns from search (its own limit). */
const SEARCH_LIMIT = 200;
/** Archived facts a newer one replaced, found for the query: history the block may show, marked. */
const SUPERSEDED_LIMIT = 20;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** A candidate with the rows behind it. */
type Source = {
  candidate: Candidate;
  memory: MemoryRow | null;
  turn: TurnRow | null;
  eventAt: number | null;
  supersededAt: number | null;
};

/** The latest user turn's text, the default query. */
function latestUserText(shortTerm: TurnRow[]): string | null {
  for (let i = shortTerm.length - 1; i >= 0; i--) if (shortTerm[i]!.role === 'user') return shortTerm[i]!.text;
  return null;
}

/** What `context` ranks for: the query; when it is omitted, the session's latest user turn; blank: nothing (recency). */
export async function contextQueryText(
  query: string | null | undefined,
  latestUserTurn: () => string | null | Promise<string | null>,
): Promise<string | null> {
  if (query != null) return query.trim() ? query : null;
  const text = await latestUserTurn();
  return text?.trim() ? text : null;
}

export async function getContext(
  store: Store,
  space: Space,
  input: ContextInput,
  options: ContextOptions = {},
): Promise<Context> {
  return contextOfParsed(store, space, parseInput(contextSchema, input), options);
}

/**
 * getContext() of input already parsed with contextSchema: the context service parses once,
 * before it embeds the query. What the block hands out is the service's to count as accessed.
 */
export async function contextOfParsed(
  store: Store,
  space: Space,
  parsed: ContextRequest,
  options: ContextOptions = {},
): Promise<Context> {
  const tokenBudget = parsed.tokenBudget ?? parsed.maxTokens ?? store.config.context.token_budget;
  const shortTerm = await shortTermWindow(store, space, parsed.sessionId);
  const query = await contextQueryText(parsed.query, () => latestUserText(shortTerm));
  const window = new Set(shortTerm.map((t) => t.id));
  const hidePii = store.config.context.exclude_pii;
  const standing = await standingBlock(store, space, {
    query,
    tokenBudget,
    share: store.config.context.standing_share,
    hidden: (m) => hidePii && m.tags.includes('pii'),
  });
  // What the standing sections say is not said again: their memories, and their short source turns (the same words).
  const said = new Set([...standing.instructions.items, ...standing.about.items].flatMap((i) => i.sourceTurnIds));
  const sources = (await collectCandidates(store, space, { query, tokenBudget, window }, options)).filter(
    (s) =>
      !(s.memory && standing.ids.has(s.memory.id)) &&
      !(s.turn && said.has(s.turn.id) && s.turn.text.length <= 2 * MAX_RESTATED),
  );
  const tuning = { ...DEFAULT_PACK_TUNING, ...options.tuning };
  // The timeline and the ranked list fill what the standing sections leave (and the blank line between them).
  const fillRest = async (rest: number) => {
    const timeline = await timelineFor(
      store,
      space,
      { query: options.timeline === false ? null : query, tokenBudget: rest },
      options,
    );
    const packed = timeline.pack((left, shown) =>
      pack(
        sources.map((s) => s.candidate).filter((c) => c.kind !== 'turn' || !shown.has(c.id)),
        left,
        tuning,
        new Set([...window, ...shown]),
      ),
    );
    return { timeline, packed, markdown: [standing.markdown, packed.markdown].filter(Boolean).join('\n\n') };
  };
  let rest = Math.max(0, tokenBudget - standing.tokens - (standing.tokens > 0 ? 1 : 0));
  let filled = await fillRest(rest);
  while (countTokens(filled.markdown) > tokenBudget && rest > 0) {
    rest = Math.max(0, rest - (countTokens(filled.markdown) - tokenBudget));
    filled = await fillRest(rest);
  }
  const { timeline, packed, markdown } = filled;
  const byKey = new Map(sources.map((s) => [`${s.candidate.kind}${s.candidate.id}`, s]));
  const standingItem = (i: (typeof standing.instructions.items)[number]): ContextItem => ({
    kind: i.memory.kind,
    id: i.memory.id,
    text: i.memory.content,
    line: i.line,
    at: i.at,
    eventAt: i.memory.eventAt,
    supersededAt: null,
    tokens: i.tokens,
    value: 1,
    reason: 'standing',
    sessionId: i.memory.sessionId,
    memory: i.memory,
    turn: null,
    sourceTurnIds: i.sourceTurnIds,
  });
  const sections = {
    instructions: { ...standing.instructions, items: standing.instructions.items.map(standingItem) },
    about: { ...standing.about, items: standing.about.items.map(standingItem) },
    tokens: standing.tokens,
  };
  const ranked: ContextItem[] = packed.items.map(({ candidate, tokens, value }) => {
    const source = byKey.get(`${candidate.kind}${candidate.id}`)!;
    return {
      kind: candidate.kind,
      id: candidate.id,
      text: source.memory?.content ?? source.turn!.text,
      line: candidate.line,
      at: candidate.at,
      eventAt: source.eventAt,
      supersededAt: source.supersededAt,
      tokens,
      value,
      reason: query && candidate.tier === 'query' ? 'query' : 'recency',
      sessionId: source.memory?.sessionId ?? source.turn?.sessionId ?? null,
      memory: source.memory,
      turn: source.turn,
      sourceTurnIds: candidate.sourceTurnIds,
    };
  });
  const items = [...sections.instructions.items, ...sections.about.items, ...ranked];
  const facts = items.flatMap((i) => (i.kind !== 'turn' && i.kind !== 'reflection' && i.memory ? [i.memory] : []));
  return {
    sessionId: parsed.sessionId,
    query,
    tokenBudget,
    tokensUsed: countTokens(markdown),
    tokenizer: TOKENIZER,
    items,
    standing: sections,
    shortTerm,
    midTerm: facts.filter((m) => m.layer === 'mid' && m.status === 'active'),
    longTerm: facts.filter((m) => m.layer === 'long' && m.status === 'active'),
    relevant: facts,
    reflection: (await latestReflection(store, space)) ?? null,
    timeline: timeline.timeline,
    markdown,
  };
}

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
  const memoryOk = (m: MemoryRow) => !(hidePii && m.tags.includes('pii'));
  const turnOk = (t: TurnRow) => !window.has(t.id) && !(hidePii && detectPii(t.text).length > 0);
  const out = new Map<string, Source>();
  const memories: Found['memories'] = new Map();
  const turns: Found['turns'] = new Map();

  if (query) {
    // Two searches, so that each kind gets its share of candidates whatever the other finds:
    // turns (ranked by the turn ranker), then facts and reflections.
    const turnHits = (
      await search(
        store,
        space,
        { query, kinds: ['turn'], limit: clamp(Math.ceil(tokenBudget / 15), 30, SEARCH_LIMIT) },
        options,
      )
    ).hits;
    turnHits.forEach(
      (hit, i) =>
        hit.turn &&
        turnOk(hit.turn) &&
        turns.set(hit.id, { turn: hit.turn, rank: i + 1, tier: 'query', passage: hit.passage }),
    );
    // Standing memories compete here too: those the standing sections had no room for.
    const memoryHits = (
      await search(
        store,
        space,
        { query, kinds: ['fact', 'reflection', ...STANDING_KINDS], limit: clamp(Math.ceil(tokenBudget / 40), 15, 100) },
        options,
      )
    ).hits;
    const rankOf = { fact: 0, reflection: 0 };
    for (const hit of memoryHits) {
      if (hit.memory && memoryOk(hit.memory))
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
      if (hit.memory && replaced.has(hit.id) && memoryOk(hit.memory)) {
        memories.set(hit.id, {
          memory: hit.memory,
          rank: ++replacedRank,
          projected: null,
          tier: 'query',
          supersededAt: replaced.get(hit.id)!,
        });
      }
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
      if (visibleIn(space, row) && memoryOk(row))
        memories.set(row.id, { memory: row, rank: null, projected: null, tier: 'query', supersededAt: null });
    for (const [id, rank] of drawn) {
      const known = memories.get(id);
      if (known) known.projected = rank;
    }
  }

  // The fill tier (recent and salient material for the space that query hits leave), and with no
  // query the whole list: newest turns, most salient facts, the latest reflection.
  const found =
    [...turns.values()].reduce((sum, t) => sum + t.turn.text.length, 0) +
    [...memories.values()].reduce((sum, m) => sum + m.memory.content.length, 0);
  if (!query || found / 4 < tokenBudget * 1.5)
    await addFill(store, space, { query, tokenBudget, window, turnOk, memoryOk, turns, memories });

  const ids = [...memories.keys()];
  const provenance = await sourcesOf(store, ids);
  const replacements = await replacedBy(
    store,
    [...memories].filter(([, m]) => m.supersededAt !== null).map(([id]) => id),
  );
  for (const [id, m] of memories) {
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
    out.set(`m${id}`, {
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
    });
  }
  for (const [id, t] of turns) {
    // A long turn is quoted by the passage that matched (passages.ts), not whole.
    const line = `[${day(t.turn.at)}] ${t.turn.name ?? t.turn.role}: ${oneLine(quoteOf(t.turn.text, t.passage))}`;
    out.set(`t${id}`, {
      candidate: {
        kind: 'turn',
        id,
        line,
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
    });
  }
  return [...out.values()];
}

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

const clamp = (n: number, low: number, high: number) => Math.max(low, Math.min(high, n));

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

/** Each memory's source turns (oldest first) and the time of the first. */
async function sourcesOf(
  store: Store,
  memoryIds: number[],
): Promise<Map<number, { turnIds: number[]; firstAt: number }>> {
  const out = new Map<number, { turnIds: number[]; firstAt: number }>();
  if (memoryIds.length === 0) return out;
  const rows = await store.sql.all<{ memoryId: number; turnId: number; at: number }>(
    `select s.memory_id as memoryId, s.turn_id as turnId, t.at as at from memory_sources s join turns t on t.id = s.turn_id
     where s.memory_id in (select value from sm_ids(?)) order by t.at, t.id`,
    [JSON.stringify(memoryIds)],
  );
  for (const row of rows) {
    const entry = out.get(row.memoryId);
    if (entry) entry.turnIds.push(row.turnId);
    else out.set(row.memoryId, { turnIds: [row.turnId], firstAt: row.at });
  }
  return out;
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

export { countTokens };
