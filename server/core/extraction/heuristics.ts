// Optimistic heuristic extraction: first-person statements become structured facts
// (subject, slot, value, polarity) rendered as standalone sentences. No network, microseconds.
// The rules run in order, the first match wins: health and diet first (health-rules.ts), then
// identity-rules.ts and activity-rules.ts; a clause about a relative is read by relatives.ts with the same rules, and every fact is
// said as fact-sentences.ts words it.
import { DAY_MS } from '../kernel/clock.ts';
import { clauses, contentWords, statementOf, withoutFiller } from './fact-sentences.ts';
import { keepsClause, mayKeepClause, turnShape, type ClauseReading } from './clause-features.ts';
import {
  endsPointingBack,
  endsVague,
  catchingUp,
  promiseOfTheMoment,
  hasLatinWords,
  notAClaim,
  proseOf,
  statementBeforeQuestion,
  toListenerOrTrying,
} from './fact-filter.ts';
import { HEALTH_RULES, HEALTH_WORDS } from './health-rules.ts';
import { relatedIn, relativeFacts, type RelatedEntity } from './relatives.ts';
import type { Built, Rule } from './rule.ts';
import { IDENTITY_RULES } from './identity-rules.ts';
import { ACTIVITY_RULES } from './activity-rules.ts';
import { resolveTimeMentions, TIME_WORDS, withAbsoluteDates, type TimeMention } from '../text/time-phrases.ts';
import { readAssistantTurn } from './assistant-turns.ts';
import { inCondition, inQuotation, inRelativeClause } from './clause-position.ts';

export type { RelatedEntity };

export type FactCandidate = {
  subject: string;
  /** What the fact is about; facts with the same subject + slot can conflict. */
  slot: string;
  value: string;
  polarity: 1 | -1;
  /** A single-valued slot (name, home, employer…): a new value replaces the old one. */
  exclusive: boolean;
  rule: string;
  content: string;
  tags: string[];
  eventAt?: number;
  /** Health and diet facts: importance 1 and decay rate 0 (protected, like a confirmed fact). */
  protect?: boolean;
  /** People and animals the clause names with their relation to the subject ("my sister Maria"). */
  related?: RelatedEntity[];
  /** The clause the fact was read from, as the turn says it. */
  clause: string;
};

const RULES: Rule[] = [...HEALTH_RULES, ...IDENTITY_RULES, ...ACTIVITY_RULES];

const SKIP_CLAUSE =
  /\?\s*$|^\s*(?:if|when|whether|do you|did you|have you|are you|would you|could you|what|how|why|who|where)\b|\b(?:you|your)\s+(?:like|love|have)\b/i;

/** Chat drops the "I" of a past action ("Started hitting the gym last week"): it is the speaker's ("Been a busy week" drops "It's"). */
const SPEAKER_DROPPED =
  /^(?:(?:just|finally|recently|also)\s+)?(?:been(?!\s+(?:a|an|the|such|quite|ages|forever|too long)\b)|started|went|got|had|made|finished|took|joined|bought|visited|spent|signed up|moved|met|picked up|adopted|ran|won|painted|baked|volunteered|graduated|booked|lost)\s+["'“\w]/i;
const impliedSpeaker = (clause: string) => {
  if (!SPEAKER_DROPPED.test(clause)) return clause;
  const lower = `${clause.charAt(0).toLowerCase()}${clause.slice(1)}`;
  // "Just been helping friends" is "I've just been helping", not "I just been".
  return /^(?:\w+\s+)?been\b/.test(lower) ? `I've ${lower}` : `I ${lower}`;
};

/** Rules that read a past event: "when I moved" is one, "when I have kids" is no possession yet. */
const PAST_RULE = /^(?:event\.|state\.(?:started|quit|moved_to)|place\.moved|work\.new_job)/;

/**
 * Whether a rule's "I" is the clause's own subject: not inside a relative clause ("the cake I made
 * recently"), a condition ("for when I have kids") or a quotation. Health rules read conditions
 * too ("if I eat gluten I get sick" is a health fact).
 */
function speakerSubject(rule: Rule, match: RegExpMatchArray, clause: string): boolean {
  const at = match.index ?? 0;
  if (!/^i\b/i.test(match[0]) || rule.name === 'statement.first_person') return true;
  if (inQuotation(clause, at) || inRelativeClause(clause, at)) return false;
  return HEALTH_RULES.includes(rule) || !inCondition(clause, at, !PAST_RULE.test(rule.name));
}

/** The first rule that matches `clause`, about `subject`. */
function matchRules(clause: string, subject: string, withFallback: boolean): Built[] {
  const health = HEALTH_WORDS.test(clause);
  for (const rule of RULES) {
    if (!withFallback && rule.name === 'statement.first_person') continue;
    if (!health && HEALTH_RULES.includes(rule)) continue;
    const match = clause.match(rule.pattern);
    if (!match || !speakerSubject(rule, match, clause)) continue;
    const built = rule.build(match, clause);
    const list = (Array.isArray(built) ? built : built ? [built] : []).filter((b) => b.value);
    if (list.length > 0) return list.map((b) => ({ ...b, subject }));
  }
  return [];
}

export type ExtractOptions = {
  /** The turn's time phrases, resolved (turn-dates.ts); resolved here from `at` when not given. */
  mentions?: TimeMention[];
  /** The zone the turn's dates are read in, when they are resolved here. */
  zone?: string;
  /** Statements kept whole when no rule reads them (the fallback); off for words restated by the assistant. */
  statements?: boolean;
  /** The turn's prose (proseOf), when the caller has read it already: one read per turn on the hot path. */
  prose?: string;
  /** Which clauses' facts are kept (the fitted model by default; bench/fit-clauses.ts sees them all). */
  keep?: (reading: ClauseReading) => boolean;
};

/** A clause no rule reads, said whole about the speaker: the model decides whether it is kept. */
function wholeClause(clause: string): Built | null {
  if (contentWords(clause) < MIN_WHOLE_WORDS || toListenerOrTrying(clause)) return null;
  return { ...statementOf(clause, 'statement.clause'), subject: '' };
}
/** A clause kept whole has at least this many words of four letters or more. */
const MIN_WHOLE_WORDS = 3;

/** The facts one clause says, before dating and the model's say. */
function builtOf(said: string, subject: string, statements: boolean): { clause: string; built: Built[] } | null {
  const raw = statementBeforeQuestion(said);
  if (SKIP_CLAUSE.test(raw) || !hasLatinWords(raw)) return null;
  const clause = impliedSpeaker(
    raw
      .replace(
        /^(?:actually|well|oh|so|yeah|yes|honestly|also|and|but|now|lol|haha|btw|anyway|however|plus|okay|ok|hmm|sure)[,!]?\s+/i,
        '',
      )
      // "Me and my friends went camping" is the speaker's: "I went camping … with my friends".
      .replace(
        /^me and (my (?:(?:best|little|big|older|younger|two|three|new|old) )?[a-z][\w'-]*) ([a-z].*)$/i,
        (_, who: string, rest: string) => `I ${rest} with ${who.toLowerCase()}`,
      )
      .replace(
        /\bI (?:think|guess|feel like|believe)\s+(?:that\s+)?(?=(?:i|i'm|i've|i'll|i'd|my|we|we're|our|it|it's|this|that|there|the|he|she|they)\b)/i,
        '',
      ),
  );
  // Health and diet facts are read even when said as a need ("I need to avoid gluten").
  if (!HEALTH_WORDS.test(clause) && notAClaim(clause)) return null;
  const built = relativeFacts(clause, subject, (inner, who) => matchRules(inner, who, false));
  if (built.length === 0) built.push(...matchRules(clause, subject, statements));
  const whole = built.length === 0 && statements ? wholeClause(clause) : null;
  if (whole) built.push({ ...whole, subject });
  return { clause, built };
}

/** A fact's sentence with its clause's dates said as dates ("yesterday" -> "on 7 May 2023"). */
function datedContent(said: string, raw: string, dated: TimeMention[]): string {
  let content = withAbsoluteDates(said, dated);
  // A date the rule cut from the value ("I moved to Lisbon, last month") still goes with the fact.
  const first = dated[0];
  if (first && !said.toLowerCase().includes(first.phrase.toLowerCase())) {
    const preposition = new RegExp(
      `\\b(since|until|by|before|after|from)\\s+${first.phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      'i',
    ).exec(raw)?.[1];
    const when = withAbsoluteDates(`${preposition ? `${preposition.toLowerCase()} ` : ''}${first.phrase}`, [first]);
    // "put this dress on" + "on 8 June 2023": one "on".
    const last = /(\w+)$/.exec(content)?.[1]?.toLowerCase();
    content = `${content} ${last && when.toLowerCase().startsWith(`${last} `) ? when.slice(last.length + 1) : when}`;
  }
  content = content.charAt(0).toUpperCase() + content.slice(1);
  return content.endsWith('.') ? content.slice(0, -1) : content;
}

/**
 * Extracts fact candidates from one turn. `at` anchors relative time phrases ("yesterday"): a
 * fact carries the date its clause names (eventAt) and says it as an absolute date.
 */
export function extractFacts(
  text: string,
  subject = 'User',
  at?: number,
  options: ExtractOptions = {},
): FactCandidate[] {
  const facts: FactCandidate[] = [];
  const mentions = at === undefined ? [] : (options.mentions ?? resolveTimeMentions(text, at, options.zone));
  // Each phrase once (its first mention): a turn that repeats "yesterday" a thousand times stays linear.
  const firstOf = new Map<string, TimeMention>();
  for (const m of mentions) if (!firstOf.has(m.phrase)) firstOf.set(m.phrase, m);
  const phrases = [...firstOf.values()];
  const keep = options.keep ?? keepsClause;
  const prose = options.prose ?? proseOf(text);
  const all = clauses(prose);
  const turn = turnShape(prose);
  for (const [index, raw] of all.entries()) {
    const read = builtOf(raw, subject, options.statements !== false);
    if (!read || read.built.length === 0) continue;
    const related = relatedIn(read.clause, subject);
    // The clause's dates, in the order they appear; the first says when its fact happened.
    const dated = phrases
      .filter((m) => raw.includes(m.phrase))
      .sort((a, b) => raw.indexOf(a.phrase) - raw.indexOf(b.phrase));
    const eventAt = at === undefined || dated.length === 0 ? undefined : at + dated[0]!.offsetDays * DAY_MS;
    for (const b of read.built) {
      const reading = { raw, rule: b.rule, speaker: subject, subject: b.subject, index, count: all.length, turn };
      // Most clauses kept whole score too low whatever their sentence says: not worded at all.
      if (b.rule === 'statement.clause' && !options.keep && !mayKeepClause({ ...reading, dated: dated.length > 0 }))
        continue;
      const said = withoutFiller(b.content(b.subject)).replace(/\s+/g, ' ').trim();
      // "made some progress today" is as vague without its time phrase; "had a blast there last month"
      // still dates an event, so a pointer back is read with it.
      const untimed = said.replace(TIME_WORDS, '').trim();
      if (endsPointingBack(said) || endsVague(untimed) || catchingUp(untimed) || promiseOfTheMoment(untimed)) continue;
      const content = datedContent(said, raw, dated);
      if (!keep({ ...reading, content, dated: dated.length > 0 })) continue;
      facts.push({
        subject: b.subject,
        slot: b.slot,
        value: b.value,
        polarity: b.polarity,
        exclusive: b.exclusive,
        rule: b.rule,
        content,
        tags: b.tags ?? [],
        clause: raw,
        ...(eventAt === undefined ? {} : { eventAt }),
        ...(b.protect ? { protect: true } : {}),
        ...(related.length > 0 ? { related } : {}),
      });
    }
  }
  return facts;
}

/**
 * Fact candidates from an assistant's turn about the user (`subject`): the user's facts it
 * restates as settled, read by the same rules as the user's own words, and decisions taken.
 */
export function extractAssistantFacts(text: string, subject = 'User', at?: number): FactCandidate[] {
  const facts: FactCandidate[] = [];
  for (const reading of readAssistantTurn(text)) {
    if (reading.kind === 'confirmed') {
      facts.push(
        ...extractFacts(reading.userWords, subject, at, { statements: false }).map((f) => ({
          ...f,
          rule: `assistant.${f.rule}`,
          clause: reading.clause,
        })),
      );
      continue;
    }
    facts.push({
      subject,
      slot: reading.slot,
      value: reading.value,
      polarity: 1,
      exclusive: false,
      rule: 'assistant.decision',
      content: reading.content(subject),
      tags: ['decision'],
      clause: reading.clause,
    });
  }
  return facts;
}
