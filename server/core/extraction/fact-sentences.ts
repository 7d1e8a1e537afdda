// How a fact is said: a clause split from a turn, its value cut to one fact, and the speaker's
// words turned to sentences about the subject ("I love hiking" -> "Alex loves hiking"), with verb
// forms for a singular, plural or first-person subject. The rules (heuristics.ts, health-rules.ts,
// relatives.ts) build their facts' sentences with these.
import { isStopword } from '../text/query.ts';
import type { Match } from './rule.ts';
import { normalizeText } from '../text/text.ts';
import { TIME_WORDS } from '../text/time-phrases.ts';

export const IRREGULAR_PAST = new Set(
  'went saw made got took gave had did ran read met won lost bought brought built began wrote drew found felt left kept taught thought heard held sold sent spent told understood became came caught chose drove ate fell flew forgot grew hung knew led paid put rode rang rose sang sat slept spoke stood swam threw wore learnt dreamt burnt spelt spilt leapt knelt dwelt smelt spoilt'.split(
    ' ',
  ),
);

const MODALS = new Set(
  "can can't cannot could couldn't will won't would wouldn't should shouldn't might must may shall ought gotta gonna wanna used".split(
    ' ',
  ),
);
/** Present and past look alike: left as they are rather than guessed. */
const SAME_FORMS = new Set('read put let set cut hit quit hurt spread cast cost bet shut split'.split(' '));
/** Words after "I" that are not its verb. */
const NOT_VERBS = new Set(
  'and or but so too as if then than to of in on at with for from by about alone myself also'.split(' '),
);
const VERB_ADVERBS =
  'really|also|still|just|truly|totally|absolutely|actually|recently|finally|now|definitely|honestly|usually|always|never|often|sometimes|mostly|even|already|only|currently|literally|seriously|personally|rarely|generally|normally|typically|probably|simply|barely|hardly|mainly|especially|somehow|then|kind of|sort of|genuinely';

const THIRD_PERSON: Record<string, string> = {
  am: 'is',
  are: 'is',
  were: 'was',
  have: 'has',
  "haven't": "hasn't",
  do: 'does',
  "don't": "doesn't",
  "aren't": "isn't",
  be: 'is',
  was: 'was',
  go: 'goes',
};
const FIRST_PERSON: Record<string, string> = {
  is: 'am',
  are: 'am',
  "isn't": 'am not',
  "aren't": 'am not',
  has: 'have',
  "hasn't": "haven't",
  does: 'do',
  "doesn't": "don't",
  goes: 'go',
  were: 'was',
};
const PLURAL: Record<string, string> = {
  is: 'are',
  "isn't": "aren't",
  has: 'have',
  "hasn't": "haven't",
  does: 'do',
  "doesn't": "don't",
  was: 'were',
  goes: 'go',
};

/** Verbs whose present ends in "-ed" like a past: "I need" is "Alex needs". */
const PRESENT_IN_ED = new Set('need feed bleed breed speed succeed proceed exceed heed weed seed'.split(' '));

/** A verb after a third-person singular subject: "love" -> "loves", "go" -> "goes", "don't" -> "doesn't". Past tenses and modals stay. */
export function conjugate(verb: string): string {
  const v = verb.toLowerCase();
  if (
    MODALS.has(v) ||
    SAME_FORMS.has(v) ||
    IRREGULAR_PAST.has(v) ||
    (/(?:ed|n't|'d)$/.test(v) && !["don't", "haven't", "aren't"].includes(v) && !PRESENT_IN_ED.has(v))
  )
    return verb;
  const special = THIRD_PERSON[v];
  if (special) return special;
  if (v.includes("'")) return verb;
  if (/(?:s|sh|ch|x|z|o)$/.test(v)) return `${verb}es`;
  if (/[^aeiou]y$/.test(v)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** The first-person form of a third-person verb phrase: "lives in Porto" -> "live in Porto" (for a relative's facts). */
export function firstPersonPredicate(predicate: string): string {
  const [verb = '', ...rest] = predicate.split(/\s+/);
  const v = verb.toLowerCase();
  let first = FIRST_PERSON[v];
  if (!first) {
    if (/[^aeiou]ies$/.test(v)) first = `${v.slice(0, -3)}y`;
    else if (/(?:ss|sh|ch|x|z|o)es$/.test(v)) first = v.slice(0, -2);
    else if (/[^su]s$/.test(v) && !/(?:ss|is|us)$/.test(v)) first = v.slice(0, -1);
    else first = v;
  }
  return [first, ...rest].join(' ');
}

/** Any "-ly" word after "I" is an adverb ("I slowly formed"), but for the verbs that end so. */
const LY_ADVERB = String.raw`(?!(?:apply|fly|rely|reply|supply|multiply|comply|imply|ally|bully|tally|rally)\b)[a-z]{2,}ly`;
const I_VERB = new RegExp(String.raw`\b[Ii]((?:\s+(?:${VERB_ADVERBS}|${LY_ADVERB}))*)\s+([a-z][a-z']*)\b`, 'g');

const FIRST_PERSON_WORD = /\b(?:[Ii]|[Mm][ey]|[Mm]ine|[Mm]yself|[Oo]ur|us)\b/;

/**
 * Pronouns of the speaker become the subject's, so the fact reads on its own ("I love" -> "Alex
 * loves"); "I'd" before a past participle is "had" ("I'd been wanting"), else "would" ("I'd love").
 */
export function thirdPerson(text: string, subject: string): string {
  if (!FIRST_PERSON_WORD.test(text)) return text;
  return andVerb(spokenOf(text, subject), subject);
}

/**
 * A second verb that shares the speaker's "I" agrees too: "I'm using Flask and want to cache" is
 * "Alex is using Flask and wants to cache". Not after "to" or a modal ("will run it and have a peer
 * review it"), where it is no present.
 */
function andVerb(text: string, subject: string): string {
  if (!text.startsWith(`${subject} `)) return text;
  return text.replace(
    /^(\S+ (?:is|has)(?: (?:also|still|currently|already|just|now|been))? [a-z]+(?:ing|ed|en)\b(?:(?! to )[^,;])*?) and (want|need|have|hope|plan|like|love|think|feel)\b/,
    (_, head: string, verb: string) => `${head} and ${conjugate(verb)}`,
  );
}

/** The speaker's pronouns and verbs, said of the subject. */
function spokenOf(text: string, subject: string): string {
  return text
    .replace(/\bgonna\b/gi, 'going to')
    .replace(/\bwanna\b/gi, 'want to')
    .replace(/\b[Ii] am\b|\b[Ii]'m\b/g, `${subject} is`)
    .replace(/\b[Ii] been\b/g, `${subject} has been`)
    .replace(/\b[Ii]'ve\b/g, `${subject} has`)
    .replace(/\b[Ii]'ll\b/g, `${subject} will`)
    .replace(
      /\b[Ii]'d(?=\s+(?:(?:never|already|just|always|finally|only|ever)\s+)?(?:been|gone|done|seen|had|got|gotten|made|taken|known|heard|met|lost|forgotten|started|finished|tried|thought|wanted)\b)/g,
      `${subject} had`,
    )
    .replace(/\b[Ii]'d\b/g, `${subject} would`)
    .replace(I_VERB, (all, adverbs: string, verb: string) =>
      NOT_VERBS.has(verb) ? all.replace(/^[Ii]/, subject) : `${subject}${adverbs} ${conjugate(verb)}`,
    )
    .replace(/\bI\b/g, subject)
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bmine\b/gi, 'theirs')
    .replace(/\b[Oo]ur\b/g, 'their')
    .replace(/\bus\b/g, 'them')
    .replace(/\bme\b(?!-)/gi, 'them');
}

/** A plural subject's verb: "User's kids likes" -> "User's kids like". */
export function pluralVerb(content: string, subject: string): string {
  if (!content.startsWith(subject)) return content;
  const rest = content
    .slice(subject.length)
    .replace(/^(\s+(?:no longer|also|really|still|just)?\s*)([a-z']+)/, (_, lead: string, verb: string) => {
      return lead + (PLURAL[verb] ?? firstPersonPredicate(verb));
    });
  return subject + rest;
}

/** Intensifiers that add no fact: "Caroline is really lucky" says what "Caroline is lucky" says. */
const FILLER = /\b(?:really|super|totally|actually|literally|honestly|basically|kinda|truly|genuinely)\s+(?=\w)/gi;
export const withoutFiller = (text: string) => text.replace(FILLER, '');

/** A value ends where a new clause starts (not at the comma of "1,000" or "April 15, 2024"); keep it short enough to be one fact. */
export const cleanValue = (raw: string) => quotesWhole(raw, cutValue);

/**
 * Cuts a value with `cut` keeping each quoted span (an error message, a title) one piece: no value
 * ends inside it ("fixed the "KeyError: 'x'" in the response" keeps its error whole), and it counts
 * as one word. A quote the cut leaves open goes.
 */
export function quotesWhole(raw: string, cut: (masked: string) => string): string {
  const quoted: string[] = [];
  // The marks are private-use characters; any a turn carries itself go first.
  const masked = raw.replace(/[\uE000\uE001]/g, '').replace(QUOTED, (quote) => `\uE000${quoted.push(quote) - 1}\uE001`);
  return cut(masked)
    .replace(/["“”]/g, '')
    .replace(/\uE000(\d+)\uE001/g, (_, i: string) => quoted[Number(i)]!);
}
const QUOTED = /"[^"\n]{1,80}"|“[^”\n]{1,80}”/g;

function cutValue(raw: string): string {
  const [first = '', second] = raw.split(VALUE_END);
  // "simple, minimal dependencies": an adjective before a comma is not the end of the value.
  const listed = second && /^(?:[a-z-]+\s+){0,2}[a-z-]+$/i.test(first) && LIST_ADJECTIVE.test(first);
  const joined = listed && raw.slice(first.length).trimStart().startsWith(',') ? `${first}, ${second}` : first;
  const cut = joined
    .replace(/\s+(?:anymore|any more|at all|either|too|as well|a lot|so much|very much|and|or|but)$/i, '')
    .replace(/[.!?…\-–—]+$/g, '')
    .trim();
  return shortened(cut.split(/\s+/));
}

/** Where a value ends: a new clause, a parenthesis, a dash, a comma (not "1,000" or "April 15, 2024"), a colon before a space (not "http://"). */
const VALUE_END =
  /\s*(?:(?<!\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s\d{1,2}),(?!\d{3}\b)|:(?=\s|$)|[;()–—]|\s-\s|\bbecause\b|\bbut\b|\bsince\b|\bwhich\b|\bso that\b|\bthough\b|\balthough\b|\band (?=(?:it|that|this|they|we|he|she|you)\b))\s*/i;
/** Adjectives that open a list of them ("simple, minimal dependencies", "lightweight, dependency-free solutions"). */
const LIST_ADJECTIVE = /(?:ple|ight|al|ful|ive|ous|ic|ble|less|ean|ast|ern|ized|ised)$/i;

/** At most this many words in a value: one fact, not the rest of the turn. */
const MAX_VALUE_WORDS = 14;
/** Words that open a phrase or a clause: a value cut short ends before the last of them, not inside it. */
const PHRASE_OPENERS = new Set(
  'and or to of for with in on at from by about into onto over under after before during until while when where who whom that as than like'.split(
    ' ',
  ),
);
/** Words that open a noun phrase: where to cut when no phrase or clause opens late enough. */
const NOUN_OPENERS = new Set('the a an their his her its our my some'.split(' '));

/** A value's words, cut to `max` where a phrase opens ("met a couple who had a dog" -> "met a couple"). */
export function shortened(words: string[], max = MAX_VALUE_WORDS): string {
  if (words.length <= max) return words.join(' ');
  const kept = words.slice(0, max);
  const lastOf = (set: Set<string>) => kept.findLastIndex((w, i) => i >= 3 && set.has(w.toLowerCase()));
  const open = Math.max(lastOf(PHRASE_OPENERS), 0) || lastOf(NOUN_OPENERS);
  return (open > 0 ? kept.slice(0, open) : kept).join(' ');
}

/** The part of a value that identifies the fact: no article, no time phrase ("quit smoking last year" = "quit smoking"). */
export const slotKey = (value: string) =>
  normalizeText(value.replace(TIME_WORDS, ' ')).replace(/^(?:the|a|an|some|my|their) /, '');
export const capitalised = (word: string) => /^[A-Z]/.test(word);

export const contentWords = (text: string) =>
  normalizeText(text)
    .split(' ')
    .filter((w) => w.length > 3).length;

/** Interjections and greetings at the start of a clause ("Hey Caroline, ", "Wow! ", "Thanks, Mel, "). */
const OPENER =
  /^(?:(?:hey|hi|hello|wow|whoa|oh|ah|aw+|yeah|yes|yep|yup|nope|plus|thanks|thank you|haha+|lol|omg|great|cool|awesome|sure|ok|okay|well|um+|hmm+|totally|absolutely|definitely|congrats|congratulations|nice|sweet|true|exactly|right|anyway|btw|so)(?:,?\s+[A-Z][a-z]+)?\s*[,!:–—-]+\s*)+/i;

/** Whether a capitalised word is an ordinary word (a sentence's first), not a name. */
const ordinaryWord = (word: string) => {
  const bare = word.toLowerCase().replace(/'s$/, '');
  return isStopword(bare) || /(?:ing|ed|ly)$/.test(bare) || COMMON_OPENERS.has(bare);
};
/** A name, not an ordinary word, a day or a month. */
const nameLike = (word: string) => !ordinaryWord(word) && !CALENDAR_WORDS.has(word.toLowerCase());

/** Lower-cases a sentence's first letter when the first word is an ordinary word, not a name. */
function lowerFirst(text: string): string {
  const word = /^[A-Za-z']+/.exec(text)?.[0] ?? '';
  if (word.slice(1) !== word.slice(1).toLowerCase()) return text; // LGBTQ, McDonald's
  return ordinaryWord(word) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/** The listener named at a clause's start or end ("Caroline, my family's been great", "… with my business, Jon"): not part of the claim. */
function withoutVocative(text: string): string {
  const lead = /^([A-Z][a-z]+),\s+(?=(?:i|i'm|i've|i'll|i'd|my|we|we're|we've|our)\b)/i.exec(text);
  const bare = lead && nameLike(lead[1]!) ? text.slice(lead[0].length) : text;
  const tail = /,\s+([A-Z][a-z]+)[.!]*$/.exec(bare);
  return tail && nameLike(tail[1]!) ? bare.slice(0, tail.index) : bare;
}
const CALENDAR_WORDS = new Set(
  'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december overall anyway besides meanwhile otherwise'.split(
    ' ',
  ),
);
const COMMON_OPENERS = new Set(
  'since being having life work school family everything nothing something everyone someone people things stuff today tonight tomorrow yesterday last next gonna wanna gotta glad thanks love loved went made took very still always never sometimes maybe probably definitely totally super pretty lots plenty both one two my whenever whatever however wherever although though unless until after before'.split(
    ' ',
  ),
);

/** A subordinate clause before the main one: "since they last talked, Alex has had news". */
const LEADING_CLAUSE =
  /^((?:since|when|after|before|because|while|once|now that|ever since|lately|recently|currently|nowadays|these days|last \w+|this \w+|on \w+ \w+ \d{4})\b[^,]*),\s+(.+)$/i;

/**
 * A first-person statement as a sentence about the subject: "we"/"our" become "they"/"their", a
 * leading "My X" is "Subject's X", and a statement that does not start with the subject is
 * reported ("Alex said the trip was great").
 */
export function sentenceAbout(subject: string, clause: string): string {
  const bare = withoutVocative(clause.replace(OPENER, ''));
  // The speaker as an object is named: "they motivate me" -> "they motivate Caroline", not a "them" that reads as the
  // others ("reminding me I'm not alone" keeps "them": the name follows).
  let text = thirdPerson(bare.replace(/\b[Mm]e\b(?!-|\s+[Ii]\b|\s+[Ii]')/g, subject), subject)
    .replace(/\bwe're\b/gi, 'they are')
    .replace(/\bwe've\b/gi, 'they have')
    .replace(/\bwe\b/gi, 'they')
    .replace(/\bour\b/gi, 'their')
    .replace(/\bus\b/gi, 'them')
    .replace(/[.!]+$/, '');
  if (/^my\b/i.test(bare)) text = `${subject}'s${text.slice('their'.length)}`;
  // "since they last talked, Alex has had news" -> "Alex has had news since they last talked".
  const lead = LEADING_CLAUSE.exec(text);
  if (lead && lead[2]!.startsWith(subject)) text = `${lead[2]} ${lead[1]!.charAt(0).toLowerCase()}${lead[1]!.slice(1)}`;
  if (text.startsWith(subject)) return text;
  return `${subject} said ${lowerFirst(text)}`;
}

/** A statement kept whole as a fact about its speaker: its words, the slot they make, said about whoever it is. */
export function statementOf(clause: string, rule: string): Match {
  const value = clause.replace(/\s+/g, ' ').trim();
  return {
    slot: `said:${slotKey(value)}`,
    value,
    polarity: 1,
    exclusive: false,
    rule,
    content: (s) => sentenceAbout(s, value),
    tags: ['statement'],
  };
}

export function gerund(phrase: string): string {
  const [verb, ...rest] = phrase.split(' ');
  if (!verb || /ing$/.test(verb)) return phrase;
  const ing =
    verb === 'have'
      ? 'having'
      : verb === 'see'
        ? 'seeing'
        : /e$/.test(verb) && !/ee$/.test(verb)
          ? `${verb.slice(0, -1)}ing`
          : /^(run|get)$/.test(verb)
            ? `${verb}${verb.at(-1)}ing`
            : `${verb}ing`;
  return [ing, ...rest].join(' ');
}

/** A clause without the stops and dashes it ends on ("so I've been real busy -" before "but I'm loving it"); no regex, so runs of spaces stay linear. */
function withoutTrailingMarks(clause: string): string {
  let end = clause.length;
  while (end > 0 && /[\s.!…\-–—]/.test(clause.charAt(end - 1))) end--;
  return clause.slice(0, end).trimStart();
}

/** Clauses: sentences, further split where a new first-person clause starts after "and"/"but". A split starts where a
 * run of spaces does, never inside it: a turn of 20,000 spaces is read in linear time. */
export function clauses(text: string): string[] {
  return (
    text
      .replace(/[’‘]/g, "'")
      // Sentence ends, but not after common abbreviations ("St. Mary's", "Dr. Lee").
      .split(
        /(?<!\b(?:St|Dr|Mr|Mrs|Ms|Jr|Sr|Prof|vs|etc|approx|Mt|Ave)\.)(?<=[.!?])\s+|\n+|;\s*|(?<!\s)\s*[-–—]+\s+(?=(?:i|i'm|i've|we|we're|we've|my|our)\b)/i,
      )
      .flatMap((sentence) =>
        // Not after a lone "Me" ("Me and my friends went camping" is one clause).
        sentence.split(
          /(?<!^me)(?<!\s),?\s+\b(?:and|but|so|plus|also)\s+(?=(?:i|i'm|i've|i'll|my|actually|now|next)\b)/i,
        ),
      )
      .map(withoutTrailingMarks)
      .filter((c) => c.length > 2)
  );
}
