// The words of time phrases and how each kind of phrase reads against the turn's local date and
// its clause's tense (the rules in time-phrases.ts): month and weekday names, counts, fuzzy
// spans, the clause's tense, and the day ranges a weekday, weekend, period or month stands for.
import {
  about,
  dayNumber,
  mondayOf,
  monthRange,
  oneDay,
  shiftMonths,
  weekdayOf,
  yearRange,
  ymd,
  type Days,
} from './calendar-days.ts';

export type Tense = { past: boolean; future: boolean };
export type Context = { today: number; tense: Tense };

export const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** Capitalised month names (lower-case "may" and "march" are mostly not months), and short forms before a day number. */
export const MONTH_CAP = '(January|February|March|April|May|June|July|August|September|October|November|December)';
export const MONTH_DAY_CAP =
  '(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\\.?';
export const monthOf = (name: string) => MONTH_NAMES.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
export const ORDINAL_DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
export const YEAR = '((?:19|20)\\d{2})';

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
export const COUNT =
  '(a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d{1,2}|a few|few|a couple(?: of)?|couple(?: of)?|several)';
const FUZZY_COUNTS: Record<string, Record<string, [number, number]>> = {
  // days before (or after) the turn's date: [nearest, farthest]
  couple: { day: [1, 3], week: [10, 18], month: [45, 100], year: [550, 1100] },
  few: { day: [2, 6], week: [14, 35], month: [60, 150], year: [700, 1800] },
  several: { day: [3, 9], week: [21, 56], month: [90, 270], year: [1000, 3300] },
};

/** An exact count ago: a day is exact; longer units are fuzzy ("two weeks ago" is 11 to 17 days). */
export function countAgo(count: string, unit: string, direction: 1 | -1, today: number, hedged: boolean): Days | null {
  const word = count.toLowerCase().replace(/ of$/, '').replace(/^a /, '');
  const fuzzy = FUZZY_COUNTS[word];
  unit = unit.toLowerCase();
  if (fuzzy) {
    const [near, far] = fuzzy[unit]!;
    return direction < 0 ? about(today - far, today - near) : about(today + near, today + far);
  }
  const n = NUMBER_WORDS[word] ?? Number(word);
  if (!Number.isInteger(n) || n < 1 || n > 60) return null;
  const at = (days: number) => today + direction * days;
  if (unit === 'day')
    return hedged ? about(Math.min(at(n - 1), at(n + 1)), Math.max(at(n - 1), at(n + 1)), at(n)) : oneDay(at(n));
  if (unit === 'week') {
    const slack = n <= 2 ? 3 : n + 1;
    return about(at(7 * n) - slack, at(7 * n) + slack, at(7 * n));
  }
  if (unit === 'month') {
    const centre = shiftMonths(today, direction * n);
    const slack = n <= 3 ? 15 : 30;
    return about(centre - slack, centre + slack, centre);
  }
  const centre = shiftMonths(today, direction * 12 * n);
  return about(centre - 183, centre + 183, centre);
}

/** The clause's tense, from its auxiliaries and verb forms: a phrase like "on Saturday" needs one, and only one. */
const PAST =
  /\b(?:was|were|did|didn't|had|went|came|got|saw|met|took|made|gave|ran|won|lost|bought|left|told|found|felt|heard|spent|ago|yesterday|used to)\b|\b(?:i|we|he|she|they|you|it)\s+(?:(?:just|finally|also|really|actually|recently|already|even)\s+)?[a-z]{2,}ed\b|\b(?:my|our|his|her|their)\s+[a-z]+\s+(?:[A-Z][a-z]+\s+)?[a-z]{2,}ed\b/i;
const FUTURE =
  /\b(?:will|won't|shall|gonna|going to|plan(?:ning)? to|about to|hope to|hoping to|want to|intend to|can't wait|cannot wait|looking forward|tomorrow|upcoming)\b|'ll\b|\b(?:i'm|i am|we're|we are|she's|he's|they're)\s+(?:\w+ly\s+)?[a-z]+ing\b/i;
export function tenseOf(sentence: string): Tense {
  return { past: PAST.test(sentence), future: FUTURE.test(sentence) };
}
const onlyPast = (t: Tense) => t.past && !t.future;
export const onlyFuture = (t: Tense) => t.future && !t.past;

/** The most recent `weekday` strictly before `today`, or the next strictly after. */
const previousWeekday = (today: number, weekday: number) => today - (((weekdayOf(today) - weekday + 6) % 7) + 1);
const nextWeekday = (today: number, weekday: number) => today + (((weekday - weekdayOf(today) + 6) % 7) + 1);
const weekdayIndex = (name: string) => WEEKDAYS.findIndex((w) => w.startsWith(name.toLowerCase().slice(0, 3)));

export function weekday(which: string | undefined, name: string, { today, tense }: Context): Days | null {
  const target = weekdayIndex(name);
  if (target < 0) return null;
  const modifier = (which ?? '').toLowerCase().replace(/\s+/g, ' ');
  const before = previousWeekday(today, target);
  const after = nextWeekday(today, target);
  switch (modifier) {
    case 'last':
      // "last Tuesday" said on a Wednesday: yesterday would have been the word; a week before is likelier, so neither is sure.
      return before === today - 1 ? null : oneDay(before);
    case 'this past':
    case 'past':
      return oneDay(before);
    case 'next':
      // The coming one and "the one in next week" agree only when the coming one is in next week.
      return mondayOf(after) === mondayOf(today) ? null : oneDay(after);
    case 'this coming':
    case 'coming':
      return oneDay(after);
    case 'this': {
      const day = mondayOf(today) + target;
      if (day === today) return oneDay(day);
      if (day < today) return tense.future ? null : oneDay(day);
      return tense.past && !tense.future ? null : oneDay(day);
    }
    default:
      // "on Saturday", "Saturday night": only the clause's tense says which Saturday.
      if (target === weekdayOf(today)) return null;
      if (onlyPast(tense)) return oneDay(before);
      if (onlyFuture(tense)) return oneDay(after);
      return null;
  }
}

export function weekend(which: string, { today, tense }: Context): Days | null {
  const monday = mondayOf(today);
  const of = (mon: number): Days => ({ from: mon + 5, to: mon + 6, grain: 'weekend' });
  switch (which.toLowerCase().replace(/\s+/g, ' ')) {
    case 'last':
    case 'this past':
    case 'past':
      return weekdayOf(today) >= 5 && which.toLowerCase() !== 'last' ? of(monday) : of(monday - 7);
    case 'this':
      // Said on a weekday about a weekend in the past ("this weekend I went hiking", on a Tuesday) it is the one before.
      if (weekdayOf(today) >= 5) return of(monday);
      return tense.past ? null : of(monday);
    case 'next':
      // On Monday to Thursday "next weekend" is the coming one for some and the one after for others.
      return weekdayOf(today) >= 4 ? of(monday + 7) : null;
    case 'this coming':
    case 'coming':
      return weekdayOf(today) >= 5 ? of(monday + 7) : of(monday);
    default:
      return null;
  }
}

export function period(which: string, unit: string, { today }: Context): Days | null {
  const w = which.toLowerCase().replace(/\s+/g, ' ');
  const u = unit.toLowerCase();
  const { year, month } = ymd(today);
  if (w === 'this past' || w === 'past') {
    const span = u === 'week' ? 7 : u === 'month' ? 30 : 365;
    return about(today - span, today - 1, today - Math.ceil(span / 2));
  }
  const step = w === 'last' ? -1 : w === 'next' ? 1 : w === 'this' ? 0 : w === 'before last' ? -2 : null;
  if (step === null) return null;
  if (u === 'week') return { from: mondayOf(today) + 7 * step, to: mondayOf(today) + 7 * step + 6, grain: 'week' };
  if (u === 'month') return monthRange(year, month + step);
  return yearRange(year + step);
}

/** A month named without a year: the clause's tense picks the last one begun or the next one not yet over. */
export function bareMonth(
  monthIdx: number,
  which: string | undefined,
  part: string | undefined,
  { today, tense }: Context,
): Days | null {
  const { year, month } = ymd(today);
  const w = (which ?? '').toLowerCase();
  let y: number | null;
  if (w === 'last') y = monthIdx < month ? year : year - 1;
  else if (w === 'next') y = monthIdx > month ? year : year + 1;
  else if (w === 'this') y = year;
  else if (onlyPast(tense)) y = monthIdx <= month ? year : year - 1;
  else if (onlyFuture(tense)) y = monthIdx >= month ? year : year + 1;
  else y = null;
  return y === null ? null : partOfMonth(monthRange(y, monthIdx), part);
}

/** "early May" is the 1st to the 10th, "mid May" the 11th to the 20th, "late May" the 21st to the end. */
export function partOfMonth(range: Days, part: string | undefined): Days {
  const p = (part ?? '').toLowerCase().replace(/-$/, '');
  if (p === 'early' || p === 'the beginning of' || p === 'the start of')
    return { ...range, to: range.from + 9, grain: 'about', point: range.from + 4 };
  if (p === 'mid' || p === 'the middle of')
    return { ...range, from: range.from + 10, to: range.from + 19, grain: 'about', point: range.from + 14 };
  if (p === 'late' || p === 'the end of')
    return { ...range, from: range.from + 20, grain: 'about', point: range.from + 25 };
  return range;
}

export function validDate(year: number, month: number, date: number): number | null {
  if (month < 0 || date < 1 || date > 31) return null;
  const day = dayNumber(year, month, date);
  return ymd(day).month === month ? day : null;
}

/** A day of a month named without a year ("May 3rd", "on the 15th"): the tense picks the last such day or the next. */
export function yearlessDay(
  candidates: (year: number) => number | null,
  { today, tense }: Context,
  span: 'year' | 'month',
): Days | null {
  if (!onlyPast(tense) && !onlyFuture(tense)) return null;
  const { year, month } = ymd(today);
  const options: number[] = [];
  if (span === 'year') for (const y of [year - 1, year, year + 1]) options.push(candidates(y) ?? NaN);
  else for (let k = -2; k <= 2; k++) options.push(candidates(year * 12 + month + k) ?? NaN);
  const valid = options.filter((d) => !Number.isNaN(d));
  const pick = onlyPast(tense) ? valid.filter((d) => d <= today).at(-1) : valid.find((d) => d >= today);
  return pick === undefined ? null : oneDay(pick);
}

const ORDINALS = ['first', 'second', 'third', 'fourth'];
export function weekOfMonth(which: string, month: Days | null): Days | null {
  if (!month) return null;
  const n = ORDINALS.indexOf(which.toLowerCase());
  if (n >= 0) return { from: month.from + 7 * n, to: month.from + 7 * n + 6, grain: 'week' };
  return { from: month.to - 6, to: month.to, grain: 'week' };
}

export function dated(year: number, month: number, date: number): Days | null {
  const day = validDate(year, month, date);
  return day === null ? null : oneDay(day);
}

export function sinceStart(unit: string, { today }: Context): Days {
  const u = unit.toLowerCase();
  const { year, month } = ymd(today);
  const start = u === 'week' ? mondayOf(today) : u === 'month' ? dayNumber(year, month, 1) : dayNumber(year, 0, 1);
  return about(start, today);
}
