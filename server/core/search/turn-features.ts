// What a turn has going for it as the answer to a question, as numbers a linear ranker weighs.
// All of it is cheap to compute from the text and the conversation's order, no model needed:
// how well the words match (BM25, the share of the query's weight covered, adjacent word pairs),
// whether the neighbours match (an answer follows the question that named the topic), who
// speaks, and whether the turn says what the question asks for (a time, a number, a name).
import { cachedStems, stem, type WordCache } from '../text/stems.ts';
import {
  bestPassage,
  cachedPassages,
  PASSAGE_MIN_CHARS,
  type BestPassage,
  type PassageCache,
  type Passage,
} from '../text/passages.ts';
import type { AnalyzedQuery } from '../text/query.ts';

export const TURN_FEATURES = [
  'bm25',
  'coverage',
  'prev',
  'next',
  'prev2',
  'next2',
  'windowCoverage',
  'speaker',
  'otherSpeaker',
  'question',
  'timeWords',
  'opener',
  'onDate',
  'bigram',
  'number',
  'name',
  'memory',
  'entity',
  'talksOfDate',
  'dated',
  'semantic',
  'vector',
  'passage',
  'passageCoverage',
  'prevPassage',
  'nextPassage',
  'assistant',
  'standing',
  'askedAssistant',
] as const;
export type TurnFeature = (typeof TURN_FEATURES)[number];
/** The features read off a turn's best passage (../text/passages.ts). */
export const PASSAGE_FEATURES: readonly TurnFeature[] = ['passage', 'passageCoverage', 'prevPassage', 'nextPassage'];

/**
 * Evidence from the other signals, each normalised to its best: the score of the best fact
 * extracted from the turn that matches the query, and the turn's entity-link score; and the
 * cosine of the turn's vector with the query's (semantic.ts): the local word vectors'
 * (`semantic`) or an embedding model's (`vector`), whichever is on.
 */
export type SignalScores = {
  memory: Map<number, number>;
  entity: Map<number, number>;
  semantic?: Map<number, number>;
  vector?: Map<number, number>;
  /** Turns a standing memory (instruction, preference, profile, pinned) was drawn from (standing-signal.ts). */
  standing?: Map<number, number>;
};

/** One turn as the ranker sees it; neighbours are ids in the same session (null: none or unknown). */
export type FeatureTurn = {
  id: number;
  name: string | null;
  role: string;
  at: number;
  text: string;
  prev: number | null;
  prev2: number | null;
  next: number | null;
  /** Position in its session when known to be 0 or 1 (a conversation opens with news). */
  opener: boolean;
  next2: number | null;
  /** The dates its time phrases name (turn_dates), when the query asks about time. */
  dates?: { from: number; to: number }[];
};

/** Whether a turn talks about a date in the window: a resolved phrase overlapping it, not much wider than it. */
export function talksOf(
  dates: { from: number; to: number }[] | undefined,
  window: { from: number; to: number },
): boolean {
  if (!dates) return false;
  const widest = Math.max(3 * (window.to - window.from), 35 * DATE_SLACK_MS);
  return dates.some((d) => d.from <= window.to && d.to >= window.from && d.to - d.from <= widest);
}

const TIME_WORDS =
  /\b(yesterday|today|tonight|tomorrow|ago|last (?:week|weekend|month|year|night|friday|saturday|sunday|monday|tuesday|wednesday|thursday|summer|winter|spring|fall)|next (?:week|month|year)|this (?:week|weekend|month|year|morning|summer)|recently|(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|january|february|march|april|may|june|july|august|september|october|november|december|\d{4}|\d+ (?:days?|weeks?|months?|years?))\b/i;
const NUMBER_WORDS = /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twice|once)\b/i;
const WANTS_NUMBER = /\bhow (?:many|much|long|old)\b/i;
/** The question asks what the assistant said before ("how did you recommend…"), not for new advice ("would you suggest"). */
const WANTS_ASSISTANT =
  /\b(?:did|have|had)\s+you\s+(?:recommend|suggest|say|tell|advise|propose|explain|mention|describe)\b|\byou\s+(?:recommended|suggested|said|told|advised|proposed|explained|mentioned|described)\b|\byour\s+(?:recommendation|suggestion|advice|explanation)s?\b/i;
const WANTS_NAME = /^\s*(?:who|where|which)\b|\bwhat (?:city|country|place|state|book|movie|game|band|name)/i;
/** A capitalised word after a space: a name, a place, a title. */
const NAMED = /\s\p{Lu}\p{Ll}+/u;

export type QueryModel = { terms: string[]; idf: number[]; pairs: Set<string>; query: AnalyzedQuery };

/** Stemmed query terms with their IDF (from document frequencies in the index). */
export function queryModel(query: AnalyzedQuery, idfOf: (term: string) => number): QueryModel {
  const terms: string[] = [];
  const idf: number[] = [];
  for (const term of query.terms) {
    const s = stem(term);
    if (terms.includes(s)) continue;
    terms.push(s);
    idf.push(idfOf(term));
  }
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < terms.length; i++) pairs.add(`${terms[i]} ${terms[i + 1]}`);
  return { terms, idf, pairs, query };
}

/** What turnFeatures reads besides the query model. */
export type FeatureInput = {
  /** The turns to score. */
  turns: FeatureTurn[];
  /** Each turn's lexical score, normalised to the best candidate's. */
  bm25: Map<number, number>;
  /** The scored turns and their neighbours. */
  turnsById: Map<number, FeatureTurn>;
  signals: SignalScores;
  cache?: WordCache;
  passageCache?: PassageCache;
  /** Receives the best passage of each scored turn that has more than one (../text/passages.ts). */
  passages?: Map<number, Passage>;
  /**
   * False when the weights give the passage features nothing: a short turn's passage (the turn
   * itself) is then not scored, and those features read 0; a long turn's still is, for its quote.
   */
  passageFeatures?: boolean;
};

/** Which query terms a turn holds, as a bitmask (terms past the 30th count for BM25 only), and how many adjacent query-term pairs. */
function termMasks(model: QueryModel, input: FeatureInput) {
  const { terms, pairs } = model;
  const termIndex = new Map(terms.slice(0, 30).map((term, i) => [term, i]));
  const termSet = new Set(terms);
  const cache = input.cache ?? new Map();
  const masks = new Map<number, number>();
  const bigrams = new Map<number, number>();
  const read = (id: number | null) => {
    if (id === null) return 0;
    let mask = masks.get(id);
    if (mask !== undefined) return mask;
    const turn = input.turnsById.get(id);
    if (!turn) return 0;
    mask = 0;
    let pairCount = 0;
    let before: string | null = null; // the previous word's stem, when it is a query term
    for (const stemmed of cachedStems(cache, id, turn.text)) {
      const isTerm = termSet.has(stemmed);
      if (isTerm) {
        const index = termIndex.get(stemmed);
        if (index !== undefined) mask |= 1 << index;
        if (before !== null && pairs.has(`${before} ${stemmed}`)) pairCount++;
      }
      before = isTerm ? stemmed : null;
    }
    masks.set(id, mask);
    bigrams.set(id, pairCount);
    return mask;
  };
  const maskOf = (stems: string[]) => {
    let mask = 0;
    for (const s of stems) {
      const index = termIndex.get(s);
      if (index !== undefined) mask |= 1 << index;
    }
    return mask;
  };
  return { read, maskOf, bigrams };
}

/** A short turn's passage when the passage features are off: its score and stems are never read. */
const UNSCORED: BestPassage = { score: 0, passage: { start: 0, end: 0 }, stems: [], of: 1 };

/** Each turn's best passage (a short turn is one passage, its words stemmed once), and its score relative to the best scored turn's. */
function passageScores(model: QueryModel, input: FeatureInput) {
  const cache = input.cache ?? new Map();
  const passageCache = input.passageCache ?? new Map();
  const bests = new Map<number, BestPassage>();
  const best = (id: number | null): BestPassage | undefined => {
    if (id === null) return undefined;
    let found = bests.get(id);
    if (found) return found;
    const turn = input.turnsById.get(id);
    if (!turn) return undefined;
    if (input.passageFeatures === false && turn.text.length <= PASSAGE_MIN_CHARS) return UNSCORED;
    const stemmed =
      turn.text.length <= PASSAGE_MIN_CHARS
        ? [{ start: 0, end: turn.text.length, stems: cachedStems(cache, id, turn.text) }]
        : cachedPassages(passageCache, id, turn.text, stem);
    bests.set(id, (found = bestPassage(stemmed, model.terms, model.idf)));
    return found;
  };
  let top = 0;
  for (const turn of input.turns) top = Math.max(top, best(turn.id)!.score);
  const score = (id: number | null) => (best(id)?.score ?? 0) / (top || 1);
  return { best: (id: number) => best(id)!, score };
}

/**
 * Feature vectors (in TURN_FEATURES order) for `input.turns`; `input.passages` receives the best
 * passage of each scored turn that has more than one (../text/passages.ts).
 */
export function turnFeatures(model: QueryModel, input: FeatureInput): Map<number, number[]> {
  const { idf, terms, query } = model;
  const { turns, bm25, signals, passages } = input;
  const idfSum = idf.reduce((a, b) => a + b, 0) || 1;
  const { read, maskOf, bigrams } = termMasks(model, input);
  const passage = passageScores(model, input);
  const covered = (mask: number) => {
    let sum = 0;
    for (let i = 0; mask !== 0; i++, mask >>>= 1) if (mask & 1) sum += idf[i]!;
    return sum / idfSum;
  };
  const speakers = new Set(query.speakers.map((s) => s.toLowerCase()));
  const wantsNumber = WANTS_NUMBER.test(query.raw);
  const wantsName = WANTS_NAME.test(query.raw);
  const wantsAssistant = WANTS_ASSISTANT.test(query.raw);
  const score = (id: number | null) => (id === null ? 0 : (bm25.get(id) ?? 0));
  const inWindow = (at: number) =>
    !!query.window && at >= query.window.from - DATE_SLACK_MS && at <= query.window.to + DATE_SLACK_MS;
  const out = new Map<number, number[]>();
  for (const turn of turns) {
    const own = read(turn.id);
    const mine = passage.best(turn.id);
    if (passages && mine.of > 1) passages.set(turn.id, mine.passage);
    const speaker = (turn.name ?? '').toLowerCase();
    out.set(turn.id, [
      score(turn.id),
      covered(own),
      score(turn.prev),
      score(turn.next),
      score(turn.prev2),
      score(turn.next2),
      covered(own | read(turn.prev) | read(turn.next)),
      speakers.size === 1 && speakers.has(speaker) ? 1 : 0,
      speakers.size > 0 && !speakers.has(speaker) ? 1 : 0,
      turn.text.includes('?') ? 1 : 0,
      query.temporal && TIME_WORDS.test(turn.text) ? 1 : 0,
      turn.opener ? 1 : 0,
      inWindow(turn.at) ? 1 : 0,
      terms.length > 1 ? (bigrams.get(turn.id) ?? 0) / (terms.length - 1) : 0,
      wantsNumber && NUMBER_WORDS.test(turn.text) ? 1 : 0,
      wantsName && NAMED.test(turn.text) ? 1 : 0,
      signals.memory.get(turn.id) ?? 0,
      signals.entity.get(turn.id) ?? 0,
      query.window && talksOf(turn.dates, query.window) ? 1 : 0,
      query.temporal && (turn.dates?.length ?? 0) > 0 ? 1 : 0,
      signals.semantic?.get(turn.id) ?? 0,
      signals.vector?.get(turn.id) ?? 0,
      passage.score(turn.id),
      mine.of > 1 ? covered(maskOf(mine.stems)) : covered(own),
      passage.score(turn.prev),
      passage.score(turn.next),
      turn.role === 'assistant' ? 1 : 0,
      signals.standing?.get(turn.id) ?? 0,
      wantsAssistant && turn.role === 'assistant' ? 1 : 0,
    ]);
  }
  return out;
}

/** Slack around a named date: conversations are dated by when they started. */
export const DATE_SLACK_MS = 86_400_000;
