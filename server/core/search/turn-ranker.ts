// Re-ranks lexical turn candidates with a linear model over features a conversation offers for
// free (turn-features.ts). The weights (one set for conversations between named people, one for
// a user's chats with an assistant) were fitted on LoCoMo and BEAM conversations by listwise softmax
// cross-entropy, and checked by leaving each conversation out in turn: `npm run bench:fit` refits
// them and prints both, so a change here is a measured one; `--write` writes them to turn-weights.ts.
import { perDialect } from '../kernel/dialect-statements.ts';
import type { Space } from '../kernel/space.ts';
import { datesOfTurns } from '../turns/turn-dates.ts';
import type { Store } from '../kernel/store.ts';
import type { AnalyzedQuery } from '../text/query.ts';
import type { Scored } from './lexical.ts';
import type { SemanticSignal } from '../vectors/semantic.ts';
import { documentFrequency, tableRows } from '../text-index/term-stats.ts';
import { passageCache, type Passage } from '../text/passages.ts';
import { textIndexOf } from '../text-index/text-index.ts';
import {
  PASSAGE_FEATURES,
  queryModel,
  TURN_FEATURES,
  turnFeatures,
  type FeatureTurn,
  type SignalScores,
  type TurnFeature,
} from './turn-features.ts';
import { CHAT_TURN_WEIGHTS, DEFAULT_TURN_WEIGHTS } from './turn-weights.ts';
import { stem, wordCache } from '../text/stems.ts';

export type TurnInfo = {
  id: number;
  userId: string;
  agentId: string | null;
  sessionId: string;
  name: string | null;
  at: number;
};

export type TurnTuning = {
  /** For conversations between named people, as LoCoMo's. */
  weights: Record<TurnFeature, number>;
  /** For a user's conversations with an assistant (any scored turn is an assistant's), as BEAM's. */
  chatWeights: Record<TurnFeature, number>;
  /** The best this many candidates (and pinned ones) are scored with their ±2 neighbours. */
  expand: number;
};

export const DEFAULT_TURN_TUNING: TurnTuning = {
  weights: DEFAULT_TURN_WEIGHTS,
  chatWeights: CHAT_TURN_WEIGHTS,
  expand: 40,
};

/**
 * The neighbours statement for each window size, built once per backend (the port prepares it by
 * its text): the ids of a turn's neighbours as a JSON array, nearest first.
 */
const neighboursText = perDialect<number>((statements, window) => {
  const { jsonIds } = statements.search;
  const before = `select p.id as id, p.at as at from turns p where p.user_id = c.user_id and p.session_id = c.session_id and (p.at, p.id) < (c.at, c.id) order by p.at desc, p.id desc limit ${window}`;
  const after = `select n.id as id, n.at as at from turns n where n.user_id = c.user_id and n.session_id = c.session_id and (n.at, n.id) > (c.at, c.id) order by n.at, n.id limit ${window}`;
  return `
      select c.id as id, ${jsonIds(before, 'x.at desc, x.id desc')} as prev, ${jsonIds(after, 'x.at, x.id')} as next
      from turns c where c.id in (select value from sm_ids(?))`;
});

/**
 * The two turns before and after each turn in its session (by time, then id), nearest first:
 * map of turn -> [[before...], [after...]]. One statement for the whole set.
 */
export async function neighbourIds(
  store: Store,
  ids: number[],
  window: number,
): Promise<Map<number, [number[], number[]]>> {
  const out = new Map<number, [number[], number[]]>();
  if (ids.length === 0 || window < 1) return out;
  for (const row of await store.sql.all<{ id: number; prev: string; next: string }>(
    neighboursText(store.dialect.statements, window),
    [JSON.stringify(ids)],
  )) {
    out.set(row.id, [JSON.parse(row.prev), JSON.parse(row.next)]);
  }
  return out;
}

type TurnRead = TurnInfo & { role: string; text: string };

/**
 * Turns the ranker read lately, by id. What it reads of a turn never changes (only enriched_at
 * does, which it does not read), and ids are never reused (AUTOINCREMENT), so an entry stays
 * right for as long as it is kept; the ids asked for come from this same search's queries, so a
 * deleted turn is never asked for.
 */
const turnCaches = new WeakMap<Store, Map<number, TurnRead>>();
const TURN_CACHE_LIMIT = 20_000;

const RANK_TURNS =
  'select t.id as id, t.user_id as userId, t.agent_id as agentId, t.session_id as sessionId, t.name as name, t.role as role, t.at as at, t.text as text from turns t where t.id in (select value from sm_ids(?))';

async function readTurns(store: Store, ids: number[]): Promise<Map<number, TurnRead>> {
  let cache = turnCaches.get(store);
  if (!cache) turnCaches.set(store, (cache = new Map()));
  const out = new Map<number, TurnRead>();
  const missing: number[] = [];
  for (const id of ids) {
    const hit = cache.get(id);
    if (hit) out.set(id, hit);
    else missing.push(id);
  }
  if (missing.length === 0) return out;
  const rows = await store.sql.all<TurnRead>(RANK_TURNS, [JSON.stringify(missing)]);
  if (cache.size + missing.length > TURN_CACHE_LIMIT) cache.clear();
  for (const row of rows) out.set(row.id, row), cache.set(row.id, row);
  return out;
}

/**
 * IDF as BM25 defines it, from the (capped) document frequencies in the user's turns, for the
 * terms queryModel weighs: the first of each stem.
 */
async function idfFor(store: Store, space: Space, query: AnalyzedQuery): Promise<(term: string) => number> {
  const rows = Math.max(1, await tableRows(store, space, 'turns'));
  const idf = new Map<string, number>();
  const stems = new Set<string>();
  const index = textIndexOf(store);
  for (const term of query.terms) {
    const s = stem(term);
    if (stems.has(s)) continue;
    stems.add(s);
    const df = await documentFrequency(store, space, { index, table: 'turns', rows, term });
    idf.set(term, Math.log(1 + (rows - df + 0.5) / (df + 0.5)));
  }
  return (term) => idf.get(term)!;
}

export type RankTurnsInput = {
  query: AnalyzedQuery;
  /** BM25 candidates, best first. */
  candidates: Scored[];
  tuning: TurnTuning;
  /** Filters the neighbours pulled in (they did not pass the SQL filters). */
  allowed: (turn: TurnInfo) => boolean;
  /** Scored in full whatever their rank (the matches on a date the query names, the nearest by word vector). */
  pinned?: number[];
  signals?: SignalScores;
  semantic?: SemanticSignal | null;
  /** Every feature computed, those the weights give nothing too (for fitting). */
  allFeatures?: boolean;
};

/**
 * Ranks turns from BM25 candidates (best first). Also returns every feature vector, for fitting
 * and explain.
 */
export async function rankTurns(
  store: Store,
  space: Space,
  input: RankTurnsInput,
): Promise<{ ranked: Scored[]; features: Map<number, number[]>; passages: Map<number, Passage> }> {
  const { query, candidates, tuning, allowed, pinned = [], semantic = null } = input;
  const signals = input.signals ?? { memory: new Map(), entity: new Map() };
  const passages = new Map<number, Passage>();
  // No word matches, but turns on the date the query names: those are still scored.
  if (candidates.length === 0 && pinned.length === 0) return { ranked: [], features: new Map(), passages };
  const max = candidates[0]?.score || 1;
  const bm25 = new Map(candidates.map((c) => [c.id, c.score / max]));
  const anchors = [...new Set([...candidates.slice(0, tuning.expand).map((c) => c.id), ...pinned])];
  const windows = await neighbourIds(store, anchors, 2);

  // Each window is a contiguous run of its session, so consecutive ids are true neighbours.
  const prev = new Map<number, number>();
  const next = new Map<number, number>();
  const openers = new Set<number>();
  for (const [id, [before, after]] of windows) {
    const run = [...[...before].reverse(), id, ...after];
    for (let i = 0; i + 1 < run.length; i++) next.set(run[i]!, run[i + 1]!), prev.set(run[i + 1]!, run[i]!);
    if (before.length < 2) openers.add(run[0]!), run.length > 1 && openers.add(run[1]!);
  }
  const scoredIds = [...new Set([...anchors, ...prev.keys(), ...next.keys()])];
  const rows = await readTurns(store, scoredIds);
  // What the turns talk about in time, when the question is about time.
  const dates =
    query.window || query.temporal
      ? await datesOfTurns(store, scoredIds)
      : new Map<number, { from: number; to: number }[]>();
  const asFeatureTurn = (row: TurnRead): FeatureTurn => {
    const p = prev.get(row.id) ?? null;
    const n = next.get(row.id) ?? null;
    return {
      id: row.id,
      name: row.name,
      role: row.role,
      at: row.at,
      text: row.text,
      prev: p,
      next: n,
      prev2: p === null ? null : (prev.get(p) ?? null),
      next2: n === null ? null : (next.get(n) ?? null),
      opener: openers.has(row.id),
      dates: dates.get(row.id),
    };
  };
  const turns = new Map([...rows.values()].map((row) => [row.id, asFeatureTurn(row)]));
  const scored = [...rows.values()].filter((row) => allowed(row)).map((row) => turns.get(row.id)!);
  const withSemantic = semantic ? { ...signals, [semantic.feature]: semantic.similarity(rows.values()) } : signals;
  // The weights for the kind of conversation: one with an assistant, or one between named people.
  const profile = scored.some((t) => t.role === 'assistant') ? tuning.chatWeights : tuning.weights;
  const features = turnFeatures(queryModel(query, await idfFor(store, space, query)), {
    turns: scored,
    bm25,
    turnsById: turns,
    signals: withSemantic,
    cache: wordCache(store),
    passageCache: passageCache(store),
    passages,
    passageFeatures: input.allFeatures || PASSAGE_FEATURES.some((f) => profile[f] !== 0),
  });
  const weights = TURN_FEATURES.map((f) => profile[f]);
  const ranked: Scored[] = [];
  for (const [id, vector] of features)
    ranked.push({ id, score: vector.reduce((sum, x, i) => sum + x * weights[i]!, 0) });
  // Candidates below the scored ones keep their BM25 order (their other features are unknown).
  for (const c of candidates)
    if (!features.has(c.id)) ranked.push({ id: c.id, score: profile.bm25 * bm25.get(c.id)! - 1e3 });
  ranked.sort((a, b) => b.score - a.score || a.id - b.id);
  return { ranked, features, passages };
}
