// Optimistic heuristic extraction: first-person statements become structured facts
// (subject, slot, value, polarity) rendered as standalone sentences. No network, microseconds.
// The rules run in order, the first match wins: health and diet first (health-rules.ts), then
// these; a clause about a relative is read by relatives.ts with the same rules, and every fact is
// said as fact-sentences.ts words it.
import { DAY_MS } from '../kernel/clock.ts';
import {
  capitalised,
  clauses,
  cleanValue,
  conjugate,
  contentWords,
  gerund,
  IRREGULAR_PAST,
  sentenceAbout,
  slotKey,
  thirdPerson,
  withoutFiller,
} from './fact-sentences.ts';
import { endsPointingBack, hasLatinWords, lastingStatement, notAClaim, proseOf } from './fact-filter.ts';
import { HEALTH_RULES, HEALTH_WORDS } from './health-rules.ts';
import { relatedIn, relativeFacts, type RelatedEntity } from './relatives.ts';
import type { Built, Match, Rule } from './rule.ts';
import { resolveTimeMentions, withAbsoluteDates, type TimeMention } from '../text/time-phrases.ts';
import { readAssistantTurn } from './assistant-turns.ts';

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

const ADVERBS = String.raw`(?:(?:really|also|still|just|truly|totally|absolutely|actually|recently|finally|now|do|kind of|sort of|definitely|honestly)\s+)*`;
const LIKE_VERBS = /^(like|likes|love|loves|enjoy|enjoys|adore|adores)$/i;
const NOT_NAMES = new Set([
  'back',
  'later',
  'tomorrow',
  'now',
  'anytime',
  'soon',
  'again',
  'sometime',
  'whenever',
  'when',
  'if',
  'crazy',
  'old',
]);
const NOT_EVENTS = new Set([
  'need',
  'used',
  'wanted',
  'hoped',
  'wished',
  'guessed',
  'supposed',
  'agreed',
  'wondered',
  'bet',
  'mean',
  'meant',
  'noticed',
  'realized',
  'realised',
  'felt',
  'thought',
  'knew',
  'had',
  'got',
  'did',
  'tried',
  'tested',
  'heard',
  'managed',
  'noticed',
  'added',
  'defined',
  'checked',
]);

const RULES: Rule[] = [
  ...HEALTH_RULES,
  {
    name: 'identity.name',
    pattern:
      /\b(?:my name is|my name's|call me|i go by|people call me|i(?:'m| am) called)\s+([A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?)/i,
    build: (m) => {
      const name = m[1]!.replace(/'s$/, '');
      if (NOT_NAMES.has(name.toLowerCase()) || !capitalised(name)) return null;
      return {
        slot: 'name',
        value: name,
        polarity: 1,
        exclusive: true,
        rule: 'identity.name',
        content: (s) => `${s}'s name is ${name}`,
      };
    },
  },
  {
    name: 'identity.age',
    pattern: /\bi(?:'m| am) (\d{1,3})(?: years old| yrs old| y\/o)?\s*$/i,
    build: (m) => ({
      slot: 'age',
      value: m[1]!,
      polarity: 1,
      exclusive: true,
      rule: 'identity.age',
      content: (s) => `${s} is ${m[1]} years old`,
    }),
  },
  {
    name: 'time.birthday',
    pattern: /\bmy birthday is (?:on )?(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'birthday',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'time.birthday',
        content: (s) => `${s}'s birthday is ${value}`,
      };
    },
  },
  {
    name: 'preference.favorite',
    pattern: /\bmy (?:all[- ]time )?(?:favou?rite|fave) ([\w\s-]{1,30}?) (?:is|are|has to be) (.+)/i,
    build: (m) => {
      const thing = m[1]!.trim().toLowerCase();
      const value = cleanValue(m[2]!);
      return {
        slot: `favorite:${slotKey(thing)}`,
        value,
        polarity: 1,
        exclusive: true,
        rule: 'preference.favorite',
        content: (s) => `${s}'s favorite ${thing} is ${value}`,
      };
    },
  },
  {
    name: 'place.moved',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:moved|relocated) (?:back )?to (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'home',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'state.moved_to',
        content: (s) => `${s} moved to ${value}`,
        tags: ['place'],
      };
    },
  },
  {
    name: 'place.lives',
    pattern: new RegExp(String.raw`\bi(?:'m| am)? ${ADVERBS}(?:live|living|reside|based) in (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'home',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'place.lives_in',
        content: (s) => `${s} lives in ${value}`,
        tags: ['place'],
      };
    },
  },
  {
    name: 'place.origin',
    pattern: /\bi(?:'m| am) (?:originally )?from (.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'origin',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'place.origin',
        content: (s) => `${s} is from ${value}`,
        tags: ['place'],
      };
    },
  },
  {
    name: 'work.new_job',
    pattern: new RegExp(
      String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:started|got|landed|accepted|took|began) (?:a |my |the )?(?:new |first |dream )?(?:job|position|role|internship|gig) (?:at|with) (.+)`,
      'i',
    ),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'employer',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'work.new_job',
        content: (s) => `${s} started a new job at ${value}`,
        tags: ['work'],
      };
    },
  },
  {
    name: 'work.employer',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}work (?:at|for) (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'employer',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'work.employer',
        content: (s) => `${s} works at ${value}`,
        tags: ['work'],
      };
    },
  },
  {
    name: 'work.job',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}work as (?:an? )?(.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: 'job',
        value,
        polarity: 1,
        exclusive: true,
        rule: 'work.job',
        content: (s) => `${s} works as ${/^[aeiou]/i.test(value) ? 'an' : 'a'} ${value}`,
        tags: ['work'],
      };
    },
  },
  {
    name: 'state.no_longer',
    pattern: /\bi(?:'m| am)? no longer (\w+)\s+(.+)/i,
    build: (m) => negated(m[1]!, m[2]!, 'state.no_longer'),
  },
  {
    name: 'state.not_anymore',
    pattern: /\bi (?:don't|do not|dont) (\w+)\s+(.+?)\s+(?:anymore|any more)\b/i,
    build: (m) => negated(m[1]!, m[2]!, 'state.not_anymore'),
  },
  {
    name: 'state.quit',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:quit|stopped|gave up|gave-up) (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      const activity = value.replace(/^(?:liking|loving|enjoying) /i, '');
      if (activity !== value) return negated('like', activity, 'state.quit');
      return {
        slot: `does:${slotKey(value)}`,
        value,
        polarity: -1,
        exclusive: false,
        rule: 'state.quit',
        content: (s) => `${s} quit ${thirdPerson(value, s)}`,
      };
    },
  },
  {
    name: 'preference.dislike',
    pattern: new RegExp(
      String.raw`\bi ${ADVERBS}(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|do not enjoy|don't love)\s+(.+)`,
      'i',
    ),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: `likes:${slotKey(value)}`,
        value,
        polarity: -1,
        exclusive: false,
        rule: 'preference.dislike',
        content: (s) => `${s} dislikes ${thirdPerson(value, s)}`,
        tags: ['preference'],
      };
    },
  },
  {
    name: 'preference.prefer',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}prefer (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return {
        slot: `prefers:${slotKey(value.split(/\s+(?:over|to|than)\s+/)[0]!)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'preference.prefer',
        content: (s) => `${s} prefers ${thirdPerson(value, s)}`,
        tags: ['preference'],
      };
    },
  },
  {
    name: 'preference.like',
    pattern: new RegExp(
      String.raw`\bi(?:'m| am)? ${ADVERBS}(like|love|enjoy|adore|into|a fan of|a big fan of|passionate about|obsessed with)\s+(.+)`,
      'i',
    ),
    build: (m) => {
      const value = cleanValue(m[2]!);
      if (
        /^(?:to think|it when|that|this|what|how|you|your)\b/i.test(value) ||
        /^(?:it|those|these|them|to|one|ones|so|him|her)$/i.test(value) ||
        value.length < 2
      )
        return null;
      return {
        slot: `likes:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'preference.like',
        content: (s) => `${s} ${likeVerb(m[1]!)} ${thirdPerson(value, s)}`,
        tags: ['preference'],
      };
    },
  },
  {
    name: 'state.started',
    pattern: new RegExp(
      String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:started|began|begun|took up|picked up|signed up for|joined) (.+)`,
      'i',
    ),
    build: (m, clause) => {
      const value = cleanValue(m[1]!);
      const verb = /joined/i.test(clause) ? 'joined' : /signed up/i.test(clause) ? 'signed up for' : 'started';
      return {
        slot: `does:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'state.started',
        content: (s) => `${s} ${verb} ${thirdPerson(value, s)}`,
      };
    },
  },
  {
    // The task the user is on ("I'm trying to implement caching for my weather app"): a fact of their project while it lasts.
    name: 'task.current',
    pattern: /\bi(?:'m| am|'ve been| have been)\s+(?:currently\s+|still\s+|now\s+)?(?:trying|attempting) to\s+(.+)/i,
    build: (m) => {
      // Longer than most values: a task's subject often comes late ("… for my JavaScript project").
      const words = m[1]!
        .split(/\s*(?:[,;:()–—?!]|\s-\s|\bbecause\b|\bbut\b|\bso that\b|\band (?=i\b))\s*/i)[0]!
        .replace(/[.…"]+$/, '')
        .trim()
        .split(/\s+/)
        .slice(0, 16);
      while (words.length > 0 && /^(?:for|with|to|of|in|on|at|by|and|or|the|a|an|my|using)$/i.test(words.at(-1)!))
        words.pop();
      const value = words.join(' ');
      if (MOMENTARY_TASK.test(value) || contentWords(value) < 3) return null;
      return {
        slot: `task:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'task.current',
        content: (s) => `${s} is trying to ${thirdPerson(value, s)}`,
        tags: ['task'],
      };
    },
  },
  {
    name: 'plan.future',
    pattern:
      /\bi(?:'m| am| will|'ll)\s+(?:(?:going|planning|hoping|about|gonna)\s+(?:to\s+)?)?((?:fly|flying|travel|travelling|traveling|go|going|visit|visiting|move|moving|start|starting|take|taking|head|heading|attend|attending|see|seeing|meet|meeting|run|running|have|having|get|getting|do|doing)\b.+)/i,
    build: (m, clause) => {
      const value = cleanValue(m[1]!);
      if (
        /^(?:do|doing|have|having|get|getting|try|trying)\s+(?:it|that|this|so|my best|well|fine|great|good|okay|ok)\b/i.test(
          value,
        )
      )
        return null;
      if (
        /^(?:go|going|get|getting)\s+(?:there|through|better|worse|started|ready|by|on|along|creative|back|it|home|over it)$/i.test(
          value,
        )
      )
        return null;
      const when = clause.match(
        /\b(?:next|this|coming) (?:week|weekend|month|year|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\btomorrow\b|\btonight\b|\bsoon\b/i,
      )?.[0];
      const tail = when && !value.toLowerCase().includes(when.toLowerCase()) ? ` ${when.toLowerCase()}` : '';
      return {
        slot: `plan:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'plan.future',
        content: (s) => `${s} is ${gerund(thirdPerson(value, s))}${tail}`,
        tags: ['plan'],
      };
    },
  },
  {
    name: 'possession.has',
    pattern:
      /\bi (?:have|own|'ve got|have got)\s+(?!to\b|been\b|had\b|never\b|no\b|always\b|ever\b|done\b|seen\b|a (?:question|feeling|lot of questions)\b)(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      if (value.split(' ').length < 1 || /^(?:it|that|this|them|one|fun|time|something|nothing|anything)$/i.test(value))
        return null;
      return {
        slot: `has:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'possession.has',
        content: (s) => `${s} has ${thirdPerson(value, s)}`,
      };
    },
  },
  {
    name: 'identity.is',
    pattern: /\bi(?:'m| am) (?:an? )(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      if (/^(?:bit|little|lot|fan)\b/i.test(value)) return null;
      return {
        slot: `is:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'identity.is',
        content: (s) => `${s} is ${/^[aeiou]/i.test(value) ? 'an' : 'a'} ${thirdPerson(value, s)}`,
      };
    },
  },
  {
    name: 'attribute.my',
    pattern:
      /\bmy ([a-z][\w\s-]{1,30}?) (?:is|are|was|'s)\s+(?!so\b|very\b|really\b|too\b|pretty\b|kind of\b|such\b|going\b|doing\b)(.+)/i,
    build: (m) => {
      const thing = m[1]!.trim().toLowerCase();
      const value = cleanValue(m[2]!);
      if (!value || /^(?:it|that|this|the best|great|good|fine|okay|ok|amazing|awesome)$/i.test(value)) return null;
      // "My dad when I was a kid...": not a thing of the speaker's.
      if (/\b(?:when|if|and|but|i|you|we|he|she|they|that|who|because|while)\b/i.test(thing)) return null;
      return {
        slot: `attr:${slotKey(thing)}`,
        value,
        polarity: 1,
        exclusive: true,
        rule: 'attribute.my',
        content: (s) => `${s}'s ${thing} is ${thirdPerson(value, s)}`,
      };
    },
  },
  {
    name: 'event.past',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}([a-z]+)\s+(.+)`, 'i'),
    build: (m) => {
      const verb = m[1]!.toLowerCase();
      const lifeEvent =
        verb === 'got' && /^(?:married|engaged|divorced|promoted|hired|fired|a new|my first)\b/i.test(m[2]!);
      if (
        (NOT_EVENTS.has(verb) && !lifeEvent) ||
        !(IRREGULAR_PAST.has(verb) || (/^[a-z]{3,}ed$/.test(verb) && !verb.endsWith('eed')))
      )
        return null;
      const value = cleanValue(m[2]!);
      if (!value || /^(?:to|that|if|it|so|about|you)$/i.test(value)) return null;
      return {
        slot: `event:${slotKey(`${verb} ${value}`)}`,
        value: `${verb} ${value}`,
        polarity: 1,
        exclusive: false,
        rule: 'event.past',
        content: (s) => `${s} ${verb} ${thirdPerson(value, s)}`,
        tags: ['event'],
      };
    },
  },
  {
    // Fallback: a first-person statement about the speaker's life, kept whole in the third person.
    name: 'statement.first_person',
    pattern: /\b(?:i|i'm|i've|i'd|i'll|my|me|we|we're|we've|our|us)\b/i,
    build: (_m, clause) => {
      if (SMALL_TALK.test(clause) || !lastingStatement(clause, contentWords(clause))) return null;
      const value = clause.replace(/\s+/g, ' ').trim();
      return {
        slot: `said:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'statement.first_person',
        content: (s) => sentenceAbout(s, value),
        tags: ['statement'],
      };
    },
  },
];

/** The speaker's own verb of liking, said of the subject: "love" -> "loves", "into" -> "is into" (one slot for all). */
function likeVerb(said: string): string {
  const verb = said.toLowerCase();
  return /^(?:like|love|enjoy|adore)$/.test(verb) ? `${verb}s` : LIKE_VERBS.test(verb) ? verb : `is ${verb}`;
}

/** Tasks of the moment, not of the project: understanding, deciding, fixing this one thing. */
const MOMENTARY_TASK =
  /^(?:figure out|get|make sure|ensure|see|find|fix|debug|solve|work out|wrap|do|think|remember|recall|wrap my head)\b/i;

/** Social phrases that say nothing lasting about the speaker. */
const SMALL_TALK =
  /^(?:i|we)(?:'m| am| are|'re)? (?:so |really |totally |very |just )*(?:glad|happy for|sorry|thankful for you|proud of you|excited for you|sure|not sure|here for you|with you|agree|hope|bet|know|understand|see|mean|guess|wish you|can't wait|cannot wait|appreciate|love (?:that|this|it|your|how)|think so|totally get)\b|^(?:i|we) (?:can|could|would|should|will|'ll) (?:definitely |totally )?(?:try|do|check|keep|let)\b/i;

function negated(verb: string, object: string, rule: string): Match | null {
  const value = cleanValue(object);
  if (!value) return null;
  if (LIKE_VERBS.test(verb)) {
    return {
      slot: `likes:${slotKey(value)}`,
      value,
      polarity: -1,
      exclusive: false,
      rule,
      content: (s) => `${s} no longer likes ${thirdPerson(value, s)}`,
      tags: ['preference'],
    };
  }
  if (/^(?:live|living)$/i.test(verb) && /^in\b/i.test(value)) {
    const place = value.replace(/^in\s+/i, '');
    return {
      slot: 'home',
      value: `not ${place}`,
      polarity: -1,
      exclusive: true,
      rule,
      content: (s) => `${s} no longer lives in ${place}`,
      tags: ['place'],
    };
  }
  const activity = `${verb} ${value}`.toLowerCase();
  return {
    slot: `does:${slotKey(activity)}`,
    value: activity,
    polarity: -1,
    exclusive: false,
    rule,
    content: (s) => `${s} no longer ${conjugate(verb.toLowerCase())} ${thirdPerson(value, s)}`,
  };
}

const SKIP_CLAUSE =
  /\?\s*$|^\s*(?:if|when|whether|do you|did you|have you|are you|would you|could you|what|how|why|who|where)\b|\b(?:you|your)\s+(?:like|love|have)\b/i;

/** Chat drops the "I" of a past action ("Started hitting the gym last week"): it is the speaker's. */
const SPEAKER_DROPPED =
  /^(?:(?:just|finally|recently|also)\s+)?(?:been|started|went|got|had|made|finished|took|joined|bought|visited|spent|signed up|moved|met|picked up|adopted|ran|won|painted|baked|volunteered|graduated|booked)\s+\w/i;
const impliedSpeaker = (clause: string) =>
  SPEAKER_DROPPED.test(clause) ? `I ${clause.charAt(0).toLowerCase()}${clause.slice(1)}` : clause;

/** The first rule that matches `clause`, about `subject`. */
function matchRules(clause: string, subject: string, withFallback: boolean): Built[] {
  const health = HEALTH_WORDS.test(clause);
  for (const rule of RULES) {
    if (!withFallback && rule.name === 'statement.first_person') continue;
    if (!health && HEALTH_RULES.includes(rule)) continue;
    const match = clause.match(rule.pattern);
    if (!match) continue;
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
};

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
  for (const raw of clauses(options.prose ?? proseOf(text))) {
    if (SKIP_CLAUSE.test(raw) || !hasLatinWords(raw)) continue;
    const clause = impliedSpeaker(
      raw
        .replace(/^(?:actually|well|oh|so|yeah|yes|honestly|also|and|but|now|lol|haha|btw|anyway)[,!]?\s+/i, '')
        .replace(/\bI (?:think|guess|feel like|believe)\s+(?:that\s+)?/i, ''),
    );
    // Health and diet facts are read even when said as a need ("I need to avoid gluten").
    if (!HEALTH_WORDS.test(clause) && notAClaim(clause)) continue;
    const related = relatedIn(clause, subject);
    const built = relativeFacts(clause, subject, (inner, who) => matchRules(inner, who, false));
    if (built.length === 0) built.push(...matchRules(clause, subject, options.statements !== false));
    if (built.length === 0) continue;
    // The clause's dates, in the order they appear; the first says when its fact happened.
    const dated = phrases
      .filter((m) => raw.includes(m.phrase))
      .sort((a, b) => raw.indexOf(a.phrase) - raw.indexOf(b.phrase));
    const eventAt = at === undefined || dated.length === 0 ? undefined : at + dated[0]!.offsetDays * DAY_MS;
    for (const b of built) {
      const said = withoutFiller(b.content(b.subject)).replace(/\s+/g, ' ').trim();
      if (endsPointingBack(said)) continue;
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
      facts.push({
        subject: b.subject,
        slot: b.slot,
        value: b.value,
        polarity: b.polarity,
        exclusive: b.exclusive,
        rule: b.rule,
        content: content.endsWith('.') ? content.slice(0, -1) : content,
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
