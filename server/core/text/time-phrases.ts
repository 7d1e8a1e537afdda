// Time phrases in a turn ("yesterday", "last Saturday", "two weeks ago", "next month", "on the
// 15th", "in May 2023") resolved against the turn's own time into absolute calendar dates, so a
// fact says when it happened, not when it was mentioned, and a search can select by date.
//
// The rule is: never a wrong date. A phrase is resolved only when its reading is settled by the
// words themselves or by the clause's tense; a phrase with two readings ("next Friday" said on a
// Wednesday: in two days or in nine?) or with none ("on Saturday" in a clause with no tense,
// "last summer" in an unknown hemisphere, "recently") stays text. Fuzzy phrases ("two weeks ago",
// "a few days ago") resolve to a range wide enough to hold what people mean by them.
//
// Dates are calendar dates in the turn's time zone (config extractor.timezone; the machine's when
// empty): "yesterday" is the day before the turn's local date. They are stored as the UTC epoch
// ms of those calendar days, the form query windows ("in May 2023") use too, so comparing them is
// exact whatever the zone.
import { DAY_MS } from '../kernel/clock.ts';
import {
  about,
  dayNumber,
  localDay,
  mondayOf,
  monthRange,
  oneDay,
  shiftMonths,
  weekdayOf,
  yearRange,
  ymd,
  type DateGrain,
  type Days,
} from './calendar-days.ts';

export type TimeMention = {
  /** The phrase as written, e.g. "last Saturday". */
  phrase: string;
  start: number;
  end: number;
  /** First instant of the first day and last instant of the last day (UTC ms of those calendar dates). */
  from: number;
  to: number;
  grain: DateGrain;
  /** Whole days from the turn's local date to the single best day in the range (negative: before). */
  offsetDays: number;
};

type Tense = { past: boolean; future: boolean };
type Context = { today: number; tense: Tense };
type Pattern = { re: RegExp; resolve: (m: RegExpExecArray, ctx: Context) => Days | null };

// --- words ---

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
const MONTH_CAP = '(January|February|March|April|May|June|July|August|September|October|November|December)';
const MONTH_DAY_CAP =
  '(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\\.?';
const monthOf = (name: string) => MONTH_NAMES.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
const ORDINAL_DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '((?:19|20)\\d{2})';

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
const COUNT =
  '(a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d{1,2}|a few|few|a couple(?: of)?|couple(?: of)?|several)';
const FUZZY_COUNTS: Record<string, Record<string, [number, number]>> = {
  // days before (or after) the turn's date: [nearest, farthest]
  couple: { day: [1, 3], week: [10, 18], month: [45, 100], year: [550, 1100] },
  few: { day: [2, 6], week: [14, 35], month: [60, 150], year: [700, 1800] },
  several: { day: [3, 9], week: [21, 56], month: [90, 270], year: [1000, 3300] },
};

/** An exact count ago: a day is exact; longer units are fuzzy ("two weeks ago" is 11 to 17 days). */
function countAgo(count: string, unit: string, direction: 1 | -1, today: number, hedged: boolean): Days | null {
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
function tenseOf(sentence: string): Tense {
  return { past: PAST.test(sentence), future: FUTURE.test(sentence) };
}
const onlyPast = (t: Tense) => t.past && !t.future;
const onlyFuture = (t: Tense) => t.future && !t.past;

/** The most recent `weekday` strictly before `today`, or the next strictly after. */
const previousWeekday = (today: number, weekday: number) => today - (((weekdayOf(today) - weekday + 6) % 7) + 1);
const nextWeekday = (today: number, weekday: number) => today + (((weekday - weekdayOf(today) + 6) % 7) + 1);
const weekdayIndex = (name: string) => WEEKDAYS.findIndex((w) => w.startsWith(name.toLowerCase().slice(0, 3)));

function weekday(which: string | undefined, name: string, { today, tense }: Context): Days | null {
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

function weekend(which: string, { today, tense }: Context): Days | null {
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

function period(which: string, unit: string, { today }: Context): Days | null {
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
function bareMonth(
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
function partOfMonth(range: Days, part: string | undefined): Days {
  const p = (part ?? '').toLowerCase().replace(/-$/, '');
  if (p === 'early' || p === 'the beginning of' || p === 'the start of')
    return { ...range, to: range.from + 9, grain: 'about', point: range.from + 4 };
  if (p === 'mid' || p === 'the middle of')
    return { ...range, from: range.from + 10, to: range.from + 19, grain: 'about', point: range.from + 14 };
  if (p === 'late' || p === 'the end of')
    return { ...range, from: range.from + 20, grain: 'about', point: range.from + 25 };
  return range;
}

function validDate(year: number, month: number, date: number): number | null {
  if (month < 0 || date < 1 || date > 31) return null;
  const day = dayNumber(year, month, date);
  return ymd(day).month === month ? day : null;
}

/** A day of a month named without a year ("May 3rd", "on the 15th"): the tense picks the last such day or the next. */
function yearlessDay(
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

const PATTERNS: Pattern[] = [
  // Explicit dates.
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, resolve: (m) => dated(Number(m[1]), Number(m[2]) - 1, Number(m[3])) },
  {
    re: new RegExp(`\\b${ORDINAL_DAY}\\s+(?:of\\s+)?${MONTH_DAY_CAP},?\\s+${YEAR}\\b`, 'g'),
    resolve: (m) => dated(Number(m[3]), monthOf(m[2]!), Number(m[1])),
  },
  {
    re: new RegExp(`\\b${MONTH_DAY_CAP}\\s+${ORDINAL_DAY},?\\s+${YEAR}\\b`, 'g'),
    resolve: (m) => dated(Number(m[3]), monthOf(m[1]!), Number(m[2])),
  },
  {
    re: new RegExp(
      `\\b(?:(early|mid-?|late|the beginning of|the start of|the middle of|the end of)\\s+)?${MONTH_CAP},?\\s+${YEAR}\\b`,
      'g',
    ),
    resolve: (m) => partOfMonth(monthRange(Number(m[3]), monthOf(m[2]!)), m[1]),
  },
  {
    re: new RegExp(`\\b(?:in|since|during|by|until|from|of|back in|early|late|mid-?)\\s+${YEAR}\\b(?![-–/]\\d)`, 'gi'),
    resolve: (m) => yearRange(Number(m[1])),
  },
  // A day and month with no year, a day of the month alone.
  {
    re: new RegExp(`\\b(?:on\\s+)?(?:the\\s+)?${ORDINAL_DAY}\\s+(?:of\\s+)?${MONTH_DAY_CAP}\\b(?!,?\\s*\\d)`, 'g'),
    resolve: (m, ctx) => yearlessDay((y) => validDate(y, monthOf(m[2]!), Number(m[1])), ctx, 'year'),
  },
  {
    re: new RegExp(
      `\\b(?:on\\s+)?${MONTH_DAY_CAP}\\s+${ORDINAL_DAY}\\b(?!,?\\s*\\d)(?!\\s*(?:am|pm|hours|minutes|times|years|days|weeks|months|%))`,
      'g',
    ),
    resolve: (m, ctx) => yearlessDay((y) => validDate(y, monthOf(m[1]!), Number(m[2])), ctx, 'year'),
  },
  {
    re: /\b(?:on|by|since|until|before|after)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of|time|floor|century|grade|birthday|anniversary|place|row))/gi,
    resolve: (m, ctx) => yearlessDay((n) => validDate(Math.floor(n / 12), n % 12, Number(m[1])), ctx, 'month'),
  },
  // Relative days.
  { re: /\bthe day before yesterday\b/gi, resolve: (_, { today }) => oneDay(today - 2) },
  { re: /\bthe day after tomorrow\b/gi, resolve: (_, { today }) => oneDay(today + 2) },
  {
    re: /\b(?:yesterday(?:\s+(?:morning|afternoon|evening|night))?|last night)\b/gi,
    resolve: (_, { today }) => oneDay(today - 1),
  },
  {
    re: /\b(?:earlier\s+)?(?:today|tonight|this (?:morning|afternoon|evening))\b/gi,
    resolve: (_, { today }) => oneDay(today),
  },
  { re: /\btomorrow(?:\s+(?:morning|afternoon|evening|night))?\b/gi, resolve: (_, { today }) => oneDay(today + 1) },
  // "n days ago", "a couple of weeks ago", "about three months ago", "a day or two ago".
  {
    re: /\b(?:a|one) (day|week|month|year) or two ago\b/gi,
    resolve: (m, { today }) => countAgo('couple', m[1]!, -1, today, true),
  },
  {
    re: new RegExp(
      `\\b(?:(about|around|roughly|almost|nearly|maybe|over|just over|just under|more than|less than)\\s+)?${COUNT}\\s+(day|week|month|year)s?\\s+ago\\b`,
      'gi',
    ),
    resolve: (m, { today }) => countAgo(m[2]!, m[3]!, -1, today, m[1] !== undefined),
  },
  {
    re: new RegExp(`\\b${COUNT}\\s+(day|week|month|year)s?\\s+from\\s+(?:now|today)\\b`, 'gi'),
    resolve: (m, { today }) => countAgo(m[1]!, m[2]!, 1, today, false),
  },
  {
    // "in two weeks" is a time only in a clause about the future ("I lost 5 kg in two weeks" is a duration).
    re: new RegExp(
      `\\bin\\s+(?:(about|around|roughly)\\s+)?${COUNT}\\s+(day|week|month|year)s?(?:'?\\s*time)?\\b`,
      'gi',
    ),
    resolve: (m, ctx) => (onlyFuture(ctx.tense) ? countAgo(m[2]!, m[3]!, 1, ctx.today, m[1] !== undefined) : null),
  },
  // Weeks, weekends, months, years.
  { re: /\bthe (week|month|year) before last\b/gi, resolve: (m, ctx) => period('before last', m[1]!, ctx) },
  {
    re: /\bthe weekend before last\b/gi,
    resolve: (_, { today }) => ({ from: mondayOf(today) - 14 + 5, to: mondayOf(today) - 14 + 6, grain: 'weekend' }),
  },
  // Not "the last week of May", nor "the last year" (the past twelve months, loosely), nor "next week's".
  {
    re: /(?<!\bthe\s)\b(last|this past|past|this coming|coming|this|next)\s+(weekend)\b(?!\s+of\b)/gi,
    resolve: (m, ctx) => weekend(m[1]!, ctx),
  },
  {
    re: /(?<!\bthe\s)\b(last|this past|this|next)\s+(week|month|year)\b(?!\s+(?:of|or)\b)/gi,
    resolve: (m, ctx) => period(m[1]!, m[2]!, ctx),
  },
  { re: /\bearlier this (week|month|year)\b/gi, resolve: (m, ctx) => sinceStart(m[1]!, ctx) },
  // Weekdays: full names in any case; short forms only capitalised after a modifier ("last Tues").
  {
    re: /\b(?:(last|this past|this coming|coming|this|next|on)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+(?:morning|afternoon|evening|night))?\b/gi,
    resolve: (m, ctx) => weekday(m[1] === undefined || m[1].toLowerCase() === 'on' ? undefined : m[1], m[2]!, ctx),
  },
  {
    re: /\b(last|next|this|on)\s+(Mon|Tues|Tue|Wed|Thurs|Thu|Fri|Sat|Sun)\b/g,
    resolve: (m, ctx) => weekday(m[1]!.toLowerCase() === 'on' ? undefined : m[1], m[2]!, ctx),
  },
  // "the last week of May", "the second week of November 2023".
  {
    re: new RegExp(
      `\\bthe\\s+(first|second|third|fourth|last)\\s+week\\s+of\\s+${MONTH_CAP}(?:,?\\s+${YEAR})?\\b`,
      'g',
    ),
    resolve: (m, ctx) =>
      weekOfMonth(
        m[1]!,
        m[3] ? monthRange(Number(m[3]), monthOf(m[2]!)) : bareMonth(monthOf(m[2]!), undefined, undefined, ctx),
      ),
  },
  // Months without a year, after a word that makes them a time ("in May"; "May" alone may be a verb or a name).
  {
    re: new RegExp(
      `\\b(?:(last|next|this)|(early|mid-?|late|the beginning of|the start of|the middle of|the end of)|in|since|during|by|until)\\s+${MONTH_CAP}\\b(?![,\\s]*\\d)`,
      'g',
    ),
    resolve: (m, ctx) => bareMonth(monthOf(m[3]!), m[1], m[2], ctx),
  },
];

const ORDINALS = ['first', 'second', 'third', 'fourth'];
function weekOfMonth(which: string, month: Days | null): Days | null {
  if (!month) return null;
  const n = ORDINALS.indexOf(which.toLowerCase());
  if (n >= 0) return { from: month.from + 7 * n, to: month.from + 7 * n + 6, grain: 'week' };
  return { from: month.to - 6, to: month.to, grain: 'week' };
}

function dated(year: number, month: number, date: number): Days | null {
  const day = validDate(year, month, date);
  return day === null ? null : oneDay(day);
}

function sinceStart(unit: string, { today }: Context): Days {
  const u = unit.toLowerCase();
  const { year, month } = ymd(today);
  const start = u === 'week' ? mondayOf(today) : u === 'month' ? dayNumber(year, month, 1) : dayNumber(year, 0, 1);
  return about(start, today);
}

/** The sentence around `index`, for its tense. */
function sentenceAt(text: string, index: number): string {
  let start = index;
  while (start > 0 && !/[.!?\n]/.test(text[start - 1]!)) start--;
  let end = index;
  while (end < text.length && !/[.!?\n]/.test(text[end]!)) end++;
  return text.slice(start, end);
}

/** Cheap pre-check: most turns name no time at all. */
const ANY_TIME =
  /\d|\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|past|coming|earlier|weeks?|weekends?|months?|years?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thurs?|fri|sat|sun|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b/i;

/**
 * Every time phrase in `text` that resolves against `at` (the turn's time) in `zone`, in text
 * order. Overlapping matches keep the longest ("the day before yesterday", not "yesterday").
 * `assumePast` reads a clause with no tense as past (search queries ask about what was said).
 */
export function resolveTimeMentions(
  text: string,
  at: number,
  zone = 'UTC',
  options: { assumePast?: boolean } = {},
): TimeMention[] {
  if (!ANY_TIME.test(text)) return [];
  const today = localDay(at, zone);
  const found: (TimeMention & { length: number })[] = [];
  const tenses = new Map<number, Tense>();
  for (const { re, resolve } of PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      // `found` holds disjoint phrases in text order: the ones this match overlaps are one run of it.
      const first = firstEndingAfter(found, start);
      let last = first;
      while (last < found.length && found[last]!.start < end) last++;
      if (found.slice(first, last).some((f) => f.length >= end - start)) continue;
      const sentence = sentenceAt(text, start);
      let tense = tenses.get(start);
      if (!tense) {
        tense = tenseOf(sentence);
        // A question about the record ("What did she do in May?" or "Joanna's plans for May?") asks about the past.
        if (options.assumePast && !tense.past && !tense.future) tense = { past: true, future: false };
        tenses.set(start, tense);
      }
      const days = resolve(m, { today, tense });
      if (!days || days.from > days.to) continue;
      const point = days.point ?? (days.grain === 'day' ? days.from : Math.round((days.from + days.to) / 2));
      // A longer match replaces the shorter ones it covers.
      found.splice(first, last - first, {
        phrase: m[0].trim(),
        start,
        end,
        from: days.from * DAY_MS,
        to: (days.to + 1) * DAY_MS - 1,
        grain: days.grain,
        offsetDays: point - today,
        length: end - start,
      });
    }
  }
  return found.map(({ length: _, ...mention }) => mention);
}

/** The index of the first of `spans` (disjoint, in text order) that ends after `position`: a binary search, so a long turn stays linear. */
function firstEndingAfter(spans: { end: number }[], position: number): number {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (spans[mid]!.end > position) high = mid;
    else low = mid + 1;
  }
  return low;
}

const MONTHS_DISPLAY = MONTH_NAMES.map((m) => m[0]!.toUpperCase() + m.slice(1));
const dayText = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS_DISPLAY[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};
const monthText = (ms: number) => {
  const d = new Date(ms);
  return `${MONTHS_DISPLAY[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};

/** The absolute form of a resolved phrase, with its preposition: "on 7 May 2023", "in the week of 1 May 2023", "in May 2023". */
export function describeMention(mention: Pick<TimeMention, 'from' | 'to' | 'grain'>): string {
  const days = Math.round((mention.to + 1 - mention.from) / DAY_MS);
  switch (mention.grain) {
    case 'day':
      return `on ${dayText(mention.from)}`;
    case 'week':
      return `in the week of ${dayText(mention.from)}`;
    case 'weekend':
      return `on the weekend of ${dayText(mention.from)}`;
    case 'month':
      return `in ${monthText(mention.from)}`;
    case 'year':
      return `in ${new Date(mention.from).getUTCFullYear()}`;
    default: {
      const mid = mention.from + Math.floor(days / 2) * DAY_MS;
      if (days <= 21) return `around ${dayText(mid)}`;
      if (days <= 120) return `around ${monthText(mid)}`;
      return `around ${new Date(mid).getUTCFullYear()}`;
    }
  }
}

/**
 * `text` with each resolved phrase replaced by its absolute form. A preposition already in front
 * of the phrase is kept ("since last year" -> "since 2025"), and the form's own is dropped.
 */
export function withAbsoluteDates(
  text: string,
  mentions: Pick<TimeMention, 'phrase' | 'from' | 'to' | 'grain'>[],
): string {
  let out = text;
  for (const mention of mentions) {
    const described = describeMention(mention);
    const escaped = mention.phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(`(\\b(?:on|in|at|during|since|by|until|from|before|after)\\s+)?\\b${escaped}(?![\\w])`, 'i');
    out = out.replace(re, (_, preposition: string | undefined) => {
      const ownPreposition = /^(?:on|in|around)\s+/i.test(mention.phrase);
      if (preposition && !ownPreposition)
        return `${preposition}${described.replace(/^(?:on|in)\s+(?:the\s+)?/, (p) => (p.includes('the') ? 'the ' : ''))}`;
      return described;
    });
  }
  return out;
}

/** Time phrases to strip from a fact's identity. */
export const TIME_WORDS =
  /\b(?:yesterday|today|tonight|tomorrow|last night|this (?:morning|afternoon|evening|weekend)|(?:last|next|this) (?:week|weekend|month|year)|(?:a|an|one|two|three|few|couple of|several|\d+) (?:days?|weeks?|months?|years?) ago|recently|lately|soon|later)\b/gi;
