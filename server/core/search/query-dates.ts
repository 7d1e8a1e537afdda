// Dates a query names, in search: the window an event it names stands for ("the week before her
// trip"), and facts dated in a named window moved ahead of the others.
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { DAY_MS } from '../kernel/clock.ts';
import type { AnalyzedQuery } from '../text/query.ts';
import { datesOfTurns } from '../turns/turn-dates.ts';
import { lexicalTurns, type Clause, type Scored } from './lexical.ts';
import { DATE_SLACK_MS } from './turn-features.ts';

const ANCHOR_TURNS = 'select id, name, at from turns where id in (select value from sm_ids(?))';

/**
 * The window an event names ("the week before her trip"): the event is dated by the best
 * lexical match for its words (the one said by the person the query names, when there is one),
 * at the date that turn talks about, else when it was said.
 */
export async function anchorWindow(
  store: Store,
  space: Space,
  query: AnalyzedQuery,
  clauses: Clause[],
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
export async function datedFirst(
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
