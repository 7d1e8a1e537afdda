// Optimistic heuristic extraction (seed 003): first-person statements become structured facts
// (subject, slot, value, polarity) rendered as standalone sentences. No network, microseconds.
import { DAY_MS } from '../clock.ts';
import { isStopword } from '../search/query.ts';
import { normalizeText } from '../text.ts';
import { resolveTimeMentions, TIME_WORDS, withAbsoluteDates, type TimeMention } from './time-phrases.ts';

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
};

/** A named relative, friend or pet: "my sister Maria" is Maria, the subject's sister. */
export type RelatedEntity = { name: string; type: 'person' | 'other'; relation: string; of: string };

type Match = { slot: string; value: string; polarity: 1 | -1; exclusive: boolean; rule: string; content: (s: string) => string; tags?: string[]; protect?: boolean };
type Rule = { name: string; pattern: RegExp; build: (m: RegExpMatchArray, clause: string) => Match | Match[] | null };

const ADVERBS = String.raw`(?:(?:really|also|still|just|truly|totally|absolutely|actually|recently|finally|now|do|kind of|sort of|definitely|honestly)\s+)*`;
const LIKE_VERBS = /^(like|likes|love|loves|enjoy|enjoys|adore|adores)$/i;
const NOT_NAMES = new Set(['back', 'later', 'tomorrow', 'now', 'anytime', 'soon', 'again', 'sometime', 'whenever', 'when', 'if', 'crazy', 'old']);
const IRREGULAR_PAST = new Set(
  'went saw made got took gave had did ran read met won lost bought brought built began wrote drew found felt left kept taught thought heard held sold sent spent told understood became came caught chose drove ate fell flew forgot grew hung knew led paid put rode rang rose sang sat slept spoke stood swam threw wore'.split(' '),
);
const NOT_EVENTS = new Set(['need', 'used', 'wanted', 'hoped', 'wished', 'guessed', 'supposed', 'agreed', 'wondered', 'bet', 'mean', 'meant', 'noticed', 'realized', 'realised', 'felt', 'thought', 'knew', 'had', 'got', 'did']);

const MODALS = new Set("can can't cannot could couldn't will won't would wouldn't should shouldn't might must may shall ought gotta gonna wanna used".split(' '));
/** Present and past look alike: left as they are rather than guessed. */
const SAME_FORMS = new Set('read put let set cut hit quit hurt spread cast cost bet shut split'.split(' '));
/** Words after "I" that are not its verb. */
const NOT_VERBS = new Set('and or but so too as if then than to of in on at with for from by about alone myself also'.split(' '));
const VERB_ADVERBS =
  'really|also|still|just|truly|totally|absolutely|actually|recently|finally|now|definitely|honestly|usually|always|never|often|sometimes|mostly|even|already|only|currently|literally|seriously|personally|rarely|generally|normally|typically|probably|simply|barely|hardly|mainly|especially|somehow|then|kind of|sort of|genuinely';

const THIRD_PERSON: Record<string, string> = { am: 'is', are: 'is', were: 'was', have: 'has', "haven't": "hasn't", do: 'does', "don't": "doesn't", "aren't": "isn't", be: 'is', was: 'was', go: 'goes' };
const FIRST_PERSON: Record<string, string> = { is: 'am', are: 'am', "isn't": 'am not', "aren't": 'am not', has: 'have', "hasn't": "haven't", does: 'do', "doesn't": "don't", goes: 'go', were: 'was' };
const PLURAL: Record<string, string> = { is: 'are', "isn't": "aren't", has: 'have', "hasn't": "haven't", does: 'do', "doesn't": "don't", was: 'were', goes: 'go' };

/** A verb after a third-person singular subject: "love" -> "loves", "go" -> "goes", "don't" -> "doesn't". Past tenses and modals stay. */
export function conjugate(verb: string): string {
  const v = verb.toLowerCase();
  if (MODALS.has(v) || SAME_FORMS.has(v) || IRREGULAR_PAST.has(v) || /(?:ed|n't|'d)$/.test(v) && !['don\'t', 'haven\'t', 'aren\'t'].includes(v)) return verb;
  const special = THIRD_PERSON[v];
  if (special) return special;
  if (v.includes("'")) return verb;
  if (/(?:s|sh|ch|x|z|o)$/.test(v)) return `${verb}es`;
  if (/[^aeiou]y$/.test(v)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** The first-person form of a third-person verb phrase: "lives in Porto" -> "live in Porto" (for a relative's facts). */
function firstPersonPredicate(predicate: string): string {
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

const I_VERB = new RegExp(String.raw`\b[Ii]((?:\s+(?:${VERB_ADVERBS}))*)\s+([a-z][a-z']*)\b`, 'g');

const FIRST_PERSON_WORD = /\b(?:[Ii]|[Mm][ey]|[Mm]ine|[Mm]yself)\b/;

/** Pronouns of the speaker become the subject's, so the fact reads on its own ("I love" -> "Alex loves"). */
export function thirdPerson(text: string, subject: string): string {
  if (!FIRST_PERSON_WORD.test(text)) return text;
  return text
    .replace(/\b[Ii] am\b|\b[Ii]'m\b/g, `${subject} is`)
    .replace(/\b[Ii]'ve\b/g, `${subject} has`)
    .replace(/\b[Ii]'ll\b/g, `${subject} will`)
    .replace(/\b[Ii]'d\b/g, `${subject} would`)
    .replace(I_VERB, (all, adverbs: string, verb: string) =>
      NOT_VERBS.has(verb) ? all.replace(/^[Ii]/, subject) : `${subject}${adverbs} ${conjugate(verb)}`,
    )
    .replace(/\bI\b/g, subject)
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bmine\b/gi, 'theirs')
    .replace(/\bme\b/gi, 'them');
}

/** A plural subject's verb: "User's kids likes" -> "User's kids like". */
function pluralVerb(content: string, subject: string): string {
  if (!content.startsWith(subject)) return content;
  const rest = content.slice(subject.length).replace(/^(\s+(?:no longer|also|really|still|just)?\s*)([a-z']+)/, (_, lead: string, verb: string) => {
    return lead + (PLURAL[verb] ?? firstPersonPredicate(verb));
  });
  return subject + rest;
}

/** A value ends where a new clause starts; keep it short enough to be one fact. */
function cleanValue(raw: string): string {
  const cut = raw
    .split(/\s*(?:[,;:()–—]|\s-\s|\bbecause\b|\bbut\b|\bsince\b|\bwhich\b|\bso that\b|\bthough\b|\balthough\b|\band (?=(?:it|that|this|they|we|he|she|you)\b))\s*/i)[0]!
    .replace(/\s+(?:anymore|any more|at all|either|too|as well|a lot|so much|very much)$/i, '')
    .replace(/[.!?…"]+$/g, '')
    .trim();
  return cut.split(/\s+/).slice(0, 10).join(' ');
}

/** The part of a value that identifies the fact: no article, no time phrase ("quit smoking last year" = "quit smoking"). */
const slotKey = (value: string) =>
  normalizeText(value.replace(TIME_WORDS, ' ')).replace(/^(?:the|a|an|some|my|their) /, '');
const capitalised = (word: string) => /^[A-Z]/.test(word);

/** Foods and drinks: an allergy or avoidance of one is also a diet fact. */
const FOODS =
  /\b(?:peanuts?|nuts?|tree nuts|almonds|cashews|walnuts|shellfish|shrimps?|prawns|crabs?|lobsters?|fish|eggs?|milk|dairy|lactose|cheese|soy|soya|wheat|gluten|sesame|strawberries|kiwis?|bananas?|tomatoes|celery|mustard|sulphites|sulfites|meat|pork|beef|chicken|seafood|sugar|caffeine|coffee|alcohol|beer|wine|spicy food|garlic|onions?|chocolate|carbs|corn|fructose|histamine|mushrooms)\b/i;
const DIETS = /^(vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant[- ]based|carnivore|omnivore)$/i;
/** "peanuts and shellfish" -> ["peanuts", "shellfish"]. */
const items = (value: string) =>
  value
    .split(/\s*,\s*|\s+(?:and|or|&)\s+/i)
    .map((item) => item.replace(/^(?:and|or)\s+/i, '').trim())
    .filter((item) => item.length > 1)
    .slice(0, 6);
const healthTags = (thing: string) => (FOODS.test(thing) ? ['health', 'diet'] : ['health']);

/** Words one of the health rules needs: most clauses have none, and skip those rules. */
const HEALTH_WORDS =
  /\b(?:allerg|intoleran|vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant[- ]based|carnivore|omnivore|diet\b|diabet|celiac|coeliac|asthma|epilep|crohn|ibs\b|hypertension|blood pressure|migraine|adhd\b|anemia|anaemia|free\b|keto|paleo|kosher|halal|teetotal|eat\b|drink\b|tolerate\b|digest\b|avoid\b|stay away\b)/i;

/** Allergies, intolerances, conditions and diets: facts that matter every time, protected from decay. */
const HEALTH_RULES: Rule[] = [
  {
    name: 'health.allergy',
    pattern: /\bi(?:'m| am)\s+(?:(?:also|still|now|very|severely|really|deathly|highly|mildly|slightly|quite|super|so|extremely|a bit|a little|kind of)\s+)*(not\s+|no longer\s+)?allergic to (.+)/i,
    build: (m) => {
      const negation = m[1]?.trim().toLowerCase();
      return items(cleanValue(m[2]!)).map((thing) => ({
        slot: `allergy:${slotKey(thing)}`,
        value: thing,
        polarity: negation ? -1 : 1,
        exclusive: false,
        rule: 'health.allergy',
        content: (s: string) => `${s} is ${negation === 'no longer' ? 'no longer' : negation ? 'not' : ''} allergic to ${thirdPerson(thing, s)}`,
        tags: healthTags(thing),
        protect: true,
      }));
    },
  },
  {
    name: 'health.allergy_have',
    pattern: /\bi (?:have|'ve got|have got)\s+(?:an?\s+)?(?:(?:severe|mild|bad|serious|slight|really bad|deadly|terrible)\s+)?(?:([a-z][\w -]{1,30}?)\s+allerg(?:y|ies)\b|allerg(?:y|ies) to (.+))/i,
    build: (m) =>
      items(cleanValue(m[1] ?? m[2]!)).map((thing) => ({
        slot: `allergy:${slotKey(thing)}`,
        value: thing,
        polarity: 1,
        exclusive: false,
        rule: 'health.allergy',
        content: (s: string) => (m[1] ? `${s} has ${/^[aeiou]/i.test(thing) ? 'an' : 'a'} ${thing} allergy` : `${s} is allergic to ${thirdPerson(thing, s)}`),
        tags: healthTags(thing),
        protect: true,
      })),
  },
  {
    name: 'health.intolerance',
    pattern: /\bi(?:'m| am)\s+(?:(?:also|still|now|very|really|severely|mildly|slightly|a bit|a little)\s+)*(not\s+|no longer\s+)?(?:([a-z]+)\s+intolerant\b|intolerant to (.+))/i,
    build: (m) => {
      const negation = m[1]?.trim().toLowerCase();
      const thing = m[2] ?? cleanValue(m[3]!);
      return {
        slot: `intolerance:${slotKey(thing)}`,
        value: thing,
        polarity: negation ? -1 : 1,
        exclusive: false,
        rule: 'health.intolerance',
        content: (s) => (m[2] ? `${s} is ${negation ? `${negation} ` : ''}${thing} intolerant` : `${s} is ${negation ? `${negation} ` : ''}intolerant to ${thing}`),
        tags: ['health', 'diet'],
        protect: true,
      };
    },
  },
  {
    name: 'health.condition',
    pattern: /\bi(?:'m| am| have| was diagnosed with|'ve been diagnosed with| have been diagnosed with)\s+(?:(?:also|still|now|type [12]|a)\s+)*(diabetic|diabetes|type [12] diabetes|celiac(?: disease)?|coeliac(?: disease)?|asthma|asthmatic|epilepsy|epileptic|ibs|crohn's(?: disease)?|high blood pressure|hypertension|migraines|adhd|anemia|anaemia)\b/i,
    build: (m, clause) => {
      const raw = m[1]!.toLowerCase().replace(/^(?:diabetic)$/, 'diabetes').replace(/^asthmatic$/, 'asthma').replace(/^epileptic$/, 'epilepsy');
      const thing = raw === 'ibs' ? 'IBS' : raw === 'adhd' ? 'ADHD' : raw.replace(/^(celiac|coeliac)$/, '$1 disease').replace(/^crohn's$/, "Crohn's disease");
      const type = clause.match(/\btype ([12])\b/i)?.[1];
      const named = type && thing === 'diabetes' ? `type ${type} diabetes` : thing;
      return {
        slot: `condition:${slotKey(named)}`,
        value: named,
        polarity: 1,
        exclusive: false,
        rule: 'health.condition',
        content: (s) => `${s} has ${named}`,
        tags: /celiac|coeliac|diabetes/.test(named) ? ['health', 'diet'] : ['health'],
        protect: true,
      };
    },
  },
  {
    name: 'diet.is',
    pattern:
      /\bi(?:'m| am|'ve been| have been| became| become| went| turned| have gone|'ve gone| eat| only eat)\s+(?:(?:also|still|now|fully|strictly|mostly|totally|completely|pretty much|a|an)\s+)*(not\s+|no longer\s+)?(vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant[- ]based|carnivore|omnivore|gluten[- ]free|dairy[- ]free|lactose[- ]free|sugar[- ]free|nut[- ]free|keto|paleo|kosher|halal|teetotal)\b/i,
    build: (m) => {
      const negation = m[1]?.trim().toLowerCase();
      const diet = m[2]!.toLowerCase().replace(/\s+/g, '-');
      const axis = DIETS.test(diet);
      return {
        // Vegetarian, vegan, pescatarian... are one choice: a new one replaces the old. Gluten-free and the like add up.
        slot: axis ? 'diet' : `diet:${slotKey(diet)}`,
        value: negation ? `not ${diet}` : diet,
        polarity: negation && !axis ? -1 : 1,
        exclusive: axis,
        rule: 'diet.is',
        content: (s) => (!negation && /\b(?:became|become|went|turned|gone)\b/i.test(m[0]) ? `${s} became ${diet}` : `${s} is ${negation ? `${negation} ` : ''}${diet}`),
        tags: ['diet'],
        protect: true,
      };
    },
  },
  {
    name: 'diet.on_diet',
    pattern: /\bi(?:'m| am)\s+(?:(?:also|still|now|currently|strictly)\s+)*on an? ([\w -]{2,25}?) diet\b/i,
    build: (m) => {
      const diet = m[1]!.toLowerCase();
      return { slot: `diet:${slotKey(diet)}`, value: diet, polarity: 1, exclusive: false, rule: 'diet.on_diet', content: (s) => `${s} is on ${/^[aeiou]/.test(diet) ? 'an' : 'a'} ${diet} diet`, tags: ['diet'], protect: true };
    },
  },
  {
    name: 'diet.avoids',
    pattern: /\bi\s+(can't|cannot|can not|don't|do not|never|won't|shouldn't|am not allowed to|'m not allowed to|avoid|stay away from)\s+(?:(eat|drink|have|tolerate|digest|touch)\s+)?(.+)/i,
    build: (m) => {
      const verb = m[2]?.toLowerCase();
      const aux = m[1]!.toLowerCase().replace(/^can not$/, "can't").replace(/^cannot$/, "can't").replace(/^do not$/, "don't");
      const avoids = aux === 'avoid' || aux === 'stay away from';
      const value = cleanValue(m[3]!);
      const anymore = /\b(?:anymore|any more)\b/i.test(m[3]!);
      // "I can't have kids" is no diet: without eat or drink, only foods count.
      if (!value || (avoids ? !FOODS.test(value) : !verb || (!/^(?:eat|drink)$/.test(verb) && !FOODS.test(value)))) return null;
      if (/^(?:it|that|this|them|much|enough|anything|out|there|here|with|a thing|something)\b/i.test(value)) return null;
      const medical = /^(?:can't|won't|shouldn't|am not allowed to|'m not allowed to)$/.test(aux) || /^(?:tolerate|digest)$/.test(verb ?? '');
      return items(value).map((thing) => ({
        slot: `avoids:${slotKey(thing)}`,
        value: thing,
        polarity: 1 as const,
        exclusive: false,
        rule: 'diet.avoids',
        content: (s: string) =>
          avoids
            ? `${s} ${aux === 'avoid' ? 'avoids' : 'stays away from'} ${thing}`
            : anymore
              ? `${s} no longer ${conjugate(verb!)} ${thing}`
              : `${s} ${aux === "don't" ? "doesn't" : aux === 'never' ? 'never' : aux.replace(/^'m/, 'is').replace(/^am/, 'is')} ${aux === 'never' ? conjugate(verb!) : verb} ${thing}`,
        tags: medical || FOODS.test(thing) && aux !== "don't" && aux !== 'never' ? ['health', 'diet'] : ['diet'],
        protect: true,
      }));
    },
  },
];

const RULES: Rule[] = [
  ...HEALTH_RULES,
  {
    name: 'identity.name',
    pattern: /\b(?:my name is|my name's|call me|i go by|people call me|i(?:'m| am) called)\s+([A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?)/i,
    build: (m) => {
      const name = m[1]!.replace(/'s$/, '');
      if (NOT_NAMES.has(name.toLowerCase()) || !capitalised(name)) return null;
      return { slot: 'name', value: name, polarity: 1, exclusive: true, rule: 'identity.name', content: (s) => `${s}'s name is ${name}` };
    },
  },
  {
    name: 'identity.age',
    pattern: /\bi(?:'m| am) (\d{1,3})(?: years old| yrs old| y\/o)?\s*$/i,
    build: (m) => ({ slot: 'age', value: m[1]!, polarity: 1, exclusive: true, rule: 'identity.age', content: (s) => `${s} is ${m[1]} years old` }),
  },
  {
    name: 'time.birthday',
    pattern: /\bmy birthday is (?:on )?(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'birthday', value, polarity: 1, exclusive: true, rule: 'time.birthday', content: (s) => `${s}'s birthday is ${value}` };
    },
  },
  {
    name: 'preference.favorite',
    pattern: /\bmy (?:all[- ]time )?(?:favou?rite|fave) ([\w\s-]{1,30}?) (?:is|are|has to be) (.+)/i,
    build: (m) => {
      const thing = m[1]!.trim().toLowerCase();
      const value = cleanValue(m[2]!);
      return { slot: `favorite:${slotKey(thing)}`, value, polarity: 1, exclusive: true, rule: 'preference.favorite', content: (s) => `${s}'s favorite ${thing} is ${value}` };
    },
  },
  {
    name: 'place.moved',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:moved|relocated) (?:back )?to (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'home', value, polarity: 1, exclusive: true, rule: 'state.moved_to', content: (s) => `${s} moved to ${value}`, tags: ['place'] };
    },
  },
  {
    name: 'place.lives',
    pattern: new RegExp(String.raw`\bi(?:'m| am)? ${ADVERBS}(?:live|living|reside|based) in (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'home', value, polarity: 1, exclusive: true, rule: 'place.lives_in', content: (s) => `${s} lives in ${value}`, tags: ['place'] };
    },
  },
  {
    name: 'place.origin',
    pattern: /\bi(?:'m| am) (?:originally )?from (.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'origin', value, polarity: 1, exclusive: true, rule: 'place.origin', content: (s) => `${s} is from ${value}`, tags: ['place'] };
    },
  },
  {
    name: 'work.new_job',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:started|got|landed|accepted|took|began) (?:a |my |the )?(?:new |first |dream )?(?:job|position|role|internship|gig) (?:at|with) (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'employer', value, polarity: 1, exclusive: true, rule: 'work.new_job', content: (s) => `${s} started a new job at ${value}`, tags: ['work'] };
    },
  },
  {
    name: 'work.employer',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}work (?:at|for) (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'employer', value, polarity: 1, exclusive: true, rule: 'work.employer', content: (s) => `${s} works at ${value}`, tags: ['work'] };
    },
  },
  {
    name: 'work.job',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}work as (?:an? )?(.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: 'job', value, polarity: 1, exclusive: true, rule: 'work.job', content: (s) => `${s} works as ${/^[aeiou]/i.test(value) ? 'an' : 'a'} ${value}`, tags: ['work'] };
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
      return { slot: `does:${slotKey(value)}`, value, polarity: -1, exclusive: false, rule: 'state.quit', content: (s) => `${s} quit ${thirdPerson(value, s)}` };
    },
  },
  {
    name: 'preference.dislike',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|do not enjoy|don't love)\s+(.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: `likes:${slotKey(value)}`, value, polarity: -1, exclusive: false, rule: 'preference.dislike', content: (s) => `${s} dislikes ${thirdPerson(value, s)}`, tags: ['preference'] };
    },
  },
  {
    name: 'preference.prefer',
    pattern: new RegExp(String.raw`\bi ${ADVERBS}prefer (.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[1]!);
      return { slot: `prefers:${slotKey(value.split(/\s+(?:over|to|than)\s+/)[0]!)}`, value, polarity: 1, exclusive: false, rule: 'preference.prefer', content: (s) => `${s} prefers ${thirdPerson(value, s)}`, tags: ['preference'] };
    },
  },
  {
    name: 'preference.like',
    pattern: new RegExp(String.raw`\bi(?:'m| am)? ${ADVERBS}(like|love|enjoy|adore|into|a fan of|a big fan of|passionate about|obsessed with)\s+(.+)`, 'i'),
    build: (m) => {
      const value = cleanValue(m[2]!);
      if (/^(?:to think|it when|that|this|what|how|you|your)\b/i.test(value) || /^(?:it|those|these|them|to|one|ones|so|him|her)$/i.test(value) || value.length < 2) return null;
      return { slot: `likes:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'preference.like', content: (s) => `${s} likes ${thirdPerson(value, s)}`, tags: ['preference'] };
    },
  },
  {
    name: 'state.started',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}(?:started|began|begun|took up|picked up|signed up for|joined) (.+)`, 'i'),
    build: (m, clause) => {
      const value = cleanValue(m[1]!);
      const verb = /joined/i.test(clause) ? 'joined' : /signed up/i.test(clause) ? 'signed up for' : 'started';
      return { slot: `does:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'state.started', content: (s) => `${s} ${verb} ${thirdPerson(value, s)}` };
    },
  },
  {
    name: 'plan.future',
    pattern: /\bi(?:'m| am| will|'ll)\s+(?:(?:going|planning|hoping|about|gonna)\s+(?:to\s+)?)?((?:fly|flying|travel|travelling|traveling|go|going|visit|visiting|move|moving|start|starting|take|taking|head|heading|attend|attending|see|seeing|meet|meeting|run|running|have|having|get|getting|try|trying|do|doing)\b.+)/i,
    build: (m, clause) => {
      const value = cleanValue(m[1]!);
      if (/^(?:do|doing|have|having|get|getting|try|trying)\s+(?:it|that|this|so|my best|well|fine|great|good|okay|ok)\b/i.test(value)) return null;
      if (/^(?:go|going|get|getting)\s+(?:there|through|better|worse|started|ready|by|on|along|creative|back|it|home|over it)$/i.test(value)) return null;
      const when = clause.match(/\b(?:next|this|coming) (?:week|weekend|month|year|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\btomorrow\b|\btonight\b|\bsoon\b/i)?.[0];
      const tail = when && !value.toLowerCase().includes(when.toLowerCase()) ? ` ${when.toLowerCase()}` : '';
      return { slot: `plan:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'plan.future', content: (s) => `${s} is ${gerund(thirdPerson(value, s))}${tail}`, tags: ['plan'] };
    },
  },
  {
    name: 'possession.has',
    pattern: /\bi (?:have|own|'ve got|have got)\s+(?!to\b|been\b|had\b|never\b|no\b|always\b|ever\b|done\b|seen\b|a (?:question|feeling|lot of questions)\b)(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      if (value.split(' ').length < 1 || /^(?:it|that|this|them|one|fun|time|something|nothing|anything)$/i.test(value)) return null;
      return { slot: `has:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'possession.has', content: (s) => `${s} has ${thirdPerson(value, s)}` };
    },
  },
  {
    name: 'identity.is',
    pattern: /\bi(?:'m| am) (?:an? )(.+)/i,
    build: (m) => {
      const value = cleanValue(m[1]!);
      if (/^(?:bit|little|lot|fan)\b/i.test(value)) return null;
      return { slot: `is:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'identity.is', content: (s) => `${s} is ${/^[aeiou]/i.test(value) ? 'an' : 'a'} ${thirdPerson(value, s)}` };
    },
  },
  {
    name: 'attribute.my',
    pattern: /\bmy ([a-z][\w\s-]{1,30}?) (?:is|are|was|'s)\s+(?!so\b|very\b|really\b|too\b|pretty\b|kind of\b|such\b|going\b|doing\b)(.+)/i,
    build: (m) => {
      const thing = m[1]!.trim().toLowerCase();
      const value = cleanValue(m[2]!);
      if (!value || /^(?:it|that|this|the best|great|good|fine|okay|ok|amazing|awesome)$/i.test(value)) return null;
      // "My dad when I was a kid...": not a thing of the speaker's.
      if (/\b(?:when|if|and|but|i|you|we|he|she|they|that|who|because|while)\b/i.test(thing)) return null;
      return { slot: `attr:${slotKey(thing)}`, value, polarity: 1, exclusive: true, rule: 'attribute.my', content: (s) => `${s}'s ${thing} is ${thirdPerson(value, s)}` };
    },
  },
  {
    name: 'event.past',
    pattern: new RegExp(String.raw`\bi(?:'ve| have)? ${ADVERBS}([a-z]+)\s+(.+)`, 'i'),
    build: (m) => {
      const verb = m[1]!.toLowerCase();
      const lifeEvent = verb === 'got' && /^(?:married|engaged|divorced|promoted|hired|fired|a new|my first)\b/i.test(m[2]!);
      if ((NOT_EVENTS.has(verb) && !lifeEvent) || !(IRREGULAR_PAST.has(verb) || (/^[a-z]{3,}ed$/.test(verb) && !verb.endsWith('eed')))) return null;
      const value = cleanValue(m[2]!);
      if (!value || /^(?:to|that|if|it|so|about|you)$/i.test(value)) return null;
      return { slot: `event:${slotKey(`${verb} ${value}`)}`, value: `${verb} ${value}`, polarity: 1, exclusive: false, rule: 'event.past', content: (s) => `${s} ${verb} ${thirdPerson(value, s)}`, tags: ['event'] };
    },
  },
  {
    // Fallback: a first-person statement about the speaker's life, kept whole in the third person.
    name: 'statement.first_person',
    pattern: /\b(?:i|i'm|i've|i'd|i'll|my|me|we|we're|we've|our|us)\b/i,
    build: (m, clause) => {
      if (SMALL_TALK.test(clause) || contentWords(clause) < 4) return null;
      const value = clause.replace(/\s+/g, ' ').trim();
      return { slot: `said:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'statement.first_person', content: (s) => sentenceAbout(s, value), tags: ['statement'] };
    },
  },
];

/** Social phrases that say nothing lasting about the speaker. */
const SMALL_TALK =
  /^(?:i|we)(?:'m| am| are|'re)? (?:so |really |totally |very |just )*(?:glad|happy for|sorry|thankful for you|proud of you|excited for you|sure|not sure|here for you|with you|agree|hope|bet|know|understand|see|mean|guess|wish you|can't wait|cannot wait|appreciate|love (?:that|this|it|your|how)|think so|totally get)\b|^(?:i|we) (?:can|could|would|should|will|'ll) (?:definitely |totally )?(?:try|do|check|keep|let)\b/i;

const contentWords = (text: string) => normalizeText(text).split(' ').filter((w) => w.length > 3).length;

/** Interjections and greetings at the start of a clause ("Hey Caroline, ", "Wow! ", "Thanks, Mel, "). */
const OPENER =
  /^(?:(?:hey|hi|hello|wow|whoa|oh|ah|aw+|yeah|yes|yep|yup|nope|thanks|thank you|haha+|lol|omg|great|cool|awesome|sure|ok|okay|well|um+|hmm+|totally|absolutely|definitely|congrats|congratulations|nice|sweet|true|exactly|right|anyway|btw|so)(?:,?\s+[A-Z][a-z]+)?\s*[,!:–—-]+\s*)+/i;

/** Lower-cases a sentence's first letter when the first word is an ordinary word, not a name. */
function lowerFirst(text: string): string {
  const word = /^[A-Za-z']+/.exec(text)?.[0] ?? '';
  const bare = word.toLowerCase().replace(/'s$/, '');
  if (word.slice(1) !== word.slice(1).toLowerCase()) return text; // LGBTQ, McDonald's
  return isStopword(bare) || /(?:ing|ed|ly)$/.test(bare) || COMMON_OPENERS.has(bare) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}
const COMMON_OPENERS = new Set(
  'since being having life work school family everything nothing something everyone someone people things stuff today tonight tomorrow yesterday last next gonna wanna gotta glad thanks love loved went made took very still always never sometimes maybe probably definitely totally super pretty lots plenty both one two my whenever whatever however wherever although though unless until after before'.split(' '),
);

/** A subordinate clause before the main one: "since they last talked, Alex has had news". */
const LEADING_CLAUSE = /^((?:since|when|after|before|because|while|once|now that|ever since|last \w+|this \w+|on \w+ \w+ \d{4})\b[^,]*),\s+(.+)$/i;

/**
 * A first-person statement as a sentence about the subject: "we"/"our" become "they"/"their", a
 * leading "My X" is "Subject's X", and a statement that does not start with the subject is
 * reported ("Alex said the trip was great").
 */
function sentenceAbout(subject: string, clause: string): string {
  const bare = clause.replace(OPENER, '');
  let text = thirdPerson(bare, subject)
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

function negated(verb: string, object: string, rule: string): Match | null {
  const value = cleanValue(object);
  if (!value) return null;
  if (LIKE_VERBS.test(verb)) {
    return { slot: `likes:${slotKey(value)}`, value, polarity: -1, exclusive: false, rule, content: (s) => `${s} no longer likes ${thirdPerson(value, s)}`, tags: ['preference'] };
  }
  if (/^(?:live|living)$/i.test(verb) && /^in\b/i.test(value)) {
    const place = value.replace(/^in\s+/i, '');
    return { slot: 'home', value: `not ${place}`, polarity: -1, exclusive: true, rule, content: (s) => `${s} no longer lives in ${place}`, tags: ['place'] };
  }
  const activity = `${verb} ${value}`.toLowerCase();
  return { slot: `does:${slotKey(activity)}`, value: activity, polarity: -1, exclusive: false, rule, content: (s) => `${s} no longer ${conjugate(verb.toLowerCase())} ${thirdPerson(value, s)}` };
}

function gerund(phrase: string): string {
  const [verb, ...rest] = phrase.split(' ');
  if (!verb || /ing$/.test(verb)) return phrase;
  const ing = verb === 'have' ? 'having' : verb === 'see' ? 'seeing' : /e$/.test(verb) && !/ee$/.test(verb) ? `${verb.slice(0, -1)}ing` : /^(run|get)$/.test(verb) ? `${verb}${verb.at(-1)}ing` : `${verb}ing`;
  return [ing, ...rest].join(' ');
}

/** Clauses: sentences, further split where a new first-person clause starts after "and"/"but". */
export function clauses(text: string): string[] {
  return text
    .replace(/[’‘]/g, "'")
    // Sentence ends, but not after common abbreviations ("St. Mary's", "Dr. Lee").
    .split(/(?<!\b(?:St|Dr|Mr|Mrs|Ms|Jr|Sr|Prof|vs|etc|approx|Mt|Ave)\.)(?<=[.!?])\s+|\n+|;\s*/)
    .flatMap((sentence) => sentence.split(/,?\s+\b(?:and|but|so|plus|also)\s+(?=(?:i|i'm|i've|i'll|my|actually|now|next)\b)/i))
    .map((c) => c.trim().replace(/[.!…]+$/, ''))
    .filter((c) => c.length > 2);
}

const SKIP_CLAUSE = /\?\s*$|^\s*(?:if|when|whether|do you|did you|have you|are you|would you|could you|what|how|why|who|where)\b|\b(?:you|your)\s+(?:like|love|have)\b/i;

// --- relatives, friends and pets: "my sister Maria" ---

const ANIMALS = ['guinea pig', 'dog', 'cat', 'puppy', 'kitten', 'pet', 'horse', 'pony', 'bird', 'parrot', 'rabbit', 'bunny', 'hamster', 'turtle', 'tortoise', 'snake', 'lizard', 'goldfish'];
const PEOPLE = [
  'best friend', 'boyfriend', 'girlfriend', 'husband', 'wife', 'partner', 'fiance', 'fiancé', 'fiancee', 'fiancée', 'spouse', 'ex-wife', 'ex-husband',
  'ex-boyfriend', 'ex-girlfriend', 'mother-in-law', 'father-in-law', 'sister-in-law', 'brother-in-law', 'stepmom', 'stepmother', 'stepdad', 'stepfather',
  'stepson', 'stepdaughter', 'mom', 'mum', 'mother', 'mommy', 'dad', 'father', 'daddy', 'sister', 'brother', 'twin', 'son', 'daughter', 'kid', 'child',
  'grandma', 'grandmother', 'granny', 'grandpa', 'grandfather', 'grandson', 'granddaughter', 'aunt', 'uncle', 'cousin', 'niece', 'nephew', 'friend',
  'buddy', 'roommate', 'flatmate', 'housemate', 'neighbor', 'neighbour', 'colleague', 'coworker', 'co-worker', 'boss', 'manager', 'teacher', 'mentor',
  'coach', 'therapist', 'doctor', 'dentist', 'landlord', 'landlady', 'classmate', 'teammate',
];
const PLURALS = ['grandparents', 'parents', 'kids', 'children', 'sisters', 'brothers', 'friends', 'cousins', 'dogs', 'cats', 'pets', 'roommates', 'colleagues', 'coworkers', 'twins', 'sons', 'daughters', 'in-laws', 'folks', 'turtles', 'neighbors', 'neighbours'];
const byLength = (words: string[]) => [...words].sort((a, b) => b.length - a.length).join('|');
const REL = `(${byLength([...PEOPLE, ...ANIMALS])})`;
const REL_ANY = `(${byLength([...PEOPLE, ...ANIMALS, ...PLURALS])})`;
const REL_ADJ = String.raw`(?:(?:little|older|younger|big|baby|eldest|oldest|youngest|new|old|twin|late|dear|lovely|sweet|elder|step)\s+)?`;
const NAME = String.raw`([A-Z][\p{Ll}'-]+(?:\s+[A-Z][\p{Ll}'-]+)?)`;
const NOT_A_NAME = /^(?:I|I'm|I've|I'd|I'll|The|A|An|And|But|So|Or|If|When|We|He|She|They|It|This|That|Thanks|Thank|Hey|Hi|Yes|No|Oh|Wow|Also|Just|Mom|Dad|Mum|Sister|Brother|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)$/;
/** A relation word after "my"/"our"/"a": the cheap test before the patterns that find names. */
const MAY_RELATE = new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur|[Aa]n?)\s+(?:[a-z]+\s+)?${REL}\b`);
const isAnimal = (relation: string) => ANIMALS.includes(relation.toLowerCase());
const cleanName = (name: string) => name.replace(/['’]s$/, '').trim();
const validName = (name: string) => name.length >= 2 && !NOT_A_NAME.test(name) && !NOT_A_NAME.test(name.split(/\s+/)[0]!);

/** Every named relative, friend or pet the clause names, with the relation ("my sister Maria", "Maria is my sister", "a dog named Rex"). */
export function relatedIn(clause: string, subject: string): RelatedEntity[] {
  const out: RelatedEntity[] = [];
  if (!MAY_RELATE.test(clause)) return out;
  const add = (name: string, relation: string) => {
    const clean = cleanName(name);
    if (!validName(clean) || out.some((r) => r.name === clean)) return;
    out.push({ name: clean, type: isAnimal(relation) ? 'other' : 'person', relation: relation.toLowerCase(), of: subject });
  };
  const patterns = [
    new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur)\s+${REL_ADJ}${REL}(?:'s name is|\s+is (?:called|named))\s+${NAME}`, 'gu'),
    new RegExp(String.raw`\b(?:[Aa]n?|[Mm]y|[Oo]ur)\s+${REL_ADJ}${REL}\s+(?:named|called)\s+${NAME}`, 'gu'),
    new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur)\s+${REL_ADJ}${REL},?\s+${NAME}`, 'gu'),
  ];
  for (const re of patterns) for (const m of clause.matchAll(re)) add(m[2]!, m[1]!);
  // "Maria is my sister", "Maria, my sister,": the name first.
  for (const m of clause.matchAll(new RegExp(String.raw`${NAME}(?:,\s+(?:my|our)\s+${REL_ADJ}${REL}(?:,|$)|\s+is\s+(?:my|our)\s+${REL_ADJ}${REL}\b)`, 'gu'))) {
    if (!/ly$/.test(m[1]!)) add(m[1]!, (m[2] ?? m[3])!);
  }
  return out;
}

/** A clause whose subject is a relative: "My sister Maria lives in Porto", "My kids love the beach". */
const RELATIVE_SUBJECT = new RegExp(String.raw`^(?:[Mm]y|[Oo]ur)\s+(${REL_ADJ}${REL_ANY})(?:,?\s+${NAME},?)?\s+(.+)$`, 'u');
const RELATIVE_NAMED = new RegExp(String.raw`^(?:[Mm]y|[Oo]ur)\s+(${REL_ADJ}${REL})(?:'s name is|\s+is (?:called|named))\s+${NAME}`, 'u');

/** Every relative-subject clause starts with "my"/"our" or has "is my"/"is our": the cheap test first. */
const RELATIVE_HINT = /^(?:[Mm]y|[Oo]ur)\s|\bis\s+(?:my|our)\s/;
const NAME_FIRST = new RegExp(String.raw`^${NAME}\s+is\s+(?:[Mm]y|[Oo]ur)\s+(${REL_ADJ}${REL})\b`, 'u');

type Built = Match & { subject: string };

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

/** Facts about a relative, friend or pet the subject names first in the clause (see RELATIVE_SUBJECT). */
function relativeFacts(clause: string, subject: string): Built[] {
  if (!RELATIVE_HINT.test(clause)) return [];
  const named = RELATIVE_NAMED.exec(clause);
  if (named) {
    const relation = named[1]!.toLowerCase();
    const name = cleanName(named[3]!);
    if (!validName(name)) return [];
    const who = `${subject}'s ${relation}`;
    return [{ subject: who, slot: 'name', value: name, polarity: 1, exclusive: true, rule: 'relation.name', content: () => `${who} is called ${name}`, tags: ['relation'] }];
  }
  const first = NAME_FIRST.exec(clause);
  if (first && validName(cleanName(first[1]!))) {
    const name = cleanName(first[1]!);
    const relation = first[2]!.toLowerCase();
    const who = `${subject}'s ${relation} ${name}`;
    return [{ subject: who, slot: 'relation', value: relation, polarity: 1, exclusive: true, rule: 'relation.is', content: () => `${name} is ${subject}'s ${relation}`, tags: ['relation'] }];
  }
  const m = RELATIVE_SUBJECT.exec(clause);
  if (!m) return [];
  const relation = m[1]!.toLowerCase();
  const name = m[3] && validName(cleanName(m[3])) && !/['’]s$/.test(m[3]) ? cleanName(m[3]) : null;
  // "My sister Maria's house" is about the house: not this rule.
  if (m[3] && !name) return [];
  const predicate = m[4]!.trim();
  const plural = PLURALS.includes(relation.split(/\s+/).at(-1)!);
  const who = `${subject}'s ${relation}${name ? ` ${name}` : ''}`;
  const inner = matchRules(`I ${plural ? predicate : firstPersonPredicate(predicate)}`, who, false);
  if (inner.length > 0) {
    return inner.map((b) => ({ ...b, rule: `relation.${b.rule}`, tags: [...(b.tags ?? []), 'relation'], content: plural ? (s: string) => pluralVerb(b.content(s), s) : b.content }));
  }
  const value = cleanValue(predicate);
  if (contentWords(value) < 1 || /^(?:is|are|was|were)\s+(?:so|very|really|too|such)?\s*(?:great|good|fine|okay|ok|amazing|awesome|the best|nice|cute|sweet)$/i.test(value)) return [];
  return [{ subject: who, slot: `said:${slotKey(value)}`, value, polarity: 1, exclusive: false, rule: 'relation.statement', content: (s) => `${s} ${thirdPerson(value, subject)}`, tags: ['relation'] }];
}

export type ExtractOptions = {
  /** The turn's time phrases, resolved (turn-dates.ts); resolved here from `at` when not given. */
  mentions?: TimeMention[];
  /** The zone the turn's dates are read in, when they are resolved here. */
  zone?: string;
};

/**
 * Extracts fact candidates from one turn. `at` anchors relative time phrases ("yesterday"): a
 * fact carries the date its clause names (eventAt) and says it as an absolute date.
 */
export function extractFacts(text: string, subject = 'User', at?: number, options: ExtractOptions = {}): FactCandidate[] {
  const facts: FactCandidate[] = [];
  const mentions = at === undefined ? [] : (options.mentions ?? resolveTimeMentions(text, at, options.zone));
  for (const raw of clauses(text)) {
    if (SKIP_CLAUSE.test(raw)) continue;
    const clause = raw.replace(/^(?:actually|well|oh|so|yeah|yes|honestly|also|and|but|now|lol|haha|btw|anyway)[,!]?\s+/i, '').replace(/\bI (?:think|guess|feel like|believe)\s+(?:that\s+)?/i, '');
    const related = relatedIn(clause, subject);
    const built = relativeFacts(clause, subject);
    if (built.length === 0) built.push(...matchRules(clause, subject, true));
    if (built.length === 0) continue;
    // The clause's dates, in the order they appear; the first says when its fact happened.
    const dated = mentions.filter((m) => raw.includes(m.phrase)).sort((a, b) => raw.indexOf(a.phrase) - raw.indexOf(b.phrase));
    const eventAt = at === undefined || dated.length === 0 ? undefined : at + dated[0]!.offsetDays * DAY_MS;
    for (const b of built) {
      const said = b.content(b.subject).replace(/\s+/g, ' ').trim();
      let content = withAbsoluteDates(said, dated);
      // A date the rule cut from the value ("I moved to Lisbon, last month") still goes with the fact.
      const first = dated[0];
      if (first && !said.toLowerCase().includes(first.phrase.toLowerCase())) {
        const preposition = new RegExp(`\\b(since|until|by|before|after|from)\\s+${first.phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i').exec(raw)?.[1];
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
        ...(eventAt === undefined ? {} : { eventAt }),
        ...(b.protect ? { protect: true } : {}),
        ...(related.length > 0 ? { related } : {}),
      });
    }
  }
  return facts;
}
