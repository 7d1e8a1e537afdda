// Relative dates in turns, resolved against the turn's own time and stored as absolute dates:
// what each phrase resolves to, the phrases that must stay text (two readings, or none), time
// zones, and the turn_dates rows addTurn, import and the upgrade backfill write.
import { describe, expect, it } from 'vitest';
import { describeMention, resolveTimeMentions } from '../../server/core/text/time-phrases.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { backfillTurnDates, turnsDatedIn } from '../../server/core/turns/turn-dates.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { countRows, testStore, T0 } from '../helpers/store.ts';

const DAY = 86_400_000;
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
/** What `text`, said at `at` (T0: Thursday 1 January 2026, 12:00 UTC), resolves to: [phrase, first day, last day, grain]. */
const resolve = (text: string, at = T0, zone = 'UTC') =>
  resolveTimeMentions(text, at, zone).map((m) => [
    m.phrase,
    new Date(m.from).toISOString().slice(0, 10),
    new Date(m.to).toISOString().slice(0, 10),
    m.grain,
  ]);

describe('time phrases resolved against the turn time', () => {
  it.each([
    ['I went to a support group yesterday', 'yesterday', '2025-12-31', '2025-12-31', 'day'],
    ['we had dinner last night', 'last night', '2025-12-31', '2025-12-31', 'day'],
    ['the day before yesterday was rough', 'the day before yesterday', '2025-12-30', '2025-12-30', 'day'],
    ['I ran a charity race last Saturday', 'last Saturday', '2025-12-27', '2025-12-27', 'day'],
    ['I joined a new group last Tues', 'last Tues', '2025-12-30', '2025-12-30', 'day'],
    ['I ran a marathon two weeks ago', 'two weeks ago', '2025-12-15', '2025-12-21', 'about'],
    ['a few days ago I saw her', 'a few days ago', '2025-12-26', '2025-12-30', 'about'],
    ['I started playing guitar five years ago', 'five years ago', '2020-07-02', '2021-07-03', 'about'],
    ['I moved last month', 'last month', '2025-12-01', '2025-12-31', 'month'],
    ["Next month I'm flying to Lisbon", 'Next month', '2026-02-01', '2026-02-28', 'month'],
    ['I quit smoking last year', 'last year', '2025-01-01', '2025-12-31', 'year'],
    ['last week was busy', 'last week', '2025-12-22', '2025-12-28', 'week'],
    ['we went camping last weekend', 'last weekend', '2025-12-27', '2025-12-28', 'weekend'],
    ['I went hiking on Saturday', 'on Saturday', '2025-12-27', '2025-12-27', 'day'],
    ["I'm hiking on Saturday", 'on Saturday', '2026-01-03', '2026-01-03', 'day'],
    ['I met my teammates on the 15th after my trip', 'on the 15th', '2025-12-15', '2025-12-15', 'day'],
    ['We went to Paris in May', 'in May', '2025-05-01', '2025-05-31', 'month'],
    ['I got married on 8 May, 2023', '8 May, 2023', '2023-05-08', '2023-05-08', 'day'],
    ['It happened in 2019', 'in 2019', '2019-01-01', '2019-12-31', 'year'],
    [
      'I visited the UK in the second week of November 2023',
      'the second week of November 2023',
      '2023-11-08',
      '2023-11-14',
      'week',
    ],
    ["I'll be back in two weeks", 'in two weeks', '2026-01-12', '2026-01-18', 'about'],
  ])('%s', (text, phrase, from, to, grain) => {
    expect(resolve(text)).toEqual([[phrase, from, to, grain]]);
  });

  it('never guesses: a phrase with two readings, or none, stays text', () => {
    for (const text of [
      'I will fly next Friday', // Thursday: tomorrow, or Friday of next week?
      'I saw him last Wednesday', // Thursday: yesterday would be the word, so which Wednesday?
      'Saturday is my favourite day', // no tense: last Saturday or the next?
      'Saturday was fun but I will go again on Sunday', // both tenses
      'Are you free next weekend?', // the coming weekend, or the one after?
      'this weekend I went hiking', // said on a Thursday about a past weekend
      'last summer we went to the beach', // which hemisphere?
      'I went there recently', // no date at all
      'the other day I met Sam',
      'I lost 5 kg in two weeks', // a duration, not a date
      'May I ask you something? I went there', // "May" the verb
      'My birthday is May 8th', // every year
      'I met June at the party', // a name
      'in 3 weeks I learned a lot', // past tense: a duration
    ]) {
      expect(resolve(text), text).toEqual([]);
    }
  });

  it("reads days in the turn's time zone", () => {
    // 02:00 UTC on 1 January is still 31 December, 21:00, in New York.
    const at = Date.UTC(2026, 0, 1, 2);
    expect(resolve('I went there yesterday', at, 'UTC')).toEqual([['yesterday', '2025-12-31', '2025-12-31', 'day']]);
    expect(resolve('I went there yesterday', at, 'America/New_York')).toEqual([
      ['yesterday', '2025-12-30', '2025-12-30', 'day'],
    ]);
    expect(resolve('I went there yesterday', at, 'Asia/Tokyo')).toEqual([
      ['yesterday', '2025-12-31', '2025-12-31', 'day'],
    ]);
  });

  it('handles month ends and leap days', () => {
    expect(resolve('I moved a month ago', Date.UTC(2026, 2, 31, 12))).toEqual([
      ['a month ago', '2026-02-13', '2026-03-15', 'about'],
    ]);
    expect(resolve('I moved last month', Date.UTC(2024, 2, 31, 12))).toEqual([
      ['last month', '2024-02-01', '2024-02-29', 'month'],
    ]);
    expect(resolve('it was a year ago', Date.UTC(2024, 1, 29, 12))[0]![0]).toBe('a year ago');
  });

  it('says each grain as an absolute date', () => {
    const say = (text: string) => describeMention(resolveTimeMentions(text, T0)[0]!);
    expect(say('yesterday')).toBe('on 31 December 2025');
    expect(say('last week')).toBe('in the week of 22 December 2025');
    expect(say('last weekend')).toBe('on the weekend of 27 December 2025');
    expect(say('last month')).toBe('in December 2025');
    expect(say('last year')).toBe('in 2025');
    expect(say('two weeks ago')).toBe('around 18 December 2025');
    expect(say('five years ago')).toBe('around 2021');
  });
});

/** Every turn marked as stored before turn_dates existed, as the migration that made the table marks them. */
const MARK_ALL = `insert into meta (key, value) select 'turn_dates_backfill', '{"below":' || (max(id) + 1) || '}' from turns`;

describe('turn dates on disk', () => {
  it('addTurn stores the dates a turn names, indexed by user and date, for every role', async () => {
    const { store } = await testStore({ extractor: { timezone: 'UTC' } });
    const said = (
      await addTurn(store, DEFAULT_SPACE, {
        sessionId: 's1',
        role: 'user',
        text: 'I went to a support group yesterday and I fly to Rome next month',
      })
    ).turn;
    await addTurn(store, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'assistant',
      text: 'Enjoy Rome! Did you book it last week?',
    });
    await addTurn(
      store,
      { userId: 'bob', agentId: null },
      { sessionId: 's1', role: 'user', text: 'I went swimming yesterday' },
    );
    const rows = await store.sql.all(
      'select turn_id, user_id, phrase, date_from, date_to, grain from turn_dates order by turn_id, start',
    );
    expect(rows).toEqual([
      {
        turn_id: said.id,
        user_id: 'default',
        phrase: 'yesterday',
        date_from: day('2025-12-31'),
        date_to: day('2026-01-01') - 1,
        grain: 'day',
      },
      {
        turn_id: said.id,
        user_id: 'default',
        phrase: 'next month',
        date_from: day('2026-02-01'),
        date_to: day('2026-03-01') - 1,
        grain: 'month',
      },
      {
        turn_id: said.id + 1,
        user_id: 'default',
        phrase: 'last week',
        date_from: day('2025-12-22'),
        date_to: day('2025-12-29') - 1,
        grain: 'week',
      },
      {
        turn_id: said.id + 2,
        user_id: 'bob',
        phrase: 'yesterday',
        date_from: day('2025-12-31'),
        date_to: day('2026-01-01') - 1,
        grain: 'day',
      },
    ]);
    // SQLite's query plan for this read: core-sqlite-only.
    // A date window finds the turn that talks about it, of this user only.
    expect(
      await turnsDatedIn(store, DEFAULT_SPACE, { from: day('2025-12-31'), to: day('2026-01-01') - 1 }, 10),
    ).toEqual([said.id]);
    expect(
      await turnsDatedIn(store, DEFAULT_SPACE, { from: day('2026-02-10'), to: day('2026-02-10') + DAY - 1 }, 10),
    ).toEqual([said.id]);
    await closeStore(store);
  });

  // An upgraded SQLite file gets the dates of its earlier turns on open: core-sqlite-only.

  it('a backfill stopped halfway resumes where it stopped and writes nothing twice', async () => {
    const { store } = await testStore({ extractor: { timezone: 'UTC' } });
    for (let i = 0; i < 9; i++)
      await addTurn(store, DEFAULT_SPACE, {
        sessionId: 's1',
        role: 'user',
        text: `note ${i} from yesterday`,
        at: T0 + i * DAY,
      });
    // As after the migration of a file whose turns had no dates yet.
    await store.sql.run('delete from turn_dates');
    await store.sql.run(MARK_ALL);
    const mark = () => store.sql.pluck("select value from meta where key = 'turn_dates_backfill'");
    // One batch of four, newest first, then a stop: the mark says where to carry on.
    expect(await backfillTurnDates(store, 4, 1)).toEqual({ turns: 4, dates: 4 });
    expect(JSON.parse((await mark()) as string)).toEqual({ below: 6 });
    expect(await backfillTurnDates(store, 4)).toEqual({ turns: 5, dates: 5 });
    expect(await mark()).toBeUndefined();
    expect(await countRows(store, 'turn_dates')).toBe(9);
    // Marked again (an interrupted run before the mark moved): the dates already there are not written twice.
    await store.sql.run(MARK_ALL);
    expect(await backfillTurnDates(store, 4)).toEqual({ turns: 9, dates: 0 });
    expect(await countRows(store, 'turn_dates')).toBe(9);
    await closeStore(store);
  });
});
