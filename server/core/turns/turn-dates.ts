// The dates a turn talks about: its time phrases resolved against the turn's own time
// (text/time-phrases.ts) and stored, indexed, in turn_dates. Written inside addTurn's
// transaction (a regex pass, microseconds; most turns name no time), read by search to match a
// date a query names, and backfilled on open for turns stored before the table existed.
import { logger } from '../../logger.ts';
import { localDay, machineZone } from '../text/calendar-days.ts';
import { resolveTimeMentions, type TimeMention } from '../text/time-phrases.ts';
import type { Space } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';
import { DAY_MS } from '../kernel/clock.ts';

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

const INSERT_SQL =
  'insert into turn_dates (turn_id, user_id, start, phrase, date_from, date_to, grain) values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing';

/** Resolves and stores a turn's dates; returns how many rows it wrote (a phrase already stored is left as it is). */
export async function recordTurnDates(store: Store, turn: DatedTurn): Promise<number> {
  const mentions = mentionsOf(store, turn);
  if (mentions.length === 0) return 0;
  let written = 0;
  for (const m of mentions)
    written += (await store.sql.run(INSERT_SQL, [turn.id, turn.userId, m.start, m.phrase, m.from, m.to, m.grain]))
      .changes;
  return written;
}

export type DateRange = { from: number; to: number; grain: string };

/** The stored dates of some turns, by turn id (turns without any are absent). */
export async function datesOfTurns(store: Store, ids: number[]): Promise<Map<number, DateRange[]>> {
  const out = new Map<number, DateRange[]>();
  if (ids.length === 0) return out;
  const rows = await store.sql.all<DateRange & { turnId: number }>(
    'select turn_id as turnId, date_from as "from", date_to as "to", grain from turn_dates where turn_id in (select value from sm_ids(?))',
    [JSON.stringify(ids)],
  );
  for (const { turnId, ...range } of rows) {
    const list = out.get(turnId);
    if (list) list.push(range);
    else out.set(turnId, [range]);
  }
  return out;
}

/** The longest range a phrase resolves to (a year, or a fuzzy "several years ago"), bounding index scans. */
const LONGEST_RANGE_MS = 3_400 * DAY_MS;

const DATED_IN_SQL = `select distinct turn_id from turn_dates
  where user_id = ? and date_from between ? and ? and date_to >= ? and (date_to - date_from) <= ?
  order by turn_id desc limit ?`;

/**
 * Turns of the space that talk about a date inside [from, to] (their resolved range overlaps it
 * and is not much wider: a year does not say which week), newest first. Reads the index by user
 * and date; the space's other filters are the caller's.
 */
export async function turnsDatedIn(
  store: Store,
  space: Space,
  window: { from: number; to: number },
  limit: number,
): Promise<number[]> {
  const span = window.to - window.from;
  const rows = await store.sql.values(DATED_IN_SQL, [
    space.userId,
    window.from - LONGEST_RANGE_MS,
    window.to,
    window.from,
    Math.max(span * 3, 35 * DAY_MS),
    limit,
  ]);
  return rows.map((row) => row[0] as number);
}

const BACKFILL_KEY = 'turn_dates_backfill';

/**
 * Resolves the dates of turns stored before turn_dates existed (the migration recorded which:
 * ids below `below`). Newest first, `batch` turns per transaction; each lowers the mark in the
 * transaction that writes its dates, and the mark goes when none are left. It only inserts rows,
 * so stopping anywhere (or after `maxBatches`) loses nothing and the next call carries on.
 */
export async function backfillTurnDates(
  store: Store,
  batch = 2_000,
  maxBatches = Infinity,
): Promise<{ turns: number; dates: number }> {
  const raw = await store.sql.pluck<string>('select value from meta where key = ?', [BACKFILL_KEY]);
  if (raw === undefined) return { turns: 0, dates: 0 };
  let below = Number((JSON.parse(raw) as { below?: number }).below ?? 0);
  let turns = 0;
  let dates = 0;
  const started = performance.now();
  for (let batches = 0; batches < maxBatches; batches++) {
    const done = await write(store, async () => {
      const rows = await store.sql.all<DatedTurn>(
        'select id, user_id as userId, text, at from turns where id < ? order by id desc limit ?',
        [below, batch],
      );
      for (const row of rows) dates += await recordTurnDates(store, row);
      turns += rows.length;
      if (rows.length < batch) {
        await store.sql.run('delete from meta where key = ?', [BACKFILL_KEY]);
        return true;
      }
      below = rows.at(-1)!.id;
      await store.sql.run('update meta set value = ? where key = ?', [JSON.stringify({ below }), BACKFILL_KEY]);
      return false;
    });
    if (done) break;
  }
  if (turns > 0)
    logger.info({ turns, dates, ms: Math.round(performance.now() - started) }, 'resolved the dates of earlier turns');
  return { turns, dates };
}

/** The calendar day (UTC ms of its midnight) of instant `at` in the store's date zone. */
export const calendarDay = (store: Store, at: number) => localDay(at, dateZone(store)) * DAY_MS;
