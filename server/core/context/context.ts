// Context for the next model call (docs/architecture.md#context): the short-term window of the session, and one markdown
// block packed from a single ranked list of facts, turns and reflections. Search ranks them for
// the query (or the session's latest user turn); with neither, recency and salience do. The list
// fills the token budget best value per token first (context-pack.ts), and every item carries
// its date.
import { z } from 'zod';
import { collectCandidates, isChat, type Source } from './context-candidates.ts';
import {
  CHAT_PACK_TUNING,
  DEFAULT_PACK_TUNING,
  pack,
  type Candidate,
  type Packed,
  type PackTuning,
} from './context-pack.ts';
import { standingBlock, type StandingItem, type StandingSection, type StandingTuning } from './context-standing.ts';
import { timelineFor, type Timeline, type TimelineTuning } from './timeline.ts';
import type { MemoryRow } from '../memory/memories.ts';
import { latestReflection } from '../memory/reflection.ts';
import type { SearchOptions } from '../search/search.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { countTokens, TOKENIZER } from '../text/token-count.ts';
import { sessionIdSchema, shortTermWindow, type TurnRow } from '../turns/turns.ts';
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
    sessionId: sessionIdSchema,
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
  standing?: Partial<StandingTuning>;
  timelineTuning?: Partial<TimelineTuning>;
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
    tuning: options.standing,
  });
  // What the standing sections say is not said again: their memories, and their short source turns (the same words).
  const said = new Set([...standing.instructions.items, ...standing.about.items].flatMap((i) => i.sourceTurnIds));
  const sources = (await collectCandidates(store, space, { query, tokenBudget, window }, options)).filter(
    (s) =>
      !(s.memory && standing.ids.has(s.memory.id)) &&
      !(s.turn && said.has(s.turn.id) && s.turn.text.length <= 2 * MAX_RESTATED),
  );
  const tuning = { ...(isChat(sources) ? CHAT_PACK_TUNING : DEFAULT_PACK_TUNING), ...options.tuning };
  // The timeline and the ranked list fill what the standing sections leave (and the blank line between them).
  const fillRest = async (rest: number) => {
    const timeline = await timelineFor(
      store,
      space,
      { query: options.timeline === false ? null : query, tokenBudget: rest, tuning: options.timelineTuning },
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
  const sections = {
    instructions: { ...standing.instructions, items: standing.instructions.items.map(standingItem) },
    about: { ...standing.about, items: standing.about.items.map(standingItem) },
    tokens: standing.tokens,
  };
  const ranked = rankedItems(packed.items, sources, query);
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

/** A standing section's line as a context item. */
const standingItem = (i: StandingItem): ContextItem => ({
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

/** The packed candidates as context items, with the rows behind them. */
function rankedItems(packed: Packed[], sources: Source[], query: string | null): ContextItem[] {
  const byKey = new Map(sources.map((s) => [`${s.candidate.kind}${s.candidate.id}`, s]));
  return packed.map(({ candidate, tokens, value }) => {
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
}

export { countTokens };
