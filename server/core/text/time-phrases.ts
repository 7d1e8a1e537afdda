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
// exact whatever the zone. The words and how each kind of phrase reads are in time-readings.ts;
// here are the patterns, the resolver and the absolute text of what it resolved.
import { DAY_MS } from '../kernel/clock.ts';
import { localDay, mondayOf, monthRange, oneDay, yearRange, type DateGrain, type Days } from './calendar-days.ts';
import {
  type Tense,
  type Context,
  MONTH_NAMES,
  MONTH_CAP,
  MONTH_DAY_CAP,
  monthOf,
  ORDINAL_DAY,
  YEAR,
  COUNT,
  countAgo,
  tenseOf,
  onlyFuture,
  weekday,
  weekend,
  period,
  bareMonth,
  partOfMonth,
  validDate,
  yearlessDay,
  weekOfMonth,
  dated,
  sinceStart,
} from './time-readings.ts';

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

type Pattern = { re: RegExp; resolve: (m: RegExpExecArray, ctx: Context) => Days | null };

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

/** Where the text's sentences end ([.!?] or a new line), found once per text. */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  for (let i = 0; i < text.length; i++) if (/[.!?\n]/.test(text[i]!)) ends.push(i);
  return ends;
}

/** The bounds of the sentence holding `index`: a binary search of the ends, so a turn of many phrases stays linear. */
function sentenceAt(text: string, ends: number[], index: number): { start: number; end: number } {
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ends[mid]! < index) low = mid + 1;
    else high = mid;
  }
  return { start: low > 0 ? ends[low - 1]! + 1 : 0, end: low < ends.length ? ends[low]! : text.length };
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
  // Each sentence's tense, read once (keyed by where the sentence starts).
  const tenses = new Map<number, Tense>();
  const ends = sentenceEnds(text);
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
      const sentence = sentenceAt(text, ends, start);
      let tense = tenses.get(sentence.start);
      if (!tense) {
        tense = tenseOf(text.slice(sentence.start, sentence.end));
        // A question about the record ("What did she do in May?" or "Joanna's plans for May?") asks about the past.
        if (options.assumePast && !tense.past && !tense.future) tense = { past: true, future: false };
        tenses.set(sentence.start, tense);
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
    // "every Friday" is no one Friday: left as said.
    const re = new RegExp(
      `(?<!\\bevery\\s+)(\\b(?:on|in|at|during|since|by|until|from|before|after|for|to|of)\\s+)?\\b(?<!\\bevery\\s+)${escaped}(?![\\w])`,
      'i',
    );
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
