// Heuristic rules about who the speaker is: name, age, birthday, favourites, home, origin and
// work. heuristics.ts tries them after the health rules and before activity-rules.ts.
import { capitalised, cleanValue, slotKey } from './fact-sentences.ts';
import { ADVERBS, type Rule } from './rule.ts';

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

export const IDENTITY_RULES: Rule[] = [
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
    // Said the other way round: "Playing video games and watching movies are my main hobbies",
    // "Acting was my first passion". The whole clause, so that no pointer ("that is my favourite") passes.
    name: 'preference.favorite',
    pattern:
      /^(?:[a-z']+[,!]\s+)?(?!(?:it|that|this|these|those|they|there|what|which|who|he|she|you|mine|yours|one)\b)([a-z][\w\s'-]{2,60}?) (is|are|was|were) (?:(?:definitely|really|totally|also|still|always) )?my ((?:(?:main|biggest|favou?rite|first|true|real|greatest|all-time|big|other) )*(?:hobby|hobbies|passion|passions|favou?rite|favou?rites|first love|thing))$/i,
    build: (m) => {
      const value = cleanValue(m[1]!.charAt(0).toLowerCase() + m[1]!.slice(1));
      const what = m[3]!.toLowerCase();
      return {
        slot: `favorite:${slotKey(what)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'preference.favorite',
        // "Epic adventures are my thing" is "… are Tim's thing", not "Tim's thing are …".
        content: (s) =>
          what === 'thing'
            ? `${value.charAt(0).toUpperCase()}${value.slice(1)} ${m[2]!.toLowerCase()} ${s}'s thing`
            : `${s}'s ${what} ${m[2]!.toLowerCase()} ${value}`,
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
];
