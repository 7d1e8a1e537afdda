// Heuristic rules about what the speaker does: things stopped or started, likes and dislikes,
// current tasks, plans, possessions, past events (event-rules.ts), and the first-person fallback. heuristics.ts
// tries them last, after identity-rules.ts.
import {
  cleanValue,
  conjugate,
  contentWords,
  gerund,
  statementOf,
  shortened,
  quotesWhole,
  slotKey,
  thirdPerson,
} from './fact-sentences.ts';
import { EVENT_RULES, objectLost } from './event-rules.ts';
import { lastingStatement } from './fact-filter.ts';
import { ADVERBS, type Match, type Rule } from './rule.ts';

const LIKE_VERBS = /^(like|likes|love|loves|enjoy|enjoys|adore|adores)$/i;
/** The speaker's own verb of liking, said of the subject: "love" -> "loves", "into" -> "is into" (one slot for all). */
function likeVerb(said: string): string {
  const verb = said.toLowerCase();
  return /^(?:like|love|enjoy|adore)$/.test(verb) ? `${verb}s` : LIKE_VERBS.test(verb) ? verb : `is ${verb}`;
}

/** Tasks of the moment, not of the project: understanding, deciding, fixing this one thing. */
const MOMENTARY_TASK =
  /^(?:figure out|get|make sure|ensure|see|find|fix|debug|solve|work out|wrap|do|think|remember|recall|wrap my head)\b/i;

/** What may come before a clause's own subject: interjections, names with a comma, a conjunction. */
const OPENS_CLAUSE =
  /^(?:\s*(?:[\w'-]+\s*[,!:]|(?:and|but|so|also|plus|now|yeah|yes|well|oh|actually|honestly|because|since|though|anyway)\b))*\s*$/i;

/** Social phrases that say nothing lasting about the speaker. */
const SMALL_TALK =
  /^(?:i|we)(?:'m| am| are|'re)? (?:so |really |totally |very |just )*(?:glad|happy for|sorry|thankful for you|proud of you|excited for you|sure|not sure|here for you|with you|agree|hope|bet|know|understand|see|mean|guess|wish you|can't wait|cannot wait|appreciate|love (?:that|this|it|your|how)|think so|totally get)\b|^(?:i|we) (?:can|could|would|should|will|'ll) (?:definitely |totally )?(?:try|do|check|keep|let)\b/i;

/** "I'm getting an error", "I'll see you soon", "I'm doing alright", "I'll start with Lighthouse first": of the moment, not a plan. */
const MOMENT_NOT_PLAN =
  /\b(?:you|your)\b|^(?:get|getting)\s+(?:(?:an?|the|this|that|some|another|same|a similar)\s+)?(?:[\w.-]+\s+)?(?:errors?|exceptions?|warnings?|issues?|problems?|messages?|results?|output)\b|^(?:get|getting)\s+(?:["'“]|when\b|it\b|(?:(?:a bit|a little|really|so|pretty|kind of)\s+)?(?:stuck|confused|lost|worried|nervous|anxious|frustrated|tired|overwhelmed)\b)|^(?:doing|going)\s+(?:alright|all right|ok|okay|fine|well|great|good|better|worse)$|^(?:have|having)\s+(?:fun|a blast|a good time|to)\b|^(?:start|starting)\s+(?:to\s+)?think|^(?:go|going)\s+for\s+(?:it|my dreams?)$|^(?:start|starting)\s+(?:with|from|by)\b|\b(?:now|right away|right now|first)$/i;

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

export const ACTIVITY_RULES: Rule[] = [
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
        /^(?:is|was|are|were|to (?:hear|see|know|say|think))\b/i.test(value) ||
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
    // "Painting's a fun way to express my feelings", "Playing games is my escape": a liking said of
    // the activity, the speaker's when their own words are in it ("Cooking is a great way to chill" is a remark).
    name: 'preference.way',
    pattern:
      /^(?:[\w'-]+,\s+)?([a-z]+ing(?:\s+[a-z][\w'-]*){0,3}?)(?:'s|\s+is)\s+((?:a|an|my)\s+(?:[a-z]+\s+){0,2}?(?:way|outlet|escape|release))\b(.*)$/i,
    build: (m) => {
      const [, activity = '', what = '', rest = ''] = m;
      if (!/\bmy\b/i.test(what) && !/\b(?:i|me|my|myself)\b/i.test(rest)) return null;
      const value = activity.toLowerCase();
      const said = cleanValue(`${what.replace(/^my\s+/i, /^my\s+[aeiou]/i.test(what) ? 'an ' : 'a ')}${rest}`);
      return {
        slot: `likes:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'preference.way',
        content: (s) => `${s} finds ${value} ${thirdPerson(said, s)}`,
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
      if (objectLost('started', value)) return null;
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
      const words = quotesWhole(m[1]!, (masked) =>
        shortened(
          masked
            .split(
              /\s*(?:(?<!\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s\d{1,2}),(?!\d{3}\b)|[;:()–—?!]|\s-\s|\bbecause\b|\bbut\b|\bso that\b|\band (?=i\b))\s*/i,
            )[0]!
            .replace(/[.…"]+$/, '')
            .trim()
            .split(/\s+/),
          16,
        ),
      ).split(' ');
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
      if (MOMENT_NOT_PLAN.test(value)) return null;
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
      /\bi (?:have|own|'ve got|have got)\s+(?!to\b|been\b|had\b|never\b|no\b|always\b|ever\b|done\b|seen\b|made\b|got\b|gotten\b|found\b|taken\b|given\b|written\b|read\b|met\b|heard\b|learned\b|used\b|[a-z]{3,}ed\b|a (?:question|feeling|lot of questions)\b)(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      if (value.split(' ').length < 1 || /^(?:it|that|this|them|one|fun|time|something|nothing|anything)$/i.test(value))
        return null;
      // "I have faith in you", "I have a few plans", "I have something special": said to the listener, or saying nothing yet.
      if (
        /\b(?:you|your)\b|^(?:a few|some|many|lots of|a lot of)?\s*(?:plans?|ideas?|questions?|thoughts?|something\b.*)$/i.test(
          value,
        )
      )
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
      if (/^(?:bit|little|lot|fan)\b|\bfans?$/i.test(value)) return null;
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
      /\bmy ([a-z][\w\s-]{1,30}?) (is|are|was|were|'s)\s+(?!so\b|very\b|really\b|too\b|pretty\b|kind of\b|such\b|going\b|doing\b)(.+)/i,
    build: (m, clause) => {
      const thing = m[1]!.trim().toLowerCase();
      const value = cleanValue(m[3]!);
      // "My database credentials are stored…": "are" stays; "was" is said as what still holds.
      const verb = /^(?:are|were)$/i.test(m[2]!) ? 'are' : 'is';
      if (!value || /^(?:it|that|this|the best|great|good|fine|okay|ok|amazing|awesome)$/i.test(value)) return null;
      // "Losing my job was hard", "verify if my understanding is correct": the "my" is inside another subject or clause.
      if (!OPENS_CLAUSE.test(clause.slice(0, m.index))) return null;
      // "My dad when I was a kid...": not a thing of the speaker's.
      if (/\b(?:when|if|and|but|i|you|we|he|she|they|that|who|because|while)\b/i.test(thing)) return null;
      return {
        slot: `attr:${slotKey(thing)}`,
        value,
        polarity: 1,
        exclusive: true,
        rule: 'attribute.my',
        content: (s) => `${s}'s ${thing} ${verb} ${thirdPerson(value, s)}`,
      };
    },
  },
  ...EVENT_RULES,
  {
    // Fallback: a first-person statement about the speaker's life, kept whole in the third person.
    name: 'statement.first_person',
    pattern: /\b(?:i|i'm|i've|i'd|i'll|my|me|we|we're|we've|our|us)\b/i,
    build: (_m, clause) => {
      if (SMALL_TALK.test(clause) || !lastingStatement(clause, contentWords(clause))) return null;
      return statementOf(clause, 'statement.first_person');
    },
  },
];
