// Hybrid search: lexical (BM25 + conversation structure), memories projected onto their source
// turns, entities and (when a query vector is given) vector KNN over memories, fused with RRF
// (k = 60). Vectors of turns, an embedding model's or the local word vectors (semantic.ts), are
// not a fused list: they are a turn-ranker feature.
import { STANDING_KINDS } from '../../../drizzle/vocabulary.ts';
import { parseInput } from '../kernel/validation.ts';
import type { MemoryRow } from '../memory/memories.ts';
import { visibleIn, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { entitiesInQuery, entityLinked } from './entity-signal.ts';
import { rrf, type RankedList } from './fuse.ts';
import { lexicalMemories, lexicalTurns, memoryClauses, turnClauses, turnsWhere, type Scored } from './lexical.ts';
import { analyzeQuery, type AnalyzedQuery } from '../text/query.ts';
import { normalizeText } from '../text/text.ts';
import { speakerLookup } from './speakers.ts';
import { DEFAULT_TURN_TUNING, rankTurns, type TurnTuning } from './turn-ranker.ts';
import type { Passage } from './passages.ts';
import { DATE_SLACK_MS } from './turn-features.ts';
import { SIGNALS } from '../kernel/vocabulary.ts';
import { datesOfTurns, turnsDatedIn } from '../turns/turn-dates.ts';
import { DAY_MS } from '../kernel/clock.ts';
import {
  searchSchema,
  type SearchFilter,
  type SearchHit,
  type SearchInput,
  type SearchResult,
  type Signal,
  type SignalRanks,
} from './types.ts';
import { knnIds, vectorsReady } from '../vectors/vectors.ts';
import { hydrate, SOURCES } from './hydrate.ts';
import { semanticSignal, vectorSignal } from '../vectors/semantic.ts';

export type SearchTuning = {
  turns: TurnTuning;
  /**
   * Per-signal RRF weights; 0 switches a signal off (ablation). Facts and entities reach turns
   * through the turn ranker's features instead: their turn lists fuse with weight 0.
   */
  weights: Record<Signal, number>;
  /** BM25 turn candidates read before re-ranking, and memory candidates. */
  candidates: number;
  memoryCandidates: number;
  /** Turns nearest the query by word vector, scored with the lexical candidates (semantic.ts). */
  semanticCandidates: number;
};

export const DEFAULT_TUNING: SearchTuning = {
  turns: DEFAULT_TURN_TUNING,
  weights: { lexical: 1, vector: 1, entity: 0.1, memory: 0 },
  candidates: 400,
  memoryCandidates: 400,
  semanticCandidates: 20,
};

export type SearchOptions = {
  /** The query's embedding (see searchWithEmbedder); without it the vector signal is skipped. */
  queryVector?: Float32Array | null;
  /** Filled with each scored turn's feature vector (TURN_FEATURES order): for fitting the ranker. */
  turnFeatures?: Map<number, number[]>;
  tuning?: {
    /** `weights` apply to both kinds of conversation, `chatWeights` then to conversations with an assistant. */
    turns?: { weights?: Partial<TurnTuning['weights']>; chatWeights?: Partial<TurnTuning['weights']>; expand?: number };
    weights?: Partial<Record<Signal, number>>;
    candidates?: number;
    memoryCandidates?: number;
    semanticCandidates?: number;
  };
};

const key = (kind: 'm' | 't', id: number) => `${kind}${id}`;

/** The defaults, the model's weight as configured (embedding.turn_weight), then the caller's. */
function tuningOf(options: SearchOptions, vectorWeight: number): SearchTuning {
  const turnWeights = { ...DEFAULT_TUNING.turns.weights, vector: vectorWeight, ...options.tuning?.turns?.weights };
  return {
    turns: {
      weights: turnWeights,
      chatWeights: {
        ...DEFAULT_TUNING.turns.chatWeights,
        vector: vectorWeight,
        ...options.tuning?.turns?.weights,
        ...options.tuning?.turns?.chatWeights,
      },
      expand: options.tuning?.turns?.expand ?? DEFAULT_TUNING.turns.expand,
    },
    weights: { ...DEFAULT_TUNING.weights, ...options.tuning?.weights },
    candidates: options.tuning?.candidates ?? DEFAULT_TUNING.candidates,
    memoryCandidates: options.tuning?.memoryCandidates ?? DEFAULT_TUNING.memoryCandidates,
    semanticCandidates: options.tuning?.semanticCandidates ?? DEFAULT_TUNING.semanticCandidates,
  };
}

/**
 * Searches the facts, reflections and turns of one space. Any query string is safe (it is
 * tokenised, never used as FTS syntax); one with no searchable word returns no hits. Bad
 * filters throw BAD_USER_INPUT.
 */
export async function search(
  store: Store,
  space: Space,
  input: SearchInput,
  options: SearchOptions = {},
): Promise<SearchResult> {
  return searchFiltered(store, space, parseInput(searchSchema, input), options);
}

/** search() of input already parsed with searchSchema: the search service parses once, before it embeds the query. */
export async function searchFiltered(
  store: Store,
  space: Space,
  filter: SearchFilter,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const tuning = tuningOf(options, store.config.embedding.turn_weight);
  const wantTurns = filter.kinds.includes('turn') && !filter.tags?.length;
  const memoryKinds = filter.kinds.filter((k) => k !== 'turn');
  const analyzed = analyzeQuery(filter.query, await speakerLookup(store, space), store.clock.now());
  const lists: RankedList<Signal>[] = [];
  const used = new Set<Signal>();
  const on = (signal: Signal) => tuning.weights[signal] > 0;
  const push = (signal: Signal, ids: string[], weight = tuning.weights[signal]) => {
    used.add(signal);
    if (ids.length > 0) lists.push({ signal, ids, weight });
  };
  if (analyzed.tokens.length === 0) return { hits: [], signals: [] };
  let passages = new Map<number, Passage>();

  const tClauses = turnClauses(space, filter);
  // "the week before her trip": the trip's date, from the turn that best tells of it, makes the window.
  const query =
    analyzed.anchor && filter.kinds.includes('turn') && tuning.turns.weights.talksOfDate > 0
      ? { ...analyzed, window: await anchorWindow(store, space, analyzed, tClauses) }
      : analyzed;
  const mClauses =
    memoryKinds.length > 0 || wantTurns
      ? memoryClauses(space, filter, memoryKinds.length > 0 ? memoryKinds : ['fact', ...STANDING_KINDS])
      : [];
  // Memory text names its subject ("Caroline went…"), so memories are searched with the names too.
  const memoryTerms = [...new Set([...query.terms, ...query.speakers.map((s) => s.toLowerCase().split(' ')[0]!)])];
  // Turns use facts and entities only as ranker features: with a weight of 0, a turn search skips them.
  const factsForTurns = wantTurns && (tuning.turns.weights.memory !== 0 || tuning.weights.memory > 0);
  const entitiesForTurns = wantTurns && (tuning.turns.weights.entity !== 0 || on('entity'));
  // Memory candidates that only feed their own list: a few pages past the limit do.
  const memoryLimit = factsForTurns
    ? tuning.memoryCandidates
    : Math.min(tuning.memoryCandidates, Math.max(50, filter.limit * 5));
  const memoryHits =
    (memoryKinds.length > 0 && on('lexical')) || factsForTurns
      ? await lexicalMemories(store, space, memoryTerms, mClauses, memoryLimit)
      : [];

  const projected = factsForTurns ? await projectToTurns(store, memoryHits) : [];
  // Speakers are left to the speaker features: their entity links are every turn they said.
  const matches =
    entitiesForTurns || (memoryKinds.length > 0 && on('entity'))
      ? await entitiesInQuery(store, space, query.raw, new Set(query.speakers.map((s) => normalizeText(s))))
      : [];
  const vectorsOn = on('vector') && !!options.queryVector && vectorsReady(store);
  // The model's vectors reach turns through the ranker (semantic.ts), not a list fused by rank.
  const modelVectors = wantTurns && vectorsOn;
  if (wantTurns) {
    let candidates = await lexicalTurns(store, space, query.terms, tClauses, tuning.candidates);
    const entityTurns = entitiesForTurns
      ? await entityLinked(store, 'turns', matches, tuning.candidates, new Map(candidates.map((c) => [c.id, c.score])))
      : [];
    let pinned: number[] = [];
    if (query.window && tuning.turns.weights.onDate > 0) {
      // A named date: the best matches on that date are scored even if they rank low overall.
      const onDate = turnClauses(space, {
        ...filter,
        from: Math.max(filter.from ?? 0, query.window.from - DATE_SLACK_MS),
        to: Math.min(filter.to ?? Infinity, query.window.to + DATE_SLACK_MS),
      });
      const dated = await lexicalTurns(store, space, query.terms, onDate, 50);
      // Turns that talk about that date, whenever they were said ("last week", said a week later).
      const talking = tuning.turns.weights.talksOfDate > 0 ? await turnsDatedIn(store, space, query.window, 50) : [];
      // With few word matches on that date, the date's first turns are scored too (no words needed).
      const first = dated.length < 10 ? await turnsWhere(store, onDate, 20) : [];
      pinned = [...new Set([...dated.map((c) => c.id), ...talking, ...first.map((c) => c.id)])];
      candidates = mergeCandidates(candidates, dated);
    }
    // Facts and entities are evidence for a turn: the ranker can weigh them as features (fitted to
    // 0 on LoCoMo), and their own lists join the fusion with the signal's weight (memory: 0, so
    // its ranks show without counting twice; entity: low, so linked turns with no shared word still come up).
    const signals = { memory: normalised(projected), entity: normalised(entityTurns) };
    // An embedding model's vectors (the query's given) or else the word vectors (when on): a
    // feature of every scored turn, and the nearest turns scored too.
    const semantic = modelVectors
      ? await vectorSignal(store, space, query, options.queryVector!, tuning.semanticCandidates)
      : await semanticSignal(store, space, query, tuning.semanticCandidates);
    if (semantic) pinned = [...new Set([...pinned, ...semantic.nearest])];
    const {
      ranked,
      features,
      passages: found,
    } = await rankTurns(store, space, {
      query,
      candidates,
      tuning: tuning.turns,
      allowed: turnFilter(space, filter),
      pinned,
      signals,
      semantic,
    });
    for (const [id, vector] of features) options.turnFeatures?.set(id, vector);
    passages = found;
    if (on('lexical'))
      push(
        'lexical',
        ranked.slice(0, tuning.candidates).map((t) => key('t', t.id)),
      );
    if (projected.length > 0)
      push(
        'memory',
        projected.map((t) => key('t', t.id)),
        tuning.weights.memory,
      );
    if (entityTurns.length > 0)
      push(
        'entity',
        entityTurns.map((t) => key('t', t.id)),
      );
    // The model's nearest turns, with weight 0 like facts': their ranks show, counted once (as a feature).
    if (modelVectors)
      push(
        'vector',
        semantic!.nearest.map((id) => key('t', id)),
        0,
      );
  }
  if (memoryKinds.length > 0 && on('lexical'))
    push(
      'lexical',
      (await datedFirst(store, memoryHits, query.window)).map((m) => key('m', m.id)),
    );
  if (memoryKinds.length > 0 && on('entity') && matches.length > 0) {
    const linked = await entityLinked(
      store,
      'memories',
      matches,
      tuning.candidates,
      new Map(memoryHits.map((m) => [m.id, m.score])),
    );
    push(
      'entity',
      linked.map((m) => key('m', m.id)),
    );
  }

  if (vectorsOn && memoryKinds.length > 0) {
    // Only a few pages past the limit can matter in the fusion (as for memoryLimit): a shallower
    // KNN, reranking four candidates a hit (400 would double the cost of a big user's search).
    const k = Math.min(tuning.candidates, Math.max(50, filter.limit * 5));
    push(
      'vector',
      (
        await knnIds(store, space, { table: 'memories', vector: options.queryVector!, k, pool: Math.max(200, 4 * k) })
      ).map((id) => key('m', id)),
    );
  }

  const fused = rrf(lists);
  const hits = await hydrate(store, space, fused, filter, {
    memoryKinds,
    turns: wantTurns,
    allowTurn: turnFilter(space, filter),
  });
  for (const hit of hits) {
    const span = hit.kind === 'turn' ? passages.get(hit.id) : undefined;
    if (span) hit.passage = hit.text.slice(span.start, span.end);
  }
  return { hits: hits.slice(0, filter.limit), signals: SIGNALS.filter((s) => used.has(s)) };
}

const ANCHOR_TURNS = 'select id, name, at from turns where id in (select value from sm_ids(?))';

/**
 * The window an event names ("the week before her trip"): the event is dated by the best
 * lexical match for its words (the one said by the person the query names, when there is one),
 * at the date that turn talks about, else when it was said.
 */
async function anchorWindow(
  store: Store,
  space: Space,
  query: AnalyzedQuery,
  clauses: ReturnType<typeof turnClauses>,
): Promise<{ from: number; to: number } | null> {
  const anchor = query.anchor!;
  const found = await lexicalTurns(store, space, anchor.terms, clauses, 10);
  if (found.length === 0) return null;
  const rows = await store.sql.all<{ id: number; name: string | null; at: number }>(ANCHOR_TURNS, [
    JSON.stringify(found.map((f) => f.id)),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const speakers = new Set(query.speakers.map((s) => s.toLowerCase()));
  const best =
    found
      .map((f) => byId.get(f.id)!)
      .find((r) => r && (speakers.size === 0 || speakers.has((r.name ?? '').toLowerCase()))) ?? byId.get(found[0]!.id)!;
  const talked = (await datesOfTurns(store, [best.id]))
    .get(best.id)
    ?.find((d) => d.grain === 'day' || d.grain === 'weekend');
  const at = talked ? talked.from : best.at;
  const span = anchor.days * DAY_MS;
  // The event's own day is in too: it is often where the question's answer is told.
  return anchor.before ? { from: at - span, to: at + DAY_MS - 1 } : { from: at, to: at + DAY_MS + span };
}

const FACTS_IN_WINDOW =
  'select id from memories where id in (select value from sm_ids(?)) and event_at between ? and ?';

/**
 * Facts dated in the window a query names ("in May 2023") move ahead of the others, each group in
 * its lexical order: a boost, not a filter (a fact's date may be when it was told).
 */
async function datedFirst(
  store: Store,
  hits: Scored[],
  window: { from: number; to: number } | null,
): Promise<Scored[]> {
  if (!window || hits.length === 0) return hits;
  const rows = await store.sql.values(FACTS_IN_WINDOW, [
    JSON.stringify(hits.map((h) => h.id)),
    window.from - DATE_SLACK_MS,
    window.to + DATE_SLACK_MS,
  ]);
  const inside = new Set(rows.map((row) => row[0] as number));
  return [...hits.filter((h) => inside.has(h.id)), ...hits.filter((h) => !inside.has(h.id))];
}

/** The SQL filters, again in JS, for turns that reach the list another way (neighbours, entities). */
export function turnFilter(space: Space, filter: SearchFilter) {
  const sessions = filter.sessionIds?.length ? new Set(filter.sessionIds) : null;
  const speakers = filter.speakers?.length ? new Set(filter.speakers.map((s) => s.toLowerCase())) : null;
  return (turn: { userId: string; agentId: string | null; sessionId: string; at: number; name: string | null }) =>
    visibleIn(space, turn) &&
    (!sessions || sessions.has(turn.sessionId)) &&
    turn.sessionId !== filter.excludeSessionId &&
    (filter.from == null || turn.at >= filter.from) &&
    (filter.to == null || turn.at <= filter.to) &&
    (!speakers || (turn.name !== null && speakers.has(turn.name.toLowerCase())));
}

/** Scores divided by the best, as a map. */
function normalised(list: Scored[]): Map<number, number> {
  const max = list[0]?.score || 1;
  return new Map(list.map((s) => [s.id, s.score / max]));
}

function mergeCandidates(a: Scored[], b: Scored[]): Scored[] {
  const best = new Map<number, number>();
  for (const c of [...a, ...b]) best.set(c.id, Math.max(best.get(c.id) ?? -Infinity, c.score));
  return [...best].map(([id, score]) => ({ id, score })).sort((x, y) => y.score - x.score || x.id - y.id);
}

/** Memory hits as turns: each source turn takes the rank of its best memory. */
async function projectToTurns(store: Store, memoryHits: Scored[]): Promise<Scored[]> {
  if (memoryHits.length === 0) return [];
  const rows = await store.sql.all<{ memoryId: number; turnId: number }>(SOURCES, [
    JSON.stringify(memoryHits.map((m) => m.id)),
  ]);
  const byMemory = new Map<number, number[]>();
  for (const row of rows) byMemory.set(row.memoryId, [...(byMemory.get(row.memoryId) ?? []), row.turnId]);
  const out: Scored[] = [];
  const seen = new Set<number>();
  for (const hit of memoryHits)
    for (const id of byMemory.get(hit.id) ?? []) if (!seen.has(id)) seen.add(id), out.push({ id, score: hit.score });
  return out;
}

export type { SearchHit, SearchResult, SignalRanks, MemoryRow };
