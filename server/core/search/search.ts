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
import {
  lexicalMemories,
  lexicalTurns,
  memoryClauses,
  turnClauses,
  turnsWhere,
  type Clause,
  type Scored,
} from './lexical.ts';
import { analyzeQuery, type AnalyzedQuery } from '../text/query.ts';
import { normalizeText } from '../text/text.ts';
import { speakerLookup } from './speakers.ts';
import { standingTurns } from './standing-signal.ts';
import { DEFAULT_TURN_TUNING, rankTurns, type TurnTuning } from './turn-ranker.ts';
import type { Passage } from '../text/passages.ts';
import { DATE_SLACK_MS } from './turn-features.ts';
import { SIGNALS } from '../kernel/vocabulary.ts';
import { turnsDatedIn } from '../turns/turn-dates.ts';
import { anchorWindow, datedFirst } from './query-dates.ts';
import { comparedEventQueries } from '../text/compared-events.ts';
import { EVENT_TURNS, placeEventTurns } from './event-turns.ts';
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
  /** The same for each event a question compares (event-turns.ts), in the question's order. */
  eventFeatures?: Map<number, number[]>[];
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

/** One search under way: what it was asked, how it is tuned, and the ranked lists it has made so far. */
type SearchRun = {
  store: Store;
  space: Space;
  filter: SearchFilter;
  options: SearchOptions;
  tuning: SearchTuning;
  /** The query analysed, with the window an event it names dates (anchorWindow). */
  query: AnalyzedQuery;
  /** The events a question compares, each analysed as a query of its own (event-turns.ts). */
  events: AnalyzedQuery[];
  wantTurns: boolean;
  memoryKinds: SearchFilter['kinds'];
  tClauses: Clause[];
  lists: RankedList<Signal>[];
  used: Set<Signal>;
};

const on = (run: SearchRun, signal: Signal) => run.tuning.weights[signal] > 0;
function push(run: SearchRun, signal: Signal, ids: string[], weight = run.tuning.weights[signal]) {
  run.used.add(signal);
  if (ids.length > 0) run.lists.push({ signal, ids, weight });
}

/** search() of input already parsed with searchSchema: the search service parses once, before it embeds the query. */
export async function searchFiltered(
  store: Store,
  space: Space,
  filter: SearchFilter,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const tuning = tuningOf(options, store.config.embedding.turn_weight);
  const speakers = await speakerLookup(store, space);
  const analyzed = analyzeQuery(filter.query, speakers, store.clock.now());
  if (analyzed.tokens.length === 0) return { hits: [], signals: [] };
  const tClauses = turnClauses(space, filter);
  const withWindow = (q: AnalyzedQuery) => withAnchorWindow({ store, space, filter, tuning, tClauses }, q);
  const query = await withWindow(analyzed);
  const wantTurns = filter.kinds.includes('turn') && !filter.tags?.length;
  const events = wantTurns ? comparedEventQueries(filter.query, speakers, store.clock.now()) : [];
  const run: SearchRun = {
    ...{ store, space, filter, options, tuning, query, tClauses, wantTurns },
    events: await Promise.all(events.map(withWindow)),
    memoryKinds: filter.kinds.filter((k) => k !== 'turn'),
    lists: [],
    used: new Set(),
  };
  const { memoryHits, matches } = await memoryCandidates(run);
  const passages = run.wantTurns ? await turnLists(run, memoryHits, matches) : new Map<number, Passage>();
  await memoryLists(run, memoryHits, matches);
  const hits = await hydrate(store, space, rrf(run.lists), filter, {
    memoryKinds: run.memoryKinds,
    turns: run.wantTurns,
    allowTurn: turnFilter(space, filter),
  });
  for (const hit of hits) {
    const span = hit.kind === 'turn' ? passages.get(hit.id) : undefined;
    if (span) hit.passage = hit.text.slice(span.start, span.end);
  }
  return { hits: hits.slice(0, filter.limit), signals: SIGNALS.filter((s) => run.used.has(s)) };
}

/** "the week before her trip": the trip's date, from the turn that best tells of it, makes the window. */
async function withAnchorWindow(
  run: Pick<SearchRun, 'store' | 'space' | 'filter' | 'tuning' | 'tClauses'>,
  analyzed: AnalyzedQuery,
): Promise<AnalyzedQuery> {
  const { store, space, filter, tuning, tClauses } = run;
  return analyzed.anchor && filter.kinds.includes('turn') && tuning.turns.weights.talksOfDate > 0
    ? { ...analyzed, window: await anchorWindow(store, space, analyzed, tClauses) }
    : analyzed;
}

/** Each compared event's best turns, ranked as a search of its own (no query vector: that one is the whole question's). */
async function eventTurns(run: SearchRun): Promise<string[][]> {
  return Promise.all(
    run.events.map(async (query, i) => {
      const turnFeatures = run.options.eventFeatures ? (run.options.eventFeatures[i] = new Map()) : undefined;
      const options = { ...run.options, turnFeatures, eventFeatures: undefined, queryVector: null };
      const sub: SearchRun = { ...run, query, options, events: [], lists: [], used: new Set() };
      const { memoryHits, matches } = await memoryCandidates(sub);
      await turnLists(sub, memoryHits, matches);
      return (sub.lists.find((list) => list.signal === 'lexical')?.ids ?? []).slice(0, EVENT_TURNS);
    }),
  );
}

/** Turns use facts and entities only as ranker features: with a weight of 0, a turn search skips them. */
const factsForTurns = (run: SearchRun) =>
  run.wantTurns && (run.tuning.turns.weights.memory !== 0 || run.tuning.weights.memory > 0);
/** Standing memories' source turns: read only when a profile of the ranker weighs them. */
const standingForTurns = (run: SearchRun) =>
  run.wantTurns && (run.tuning.turns.weights.standing !== 0 || run.tuning.turns.chatWeights.standing !== 0);
const entitiesForTurns = (run: SearchRun) =>
  run.wantTurns && (run.tuning.turns.weights.entity !== 0 || on(run, 'entity'));

/** The memories that match lexically, and the entities the query names, when anything asks for them. */
async function memoryCandidates(run: SearchRun) {
  const { store, space, filter, tuning, query, memoryKinds } = run;
  const mClauses =
    memoryKinds.length > 0 || run.wantTurns
      ? memoryClauses(space, filter, memoryKinds.length > 0 ? memoryKinds : ['fact', ...STANDING_KINDS])
      : [];
  // Memory text names its subject ("Caroline went…"), so memories are searched with the names too.
  const memoryTerms = [...new Set([...query.terms, ...query.speakers.map((s) => s.toLowerCase().split(' ')[0]!)])];
  // Memory candidates that only feed their own list: a few pages past the limit do.
  const memoryLimit = factsForTurns(run)
    ? tuning.memoryCandidates
    : Math.min(tuning.memoryCandidates, Math.max(50, filter.limit * 5));
  const memoryHits =
    (memoryKinds.length > 0 && on(run, 'lexical')) || factsForTurns(run)
      ? await lexicalMemories(store, space, memoryTerms, mClauses, memoryLimit)
      : [];
  // Speakers are left to the speaker features: their entity links are every turn they said.
  const matches =
    entitiesForTurns(run) || (memoryKinds.length > 0 && on(run, 'entity'))
      ? await entitiesInQuery(store, space, query.raw, new Set(query.speakers.map((s) => normalizeText(s))))
      : [];
  return { memoryHits, matches };
}

/** The turns a named date pins (scored whatever their rank), and the candidates with that date's best matches merged in. */
async function datePinned(run: SearchRun, candidates: Scored[]) {
  const { store, space, filter, query, tuning } = run;
  if (!query.window || tuning.turns.weights.onDate <= 0) return { candidates, pinned: [] as number[] };
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
  const pinned = [...new Set([...dated.map((c) => c.id), ...talking, ...first.map((c) => c.id)])];
  return { candidates: mergeCandidates(candidates, dated), pinned };
}

/** The turns ranked (lexical list) with facts', entities' and the model's nearest turns beside; returns the passages that matched. */
async function turnLists(
  run: SearchRun,
  memoryHits: Scored[],
  matches: Awaited<ReturnType<typeof entitiesInQuery>>,
): Promise<Map<number, Passage>> {
  const { store, space, filter, options, tuning, query } = run;
  const projected = factsForTurns(run) ? await projectToTurns(store, memoryHits) : [];
  const lexical = await lexicalTurns(store, space, query.terms, run.tClauses, tuning.candidates);
  const entityTurns = entitiesForTurns(run)
    ? await entityLinked(store, 'turns', matches, tuning.candidates, new Map(lexical.map((c) => [c.id, c.score])))
    : [];
  let { candidates, pinned } = await datePinned(run, lexical);
  // Facts and entities are evidence for a turn: the ranker can weigh them as features (fitted to
  // 0 on LoCoMo), and their own lists join the fusion with the signal's weight (memory: 0, so
  // its ranks show without counting twice; entity: low, so linked turns with no shared word still come up).
  const standing = standingForTurns(run) ? await standingTurns(store, space, query) : null;
  if (standing) pinned = [...new Set([...pinned, ...standing.matching])];
  const signals = { memory: normalised(projected), entity: normalised(entityTurns), standing: standing?.sources };
  // An embedding model's vectors (the query's given) or else the word vectors (when on): a
  // feature of every scored turn, and the nearest turns scored too. They reach turns through the
  // ranker, not a list fused by rank.
  const modelVectors = on(run, 'vector') && !!options.queryVector && vectorsReady(store);
  const semantic = modelVectors
    ? await vectorSignal(store, space, query, options.queryVector!, tuning.semanticCandidates)
    : await semanticSignal(store, space, query, tuning.semanticCandidates);
  if (semantic) pinned = [...new Set([...pinned, ...semantic.nearest])];
  const { ranked, features, passages } = await rankTurns(store, space, {
    ...{ query, candidates, tuning: tuning.turns, allowed: turnFilter(space, filter) },
    ...{ pinned, signals, semantic, allFeatures: !!options.turnFeatures },
  });
  for (const [id, vector] of features) options.turnFeatures?.set(id, vector);
  const ids = (list: { id: number }[]) => list.map((t) => key('t', t.id));
  if (on(run, 'lexical'))
    push(run, 'lexical', placeEventTurns(ids(ranked.slice(0, tuning.candidates)), await eventTurns(run)));
  if (projected.length > 0) push(run, 'memory', ids(projected), tuning.weights.memory);
  if (entityTurns.length > 0) push(run, 'entity', ids(entityTurns));
  // The model's nearest turns, with weight 0 like facts': their ranks show, counted once (as a feature).
  if (modelVectors)
    push(
      run,
      'vector',
      semantic!.nearest.map((id) => key('t', id)),
      0,
    );
  return passages;
}

/** The memory lists: lexical (facts dated in a named window first), entity-linked, and vector KNN. */
async function memoryLists(run: SearchRun, memoryHits: Scored[], matches: Awaited<ReturnType<typeof entitiesInQuery>>) {
  const { store, space, filter, options, tuning, query, memoryKinds } = run;
  if (memoryKinds.length === 0) return;
  if (on(run, 'lexical'))
    push(
      run,
      'lexical',
      (await datedFirst(store, memoryHits, query.window)).map((m) => key('m', m.id)),
    );
  if (on(run, 'entity') && matches.length > 0) {
    const scores = new Map(memoryHits.map((m) => [m.id, m.score]));
    const linked = await entityLinked(store, 'memories', matches, tuning.candidates, scores);
    push(
      run,
      'entity',
      linked.map((m) => key('m', m.id)),
    );
  }
  if (on(run, 'vector') && options.queryVector && vectorsReady(store)) {
    // Only a few pages past the limit can matter in the fusion (as for memoryLimit): a shallower
    // KNN, reranking four candidates a hit (400 would double the cost of a big user's search).
    const k = Math.min(tuning.candidates, Math.max(50, filter.limit * 5));
    const nearest = await knnIds(store, space, {
      table: 'memories',
      vector: options.queryVector!,
      k,
      pool: Math.max(200, 4 * k),
    });
    push(
      run,
      'vector',
      nearest.map((id) => key('m', id)),
    );
  }
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
  const best = new Map<number, Scored>();
  for (const c of [...a, ...b]) if (c.score > (best.get(c.id)?.score ?? -Infinity)) best.set(c.id, c);
  return [...best.values()].sort((x, y) => y.score - x.score || x.id - y.id);
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
