// Query analysis without a model: which words carry meaning, who the question is about,
// and whether it asks for a time. Runs once per search, before any SQL.
import { resolveTimeMentions } from './time-phrases.ts';
import { indexTokens, normalizeText } from './text.ts';
import { MONTH_NAMES as MONTHS } from './time-readings.ts';

/**
 * Function words and question scaffolding. They match nearly every turn of a conversation, so
 * leaving them in a BM25 OR-query only adds noise (and cost: FTS5 scores every matching row).
 */
const STOPWORDS = new Set(
  (
    'a an the and or but if of to in on at for with from by about as into onto over under after before during between through ' +
    'is are was were be been being am do does did doing done have has had having will would shall should can could may might must ' +
    'i me my mine myself we us our ours you your yours he him his she her hers they them their theirs it its itself this that these those ' +
    'what which who whom whose when where why how whats whos wheres hows there here then than so such too very just also ' +
    'not no nor any all some each every both either neither own same other another more most much many few ' +
    'up down out off again further once only s t d ll m re ve y get got gets go going went gone ' +
    'kind type sort thing things something anything one ones ever yet still even like likely would'
  ).split(' '),
);

export const isStopword = (token: string) => STOPWORDS.has(token);

/**
 * Words a question uses about the conversation itself rather than its topic ("list the order in
 * which I brought up … across our conversations", "give me a summary of what we discussed"). They
 * match turns that talk about talking, not the turns the question is after.
 */
const CONVERSATION_WORDS = new Set(
  (
    'conversation conversations discuss discussed discussing discussion discussions mention mentioned mentions mentioning ' +
    'talked talking say said tell told remind recall remember earlier previously ' +
    'overview comprehensive aspects throughout across different various give'
  ).split(' '),
);
/** The same, as phrases whose words are a topic elsewhere ("brought a cake", "what did she order", "my reading list"). */
const CONVERSATION_PHRASES =
  /\b(?:brought|bring|bringing) up\b|\b(?:in|in (?:what|which|the)|the|chronological) order\b|\border (?:in which|of)\b|\blist (?:the|all|every|each)\b|\bsummar(?:y|ies|i[sz]e|i[sz]ing)\b|\b(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+) )?items\b(?=\s*(?:[.?!]|in order|$))/gi;

/** Words that make a question about time ("When did…", "How long ago…", "What year…"). */
const TEMPORAL_CUES =
  /\b(when|(?:what|which) (?:year|month|day|date|time|week|weekend|season)|how long|since when|how many (?:years|months|weeks|days)|in which (?:year|month|week)|(?:what|which) (?:year|month)'s)\b/i;

export type AnalyzedQuery = {
  raw: string;
  /** Every distinct normalised token, in order (capped). */
  tokens: string[];
  /** Content words: tokens less stopwords (falls back to all tokens when nothing else is left). */
  terms: string[];
  /** Known speakers named in the query (as stored in turns.name). */
  speakers: string[];
  /** The question asks when something happened. */
  temporal: boolean;
  /** A date the query names ("on 13 October 2023", "in May 2023"), as a UTC range. */
  window: { from: number; to: number } | null;
  /**
   * A time named by an event instead of a date ("the week before her trip", "after returning
   * from Chicago"): the event's words, and the span before or after it. Search dates the event by
   * the turn that best tells of it, and treats the span as a window.
   */
  anchor: { terms: string[]; before: boolean; days: number } | null;
};

/** "the week before her trip", "before traveling to Chicago", "after returning from Chicago". */
const ANCHOR =
  /\b(?:the\s+(day|few days|week|weekend|month)\s+)?(before|after|prior to|following)\s+(?!(?:that|this|it|then|now|they|he|she|we|you|i|how|what|which|when|who|where)\b)(.{3,}?)\s*[?.!]*$/i;
const ANCHOR_DAYS: Record<string, number> = { day: 1, 'few days': 5, week: 7, weekend: 7, month: 31 };

export const MAX_QUERY_TOKENS = 64;

const MONTH = `(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`;
const DAY_FIRST = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\.?(?:,\\s*|\\s+)(\\d{4})\\b`, 'i');
const MONTH_FIRST = new RegExp(`\\b${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,\\s*|\\s+)(\\d{4})\\b`, 'i');
/** "on Aug 15th", "15 August": a day with no year; capitalised, as "may 5 times" is no date. */
const CAPITAL_MONTH = MONTH.replace(/(^\(|\|)([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase());
const BARE_DAY = new RegExp(
  `\\b(?:${CAPITAL_MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?|(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${CAPITAL_MONTH})\\b(?!,?\\s*\\d)`,
);
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\.?,?\\s+(\\d{4})\\b`, 'i');
const ISO = /\b(\d{4})-(\d{2})-(\d{2})\b/;
const FULL_MONTH = `(${MONTHS.join('|')})`;
/** "between August 11 and August 15 2023" (the first date may leave out its year). */
const RANGE = new RegExp(
  `\\bbetween\\s+${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?\\s+and\\s+(?:${MONTH}\\.?\\s+)?(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`,
  'i',
);
/** "in May", "the second week of November": a month with no year ("may" the verb has no preposition). */
const BARE_MONTH = new RegExp(`\\b(?:in|during|of|since|early|late|mid-?)\\s+${FULL_MONTH}\\b(?!,?\\s+\\d)`, 'i');
const DAY = 86_400_000;
/** "the week before 16 November 2023", "the day after May 3, 2023": a span beside a date. */
const BESIDE = /\bthe\s+(day|few days|week|weekend|month)\s+(before|after|prior to|following)\s+(.+)$/i;
const SPAN_DAYS: Record<string, number> = { day: 1, 'few days': 5, week: 7, weekend: 7, month: 31 };

const monthIndex = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));

/**
 * The first explicit calendar date in the text, as [from, to] (a day, a range of days, or a whole
 * month). A month named without a year is the latest one that has begun by `now`, when given.
 */
export function dateWindow(text: string, now?: number): { from: number; to: number; match: string } | null {
  let m = RANGE.exec(text);
  if (m) {
    const endYear = Number(m[6]);
    const endMonth = monthIndex(m[4] ?? m[1]!);
    const from = Date.UTC(m[3] ? Number(m[3]) : endYear, monthIndex(m[1]!), Number(m[2]));
    const to = Date.UTC(endYear, endMonth, Number(m[5])) + DAY - 1;
    if (from <= to) return { from, to, match: m[0] };
  }
  const beside = BESIDE.exec(text);
  if (beside) {
    const inner = dateWindow(beside[3]!, now);
    const span = SPAN_DAYS[beside[1]!.toLowerCase()]! * DAY;
    if (inner) {
      // The date itself is in too: "the week before 3 August" is what was told on 3 August as "last week".
      const before = /^(?:before|prior to)$/i.test(beside[2]!);
      return before
        ? { from: inner.from - span, to: inner.to, match: beside[0] }
        : { from: inner.from, to: inner.to + span, match: beside[0] };
    }
  }
  m = ISO.exec(text);
  if (m) {
    const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return { from: at, to: at + DAY - 1, match: m[0] };
  }
  m = DAY_FIRST.exec(text);
  if (m) {
    const at = Date.UTC(Number(m[3]), monthIndex(m[2]!), Number(m[1]));
    return { from: at, to: at + DAY - 1, match: m[0] };
  }
  m = MONTH_FIRST.exec(text);
  if (m) {
    const at = Date.UTC(Number(m[3]), monthIndex(m[1]!), Number(m[2]));
    return { from: at, to: at + DAY - 1, match: m[0] };
  }
  // Weeks and parts of months ("the last week of May", "early June 2023"), years ("in 2022") and
  // phrases relative to now ("last weekend", "two weeks ago"): the turn dates' own resolver.
  if (now !== undefined) {
    const [first] = resolveTimeMentions(text, now, 'UTC', { assumePast: true });
    // A whole year selects nothing in a conversation of a few months: it is left to the words.
    if (first && first.grain !== 'month' && first.grain !== 'year')
      return { from: first.from, to: first.to, match: first.phrase };
  }
  m = MONTH_YEAR.exec(text);
  if (m) {
    const year = Number(m[2]);
    const month = monthIndex(m[1]!);
    return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) - 1, match: m[0] };
  }
  if (now === undefined) return null;
  // Without a year: the latest such day or month that has begun by now.
  const latest = (month: number, day: number) => {
    const year = new Date(now).getUTCFullYear();
    return Date.UTC(year, month, day) <= now ? year : year - 1;
  };
  m = BARE_DAY.exec(text);
  if (m) {
    const month = monthIndex(m[1] ?? m[4]!);
    const day = Number(m[2] ?? m[3]);
    const at = Date.UTC(latest(month, day), month, day);
    return { from: at, to: at + DAY - 1, match: m[0] };
  }
  m = BARE_MONTH.exec(text);
  if (m) {
    const month = monthIndex(m[1]!);
    const year = latest(month, 1);
    return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) - 1, match: m[1]! };
  }
  return null;
}

export function contentTerms(text: string): string[] {
  const all = [...new Set(indexTokens(text))];
  const content = all.filter((t) => !STOPWORDS.has(t) && !/^\d$/.test(t));
  return (content.length > 0 ? content : all).slice(0, MAX_QUERY_TOKENS);
}

/**
 * `speakerLookup` says which tokens are speakers' names (lower-case key -> stored name).
 * Speaker names are kept out of `terms`: people rarely say their own name, so in turns the name
 * mostly matches greetings addressed to them; the speaker prior uses it instead.
 */
export function analyzeQuery(
  input: string,
  speakerLookup: (token: string) => string | undefined,
  now?: number,
): AnalyzedQuery {
  // "Gina's store" is about Gina; the index splits the possessive off the same way.
  const raw = input.replace(/(\p{L})['’]s\b/gu, '$1');
  const tokens = [...new Set(indexTokens(raw))].slice(0, MAX_QUERY_TOKENS);
  const speakers = new Set<string>();
  for (const token of tokens) {
    const name = speakerLookup(token);
    if (name) speakers.add(name);
  }
  const speakerKeys = new Set([...speakers].map((s) => normalizeText(s)));
  const window = dateWindow(raw, now);
  // A named date selects by time, not by words: turns rarely spell out their own date.
  const dateWords = new Set(window ? normalizeText(window.match).split(' ') : []);
  const terms = contentTerms(raw.replace(CONVERSATION_PHRASES, ' ')).filter(
    (t) => !speakerKeys.has(t) && !dateWords.has(t) && !CONVERSATION_WORDS.has(t),
  );
  const anchored = window ? null : ANCHOR.exec(raw);
  const anchorTerms = anchored ? contentTerms(anchored[3]!).filter((t) => !speakerKeys.has(t)) : [];
  return {
    raw,
    tokens,
    // Nothing but names and a date: the names are all there is to match (the date still selects).
    terms: terms.length > 0 ? terms : contentTerms(raw).filter((t) => !dateWords.has(t)),
    speakers: [...speakers],
    temporal: TEMPORAL_CUES.test(raw),
    window: window ? { from: window.from, to: window.to } : null,
    anchor:
      anchored && anchorTerms.length > 0
        ? {
            terms: anchorTerms,
            before: !/^(?:after|following)$/i.test(anchored[2]!),
            days: ANCHOR_DAYS[(anchored[1] ?? '').toLowerCase()] ?? 14,
          }
        : null,
  };
}

/** A quoted FTS5 expression over `terms`, any or all of them; every term a string literal, so nothing is syntax. */
export function ftsTerms(terms: string[], join: 'any' | 'all'): string | null {
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(join === 'any' ? ' OR ' : ' ');
}

export const ftsAny = (terms: string[]) => ftsTerms(terms, 'any');
