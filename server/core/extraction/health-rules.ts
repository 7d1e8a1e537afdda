// Allergies, intolerances, conditions and diets: facts that matter every time, so they are
// tagged health or diet and protected from decay. Tried before the other rules (heuristics.ts),
// and only on clauses with one of their words.
import { cleanValue, conjugate, slotKey, thirdPerson } from './fact-sentences.ts';
import type { Rule } from './rule.ts';

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
export const HEALTH_WORDS =
  /\b(?:allerg|intoleran|vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant[- ]based|carnivore|omnivore|diet\b|diabet|celiac|coeliac|asthma|epilep|crohn|ibs\b|hypertension|blood pressure|migraine|adhd\b|anemia|anaemia|free\b|keto|paleo|kosher|halal|teetotal|eat\b|drink\b|tolerate\b|digest\b|avoid\b|stay away\b)/i;

/** Tried in this order, before every other rule: the first that matches a clause makes its facts. */
export const HEALTH_RULES: Rule[] = [
  {
    name: 'health.allergy',
    pattern:
      /\bi(?:'m| am)\s+(?:(?:also|still|now|very|severely|really|deathly|highly|mildly|slightly|quite|super|so|extremely|a bit|a little|kind of)\s+)*(not\s+|no longer\s+)?allergic to (.+)/i,
    build: (m) => {
      const negation = m[1]?.trim().toLowerCase();
      return items(cleanValue(m[2]!)).map((thing) => ({
        slot: `allergy:${slotKey(thing)}`,
        value: thing,
        polarity: negation ? -1 : 1,
        exclusive: false,
        rule: 'health.allergy',
        content: (s: string) =>
          `${s} is ${negation === 'no longer' ? 'no longer' : negation ? 'not' : ''} allergic to ${thirdPerson(thing, s)}`,
        tags: healthTags(thing),
        protect: true,
      }));
    },
  },
  {
    name: 'health.allergy_have',
    pattern:
      /\bi (?:have|'ve got|have got)\s+(?:an?\s+)?(?:(?:severe|mild|bad|serious|slight|really bad|deadly|terrible)\s+)?(?:([a-z][\w -]{1,30}?)\s+allerg(?:y|ies)\b|allerg(?:y|ies) to (.+))/i,
    build: (m) =>
      items(cleanValue(m[1] ?? m[2]!)).map((thing) => ({
        slot: `allergy:${slotKey(thing)}`,
        value: thing,
        polarity: 1,
        exclusive: false,
        rule: 'health.allergy',
        content: (s: string) =>
          m[1]
            ? `${s} has ${/^[aeiou]/i.test(thing) ? 'an' : 'a'} ${thing} allergy`
            : `${s} is allergic to ${thirdPerson(thing, s)}`,
        tags: healthTags(thing),
        protect: true,
      })),
  },
  {
    name: 'health.intolerance',
    pattern:
      /\bi(?:'m| am)\s+(?:(?:also|still|now|very|really|severely|mildly|slightly|a bit|a little)\s+)*(not\s+|no longer\s+)?(?:([a-z]+)\s+intolerant\b|intolerant to (.+))/i,
    build: (m) => {
      const negation = m[1]?.trim().toLowerCase();
      const thing = m[2] ?? cleanValue(m[3]!);
      return {
        slot: `intolerance:${slotKey(thing)}`,
        value: thing,
        polarity: negation ? -1 : 1,
        exclusive: false,
        rule: 'health.intolerance',
        content: (s) =>
          m[2]
            ? `${s} is ${negation ? `${negation} ` : ''}${thing} intolerant`
            : `${s} is ${negation ? `${negation} ` : ''}intolerant to ${thing}`,
        tags: ['health', 'diet'],
        protect: true,
      };
    },
  },
  {
    name: 'health.condition',
    pattern:
      /\bi(?:'m| am| have| was diagnosed with|'ve been diagnosed with| have been diagnosed with)\s+(?:(?:also|still|now|type [12]|a)\s+)*(diabetic|diabetes|type [12] diabetes|celiac(?: disease)?|coeliac(?: disease)?|asthma|asthmatic|epilepsy|epileptic|ibs|crohn's(?: disease)?|high blood pressure|hypertension|migraines|adhd|anemia|anaemia)\b/i,
    build: (m, clause) => {
      const raw = m[1]!
        .toLowerCase()
        .replace(/^(?:diabetic)$/, 'diabetes')
        .replace(/^asthmatic$/, 'asthma')
        .replace(/^epileptic$/, 'epilepsy');
      const thing =
        raw === 'ibs'
          ? 'IBS'
          : raw === 'adhd'
            ? 'ADHD'
            : raw.replace(/^(celiac|coeliac)$/, '$1 disease').replace(/^crohn's$/, "Crohn's disease");
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
        content: (s) =>
          !negation && /\b(?:became|become|went|turned|gone)\b/i.test(m[0])
            ? `${s} became ${diet}`
            : `${s} is ${negation ? `${negation} ` : ''}${diet}`,
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
      return {
        slot: `diet:${slotKey(diet)}`,
        value: diet,
        polarity: 1,
        exclusive: false,
        rule: 'diet.on_diet',
        content: (s) => `${s} is on ${/^[aeiou]/.test(diet) ? 'an' : 'a'} ${diet} diet`,
        tags: ['diet'],
        protect: true,
      };
    },
  },
  {
    name: 'diet.avoids',
    pattern:
      /\bi\s+(can't|cannot|can not|don't|do not|never|won't|shouldn't|am not allowed to|'m not allowed to|avoid|stay away from)\s+(?:(eat|drink|have|tolerate|digest|touch)\s+)?(.+)/i,
    build: (m) => {
      const verb = m[2]?.toLowerCase();
      const aux = m[1]!
        .toLowerCase()
        .replace(/^can not$/, "can't")
        .replace(/^cannot$/, "can't")
        .replace(/^do not$/, "don't");
      const avoids = aux === 'avoid' || aux === 'stay away from';
      const value = cleanValue(m[3]!);
      const anymore = /\b(?:anymore|any more)\b/i.test(m[3]!);
      // "I can't have kids" is no diet: without eat or drink, only foods count.
      if (!value || (avoids ? !FOODS.test(value) : !verb || (!/^(?:eat|drink)$/.test(verb) && !FOODS.test(value))))
        return null;
      if (/^(?:it|that|this|them|much|enough|anything|out|there|here|with|a thing|something)\b/i.test(value))
        return null;
      const medical =
        /^(?:can't|won't|shouldn't|am not allowed to|'m not allowed to)$/.test(aux) ||
        /^(?:tolerate|digest)$/.test(verb ?? '');
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
        tags: medical || (FOODS.test(thing) && aux !== "don't" && aux !== 'never') ? ['health', 'diet'] : ['diet'],
        protect: true,
      }));
    },
  },
];
