// The dates a turn talks about: its time phrases resolved against the turn's own time
// (extraction/time-phrases.ts) and stored, indexed, in turn_dates. Written inside addTurn's
// transaction (a regex pass, microseconds; most turns name no time), read by search to match a
// date a query names, and backfilled on open for turns stored before the table existed.
import { logger } from '../logger.ts';
import { localDay, machineZone, resolveTimeMentions, type TimeMention } from './extraction/time-phrases.ts';
import type { Space } from './space.ts';
import { prepared, type Store } from './store.ts';
import { DAY_MS } from './clock.ts';

/** The fields of a turn its dates depend on (turns.ts imports this file, so not its row type). */
type DatedTurn = { id: number; userId: string; text: string; at: number };

/** The zone turns' dates are read in: extractor.timezone, else the machine's. */
export const dateZone = (store: Store) => store.config.extractor.timezone || machineZone();

/** The last turn resolved, so extraction in the same transaction does not resolve it again. */
const lastResolved = new WeakMap<Store, { id: number; text: string; at: number; mentions: TimeMention[] }>();

/** A turn's time phrases, resolved against its own time. */
export function mentionsOf(store: Store, turn: Pick<DatedTurn, 'id' | 'text' | 'at'>): TimeMention[] {
  const last = lastResolved.get(store);
  if (last && last.id === turn.id && last.text === turn.text && last.at === turn.at) return last.mentions;
  const mentions = resolveTimeMentions(turn.text, turn.at, dateZone(store));
  lastResolved.set(store, { id: turn.id, text: turn.text, at: turn.at, mentions });
  return mentions;
}

/** Resolves and stores a turn's dates; returns how many rows it wrote (a phrase already stored is left as it is). */
export function recordTurnDates(store: Store, turn: DatedTurn): number {
  const mentions = mentionsOf(store, turn);
  if (mentions.length === 0) return 0;
  const insert = prepared(store, 'turnDates.insert', () =>
    store.sqlite.prepare('insert or ignore into turn_dates (turn_id, user_id, start, phrase, date_from, date_to, grain) values (?, ?, ?, ?, ?, ?, ?)'),
  );
  let written = 0;
  for (const m of mentions) written += insert.run(turn.id, turn.userId, m.start, m.phrase, m.from, m.to, m.grain).changes;
  return written;
}

export type DateRange = { from: number; to: number; grain: string };

/** The stored dates of some turns, by turn id (turns without any are absent). */
export function datesOfTurns(store: Store, ids: number[]): Map<number, DateRange[]> {
  const out = new Map<number, DateRange[]>();
  if (ids.length === 0) return out;
  const rows = prepared(store, 'turnDates.ofTurns', () =>
    store.sqlite.prepare('select turn_id as turnId, date_from as "from", date_to as "to", grain from turn_dates where turn_id in (select value from json_each(?))'),
  ).all(JSON.stringify(ids)) as (DateRange & { turnId: number })[];
  for (const { turnId, ...range } of rows) {
    const list = out.get(turnId);
    if (list) list.push(range);
    else out.set(turnId, [range]);
  }
  return out;
}

/** The longest range a phrase resolves to (a year, or a fuzzy "several years ago"), bounding index scans. */
const LONGEST_RANGE_MS = 3_400 * DAY_MS;

/**
 * Turns of the space that talk about a date inside [from, to] (their resolved range overlaps it
 * and is not much wider: a year does not say which week), newest first. Reads the index by user
 * and date; the space's other filters are the caller's.
 */
export function turnsDatedIn(store: Store, space: Space, window: { from: number; to: number }, limit: number): number[] {
  const span = window.to - window.from;
  return prepared(store, 'turnDates.in', () =>
    store.sqlite
      .prepare(
        `select distinct turn_id from turn_dates
         where user_id = ? and date_from between ? and ? and date_to >= ? and (date_to - date_from) <= ?
         order by turn_id desc limit ?`,
      )
      .pluck(),
  ).all(space.userId, window.from - LONGEST_RANGE_MS, window.to, window.from, Math.max(span * 3, 35 * DAY_MS), limit) as number[];
}

const BACKFILL_KEY = 'turn_dates_backfill';

/**
 * Resolves the dates of turns stored before turn_dates existed (the migration recorded which:
 * ids below `below`). Newest first, `batch` turns per transaction; each lowers the mark in the
 * transaction that writes its dates, and the mark goes when none are left. It only inserts rows,
 * so stopping anywhere (or after `maxBatches`) loses nothing and the next call carries on.
 */
export function backfillTurnDates(store: Store, batch = 2_000, maxBatches = Infinity): { turns: number; dates: number } {
  const getMark = store.sqlite.prepare('select value from meta where key = ?').pluck();
  const raw = getMark.get(BACKFILL_KEY) as string | undefined;
  if (raw === undefined) return { turns: 0, dates: 0 };
  let below = Number((JSON.parse(raw) as { below?: number }).below ?? 0);
  const page = store.sqlite.prepare('select id, user_id as userId, text, at from turns where id < ? order by id desc limit ?');
  const setMark = store.sqlite.prepare('update meta set value = ? where key = ?');
  const dropMark = store.sqlite.prepare('delete from meta where key = ?');
  let turns = 0;
  let dates = 0;
  const started = performance.now();
  for (let batches = 0; batches < maxBatches; batches++) {
    const done = store.sqlite.transaction(() => {
      const rows = page.all(below, batch) as DatedTurn[];
      for (const row of rows) dates += recordTurnDates(store, row);
      turns += rows.length;
      if (rows.length < batch) {
        dropMark.run(BACKFILL_KEY);
        return true;
      }
      below = rows.at(-1)!.id;
      setMark.run(JSON.stringify({ below }), BACKFILL_KEY);
      return false;
    }).immediate();
    if (done) break;
  }
  if (turns > 0) logger.info({ turns, dates, ms: Math.round(performance.now() - started) }, 'resolved the dates of earlier turns');
  return { turns, dates };
}

/** The calendar day (UTC ms of its midnight) of instant `at` in the store's date zone. */
export const calendarDay = (store: Store, at: number) => localDay(at, dateZone(store)) * DAY_MS;
