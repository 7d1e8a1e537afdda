// Heuristic rules about what happened to the speaker: a past event ("I went to a pottery class
// yesterday") and one told in a relative clause, its object before the "I" ("These figurines I
// bought yesterday…"). activity-rules.ts runs them after its own rules, before the fallback.
import { inRelativeClause } from './clause-position.ts';
import { cleanValue, IRREGULAR_PAST, slotKey, thirdPerson } from './fact-sentences.ts';
import { ADVERBS, type Rule } from './rule.ts';

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
  'needed',
  'figured',
]);

/** A value that opens with a time, a subordinate clause or a bare particle: the verb's object is not in it. */
const NO_OBJECT =
  /^(?:(?:in|for|up|out|on|at|to|with|about|over|through|into|back|some|more|one|all|them|it)$|(?:when|if|because|while|as|since|after|before|once|until|though|although)\b)/i;
/** Verbs that need an object: "bought yesterday", "made last week", "took last summer" lost theirs. */
const TRANSITIVE_PAST = new Set(
  'bought made took got found saw built wrote brought gave sent created finished received picked painted baked adopted read drew sold kept caught chose won lost held watched ordered booked cooked planted grabbed posted shared designed knitted sewed framed started'.split(
    ' ',
  ),
);
const STARTS_WITH_TIME =
  /^(?:yesterday|today|tonight|recently|lately|earlier|last\s+\w+|this\s+(?:week|weekend|month|year|morning|afternoon|evening)|a\s+(?:few|couple)\b|\d+\s+(?:days?|weeks?|months?|years?)\s+ago|in\s+\d{4})\b/i;
export const objectLost = (verb: string, value: string) =>
  NO_OBJECT.test(value) || (TRANSITIVE_PAST.has(verb) && STARTS_WITH_TIME.test(value));

/** What may follow a relative clause's verb when its object is the head before it: an end, a time, a preposition, the main verb. */
const GAP_ENDS =
  /^(?:\s*$|\s*[-–—,;:.!?]|\s+(?:is|was|are|were|has|have|had|will|would|reminds?|reminded|makes?|made|means?|keeps?|gives?|gave|looks?|looked|turned|came|comes?|during|on|at|in|last|yesterday|recently|today|this|for|and|but|with|from|to|when|while|before|after|back|ago|\d)\b)/i;
const DETERMINER = /^(?:the|a|an|this|these|those|my|our|some|another)$/i;
/** Heads too vague to be the thing a relative clause says was made or bought ("the way I felt", "the things I did"). */
const VAGUE_HEADS = new Set(
  'thing things stuff way ways time times one ones day days lot bit moment moments part kind sort reason point feeling fact people everything something anything nothing'.split(
    ' ',
  ),
);

/** An object that only points: "it", "them", or "this"/"that" with no noun after it. */
const POINTER_OBJECT =
  /^(?:it|them|one)\b|^(?:this|that|these|those)\s+(?:for|to|in|on|at|with|after|before|up|out|back|into|from|as|the|a|an|and|because|so|when|while)\b/i;

export const EVENT_RULES: Rule[] = [
  {
    // The object before the "I" of a relative clause: "These figurines I bought yesterday remind me…"
    // is "bought these figurines", "the study abroad program I applied for" is "applied for" it.
    name: 'event.object',
    pattern: new RegExp(
      String.raw`\b((?:the|a|an|this|these|those|my|our|some|another)\s+(?:[a-z][\w'-]*\s+){0,3}?([a-z][\w'-]*))\s+(?:(?:that|which)\s+)?i(?:'ve| have)?\s+${ADVERBS}([a-z]+)\b(\s+(?:for|to|in|on|at|with|about|into|up|out)(?=\s*$|\s*[-–—,;:]|\s+(?:is|was|are|were|has|have|had|will|would|reminds?|makes?|means?|keeps?)\b))?`,
      'i',
    ),
    build: (m, clause) => {
      const [, phrase = '', head = '', said = '', particle = ''] = m;
      const verb = said.toLowerCase();
      if (NOT_EVENTS.has(verb) || VAGUE_HEADS.has(head.toLowerCase())) return null;
      if (!(IRREGULAR_PAST.has(verb) || (/^[a-z]{3,}ed$/.test(verb) && !verb.endsWith('eed')))) return null;
      if (!inRelativeClause(clause, (m.index ?? 0) + m[0].search(/\bi(?:'ve| have)?\s/i))) return null;
      // The relative clause ends at its verb (the object is the head before it): "my characters I worked so hard on" does not.
      if (!GAP_ENDS.test(clause.slice((m.index ?? 0) + m[0].length))) return null;
      // "a pic of a cake I made": the last determiner opens the object.
      const words = phrase.split(/\s+/);
      const last = words.findLastIndex((w) => DETERMINER.test(w));
      const object = words
        .slice(Math.max(0, last))
        .join(' ')
        .replace(/^\w+/, (d) => d.toLowerCase());
      const value = `${verb}${particle.toLowerCase().replace(/\s+/g, ' ')} ${object}`;
      return {
        slot: `event:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'event.object',
        content: (s) => `${s} ${thirdPerson(value, s)}`,
        tags: ['event'],
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
      if (
        !value ||
        /^(?:to|that|if|it|so|about|you|something|anything|everything|nothing)$/i.test(value) ||
        objectLost(verb, value) ||
        // "I made it in pottery class", "I turned it into a learning experience": the thing is in another turn.
        POINTER_OBJECT.test(value)
      )
        return null;
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
];
