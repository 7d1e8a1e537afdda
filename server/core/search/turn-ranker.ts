// Re-ranks lexical turn candidates with what a conversation's structure says, no model needed:
//  - neighbours: an answer usually follows the question that names the topic, so a turn takes
//    part of its neighbours' score (and a neighbour of a strong hit becomes a candidate);
//  - session: evidence clusters in the conversation where the topic came up;
//  - speaker: "What did Caroline…" is about Caroline's own turns;
//  - time: a "when" question is answered by a turn that says when.
import { prepared, type Store } from '../store.ts';
import type { AnalyzedQuery } from './query.ts';
import type { Scored } from './lexical.ts';

export type TurnInfo = { id: number; sessionId: string; name: string | null; at: number };

export type TurnTuning = {
  /** Share of the best neighbour's score a turn receives. 0 turns smoothing off. */
  neighbour: number;
  /**
   * Relative weight by distance (1, 2, 3 turns away). Two turns on is the same speaker again,
   * answering the other's follow-up question about the topic just named: it weighs as much as
   * the next turn.
   */
  distance: number[];
  /** Weight of the session's share of all candidate score. */
  session: number;
  /** Multiplier bonus for turns by a speaker the query names. */
  speaker: number;
  /** Multiplier bonus for turns that state a time, on "when" questions. */
  temporal: number;
  /** How many top candidates pull their neighbours in. */
  expand: number;
  /** Multiplier bonus for turns on the date the query names. */
  date: number;
  /** Share of a matching memory's score its source turns receive. */
  memory: number;
};

export const DEFAULT_TURN_TUNING: TurnTuning = { neighbour: 0.7, distance: [1, 1, 0.5], session: 0.3, speaker: 0.5, temporal: 0.3, expand: 60, date: 1, memory: 0 };

/** Slack around a named date: conversations are dated by when they started. */
export const DATE_SLACK_MS = 86_400_000;

const TIME_WORDS =
  /\b(yesterday|today|tonight|tomorrow|ago|last (?:week|weekend|month|year|night|friday|saturday|sunday|monday|tuesday|wednesday|thursday|summer|winter|spring|fall)|next (?:week|month|year)|this (?:week|weekend|month|year|morning|summer)|recently|(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|january|february|march|april|may|june|july|august|september|october|november|december|\d{4}|\d+ (?:days?|weeks?|months?|years?))\b/i;

export function turnInfos(store: Store, ids: number[]): Map<number, TurnInfo> {
  const out = new Map<number, TurnInfo>();
  if (ids.length === 0) return out;
  const stmt = prepared(store, 'search.turnInfo', () =>
    store.sqlite.prepare('select t.id as id, t.session_id as sessionId, t.name as name, t.at as at from turns t where t.id in (select value from json_each(?))'),
  );
  for (const row of stmt.all(JSON.stringify(ids)) as TurnInfo[]) out.set(row.id, row);
  return out;
}

/** Texts of some turns (only read when a query needs them: most searches do not). */
export function turnTexts(store: Store, ids: number[]): Map<number, string> {
  if (ids.length === 0) return new Map();
  const stmt = prepared(store, 'search.turnTexts', () => store.sqlite.prepare('select id, text from turns where id in (select value from json_each(?))'));
  return new Map((stmt.all(JSON.stringify(ids)) as { id: number; text: string }[]).map((r) => [r.id, r.text]));
}

/** Only the best this many turns are checked for time words on a "when" question. */
const TEMPORAL_TOP = 100;

/**
 * The `window` turns before and after each turn in its session (by time, then id), nearest
 * first: map of turn -> [[before...], [after...]]. One statement for the whole candidate set.
 */
export function neighbourIds(store: Store, ids: number[], window: number): Map<number, [number[], number[]]> {
  const out = new Map<number, [number[], number[]]>();
  if (ids.length === 0 || window < 1) return out;
  const stmt = prepared(store, `search.neighbours.${window}`, () =>
    store.sqlite.prepare(`
      select c.id as id,
        (select json_group_array(id) from (select p.id from turns p where p.session_id = c.session_id and (p.at, p.id) < (c.at, c.id) order by p.at desc, p.id desc limit ${window})) as prev,
        (select json_group_array(id) from (select n.id from turns n where n.session_id = c.session_id and (n.at, n.id) > (c.at, c.id) order by n.at, n.id limit ${window})) as next
      from turns c where c.id in (select value from json_each(?))`),
  );
  for (const row of stmt.all(JSON.stringify(ids)) as { id: number; prev: string; next: string }[]) {
    out.set(row.id, [JSON.parse(row.prev), JSON.parse(row.next)]);
  }
  return out;
}

/**
 * Ranks turns from BM25 candidates. `allowed` filters neighbours pulled in (they did not pass
 * the SQL filters). Returns the ranked turns and the rows read, for building hits.
 */
export function rankTurns(
  store: Store,
  query: AnalyzedQuery,
  candidates: Scored[],
  tuning: TurnTuning,
  allowed: (turn: TurnInfo) => boolean,
): { ranked: Scored[]; infos: Map<number, TurnInfo> } {
  if (candidates.length === 0) return { ranked: [], infos: new Map() };
  const max = candidates[0]!.score || 1;
  const base = new Map(candidates.map((c) => [c.id, c.score / max]));
  const top = candidates.slice(0, tuning.expand).map((c) => c.id);
  const window = tuning.neighbour > 0 ? tuning.distance.length : 0;
  const neighbours = neighbourIds(store, top, window);
  const ids = new Set(base.keys());
  for (const [before, after] of neighbours.values()) for (const id of [...before, ...after]) ids.add(id);
  const infos = turnInfos(store, [...ids]);

  // Neighbour links both ways (the top turns know theirs; a pulled-in neighbour knows the top
  // turn), each with the weight of its distance.
  const links = new Map<number, Map<number, number>>();
  const link = (a: number, b: number, w: number) => {
    if (!links.has(a)) links.set(a, new Map());
    const m = links.get(a)!;
    m.set(b, Math.max(m.get(b) ?? 0, w));
  };
  for (const [id, sides] of neighbours) {
    for (const side of sides) side.forEach((n, i) => (link(id, n, tuning.distance[i]!), link(n, id, tuning.distance[i]!)));
  }

  const sessionMass = new Map<string, number>();
  for (const [id, s] of base) {
    const info = infos.get(id);
    if (info) sessionMass.set(info.sessionId, (sessionMass.get(info.sessionId) ?? 0) + s);
  }
  const maxMass = Math.max(1e-9, ...sessionMass.values());
  const speakers = new Set(query.speakers.map((s) => s.toLowerCase()));

  const score0 = (id: number) => {
    let best = 0;
    for (const [n, w] of links.get(id) ?? []) best = Math.max(best, w * (base.get(n) ?? 0));
    return (base.get(id) ?? 0) + tuning.neighbour * best;
  };
  const texts = query.temporal && tuning.temporal > 0
    ? turnTexts(store, [...ids].sort((a, b) => score0(b) - score0(a)).slice(0, TEMPORAL_TOP))
    : new Map<number, string>();
  const ranked: Scored[] = [];
  for (const id of ids) {
    const info = infos.get(id);
    if (!info || !allowed(info)) continue;
    let score = score0(id);
    if (speakers.size > 0 && speakers.size < 2 && info.name && speakers.has(info.name.toLowerCase())) score *= 1 + tuning.speaker;
    const text = texts.get(id);
    if (text !== undefined && TIME_WORDS.test(text)) score *= 1 + tuning.temporal;
    if (query.window && info.at >= query.window.from - DATE_SLACK_MS && info.at <= query.window.to + DATE_SLACK_MS) score *= 1 + tuning.date;
    score += tuning.session * ((sessionMass.get(info.sessionId) ?? 0) / maxMass);
    ranked.push({ id, score });
  }
  ranked.sort((a, b) => b.score - a.score || a.id - b.id);
  return { ranked, infos };
}
