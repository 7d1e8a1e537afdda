// Relatives, friends and pets: "my sister Maria" names Maria, the subject's sister (an entity
// related to the subject), and a clause whose subject is one of them ("My sister Maria lives in
// Porto") makes facts about "User's sister Maria", by the same rules as the speaker's own.
import { cleanValue, contentWords, firstPersonPredicate, pluralVerb, slotKey, thirdPerson } from './fact-sentences.ts';
import type { Built } from './rule.ts';

/** A named relative, friend or pet: "my sister Maria" is Maria, the subject's sister. */
export type RelatedEntity = { name: string; type: 'person' | 'other'; relation: string; of: string };

const ANIMALS = [
  'guinea pig',
  'dog',
  'cat',
  'puppy',
  'kitten',
  'pet',
  'horse',
  'pony',
  'bird',
  'parrot',
  'rabbit',
  'bunny',
  'hamster',
  'turtle',
  'tortoise',
  'snake',
  'lizard',
  'goldfish',
];
const PEOPLE = [
  'best friend',
  'boyfriend',
  'girlfriend',
  'husband',
  'wife',
  'partner',
  'fiance',
  'fiancé',
  'fiancee',
  'fiancée',
  'spouse',
  'ex-wife',
  'ex-husband',
  'ex-boyfriend',
  'ex-girlfriend',
  'mother-in-law',
  'father-in-law',
  'sister-in-law',
  'brother-in-law',
  'stepmom',
  'stepmother',
  'stepdad',
  'stepfather',
  'stepson',
  'stepdaughter',
  'mom',
  'mum',
  'mother',
  'mommy',
  'dad',
  'father',
  'daddy',
  'sister',
  'brother',
  'twin',
  'son',
  'daughter',
  'kid',
  'child',
  'grandma',
  'grandmother',
  'granny',
  'grandpa',
  'grandfather',
  'grandson',
  'granddaughter',
  'aunt',
  'uncle',
  'cousin',
  'niece',
  'nephew',
  'friend',
  'buddy',
  'roommate',
  'flatmate',
  'housemate',
  'neighbor',
  'neighbour',
  'colleague',
  'coworker',
  'co-worker',
  'boss',
  'manager',
  'teacher',
  'mentor',
  'coach',
  'therapist',
  'doctor',
  'dentist',
  'landlord',
  'landlady',
  'classmate',
  'teammate',
];
const PLURALS = [
  'grandparents',
  'parents',
  'kids',
  'children',
  'sisters',
  'brothers',
  'friends',
  'cousins',
  'dogs',
  'cats',
  'pets',
  'roommates',
  'colleagues',
  'coworkers',
  'twins',
  'sons',
  'daughters',
  'in-laws',
  'folks',
  'turtles',
  'neighbors',
  'neighbours',
];
const byLength = (words: string[]) => [...words].sort((a, b) => b.length - a.length).join('|');
const REL = `(${byLength([...PEOPLE, ...ANIMALS])})`;
const REL_ANY = `(${byLength([...PEOPLE, ...ANIMALS, ...PLURALS])})`;
const REL_ADJ = String.raw`(?:(?:little|older|younger|big|baby|eldest|oldest|youngest|new|old|twin|late|dear|lovely|sweet|elder|step)\s+)?`;
const NAME = String.raw`([A-Z][\p{Ll}'-]+(?:\s+[A-Z][\p{Ll}'-]+)?)`;
const NOT_A_NAME =
  /^(?:I|I'm|I've|I'd|I'll|The|A|An|And|But|So|Or|If|When|We|He|She|They|It|This|That|Thanks|Thank|Hey|Hi|Yes|No|Oh|Wow|Also|Just|Mom|Dad|Mum|Sister|Brother|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)$/;
/** A relation word after "my"/"our"/"a": the cheap test before the patterns that find names. */
const MAY_RELATE = new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur|[Aa]n?)\s+(?:[a-z]+\s+)?${REL}\b`);
const isAnimal = (relation: string) => ANIMALS.includes(relation.toLowerCase());
const cleanName = (name: string) => name.replace(/['’]s$/, '').trim();
const validName = (name: string) =>
  name.length >= 2 && !NOT_A_NAME.test(name) && !NOT_A_NAME.test(name.split(/\s+/)[0]!);

// Built once (matchAll works on a copy, so the global flag's position never carries over).
const NAMED_RELATIVES = [
  new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur)\s+${REL_ADJ}${REL}(?:'s name is|\s+is (?:called|named))\s+${NAME}`, 'gu'),
  new RegExp(String.raw`\b(?:[Aa]n?|[Mm]y|[Oo]ur)\s+${REL_ADJ}${REL}\s+(?:named|called)\s+${NAME}`, 'gu'),
  new RegExp(String.raw`\b(?:[Mm]y|[Oo]ur)\s+${REL_ADJ}${REL},?\s+${NAME}`, 'gu'),
];
/** "Maria is my sister", "Maria, my sister,": the name first. */
const NAME_THEN_RELATION = new RegExp(
  String.raw`${NAME}(?:,\s+(?:my|our)\s+${REL_ADJ}${REL}(?:,|$)|\s+is\s+(?:my|our)\s+${REL_ADJ}${REL}\b)`,
  'gu',
);

/** Every named relative, friend or pet the clause names, with the relation ("my sister Maria", "Maria is my sister", "a dog named Rex"). */
export function relatedIn(clause: string, subject: string): RelatedEntity[] {
  const out: RelatedEntity[] = [];
  if (!MAY_RELATE.test(clause)) return out;
  const add = (name: string, relation: string) => {
    const clean = cleanName(name);
    if (!validName(clean) || out.some((r) => r.name === clean)) return;
    out.push({
      name: clean,
      type: isAnimal(relation) ? 'other' : 'person',
      relation: relation.toLowerCase(),
      of: subject,
    });
  };
  for (const re of NAMED_RELATIVES) for (const m of clause.matchAll(re)) add(m[2]!, m[1]!);
  for (const m of clause.matchAll(NAME_THEN_RELATION)) {
    if (!/ly$/.test(m[1]!)) add(m[1]!, (m[2] ?? m[3])!);
  }
  return out;
}

/** A clause whose subject is a relative: "My sister Maria lives in Porto", "My kids love the beach". */
const RELATIVE_SUBJECT = new RegExp(
  String.raw`^(?:[Mm]y|[Oo]ur)\s+(${REL_ADJ}${REL_ANY})(?:,?\s+${NAME},?)?\s+(.+)$`,
  'u',
);
const RELATIVE_NAMED = new RegExp(
  String.raw`^(?:[Mm]y|[Oo]ur)\s+(${REL_ADJ}${REL})(?:'s name is|\s+is (?:called|named))\s+${NAME}`,
  'u',
);

/** Every relative-subject clause starts with "my"/"our" or has "is my"/"is our": the cheap test first. */
const RELATIVE_HINT = /^(?:[Mm]y|[Oo]ur)\s|\bis\s+(?:my|our)\s/;
const NAME_FIRST = new RegExp(String.raw`^${NAME}\s+is\s+(?:[Mm]y|[Oo]ur)\s+(${REL_ADJ}${REL})\b`, 'u');

/** "My sister Maria", "Maria is my sister": the relative's name or relation, or null when the clause names no one so. */
function relativeNamed(clause: string, subject: string): Built[] | null {
  const named = RELATIVE_NAMED.exec(clause);
  if (named) {
    const relation = named[1]!.toLowerCase();
    const name = cleanName(named[3]!);
    if (!validName(name)) return [];
    const who = `${subject}'s ${relation}`;
    return [
      {
        subject: who,
        slot: 'name',
        value: name,
        polarity: 1,
        exclusive: true,
        rule: 'relation.name',
        content: () => `${who} is called ${name}`,
        tags: ['relation'],
      },
    ];
  }
  const first = NAME_FIRST.exec(clause);
  if (first && validName(cleanName(first[1]!))) {
    const name = cleanName(first[1]!);
    const relation = first[2]!.toLowerCase();
    const who = `${subject}'s ${relation} ${name}`;
    return [
      {
        subject: who,
        slot: 'relation',
        value: relation,
        polarity: 1,
        exclusive: true,
        rule: 'relation.is',
        content: () => `${name} is ${subject}'s ${relation}`,
        tags: ['relation'],
      },
    ];
  }
  return null;
}

/**
 * Facts about a relative, friend or pet the subject names first in the clause (see
 * RELATIVE_SUBJECT): what the relative does is read by `rulesFor`, the speaker's rules.
 */
export function relativeFacts(
  clause: string,
  subject: string,
  rulesFor: (clause: string, subject: string) => Built[],
): Built[] {
  if (!RELATIVE_HINT.test(clause)) return [];
  const naming = relativeNamed(clause, subject);
  if (naming) return naming;
  const m = RELATIVE_SUBJECT.exec(clause);
  if (!m) return [];
  const relation = m[1]!.toLowerCase();
  const name = m[3] && validName(cleanName(m[3])) && !/['’]s$/.test(m[3]) ? cleanName(m[3]) : null;
  // "My sister Maria's house" is about the house: not this rule.
  if (m[3] && !name) return [];
  const predicate = m[4]!.trim();
  const plural = PLURALS.includes(relation.split(/\s+/).at(-1)!);
  const who = `${subject}'s ${relation}${name ? ` ${name}` : ''}`;
  const inner = rulesFor(`I ${plural ? predicate : firstPersonPredicate(predicate)}`, who);
  if (inner.length > 0) {
    return inner.map((b) => ({
      ...b,
      rule: `relation.${b.rule}`,
      tags: [...(b.tags ?? []), 'relation'],
      content: plural ? (s: string) => pluralVerb(b.content(s), s) : b.content,
    }));
  }
  const value = cleanValue(predicate);
  if (
    contentWords(value) < 1 ||
    /^(?:is|are|was|were)\s+(?:so|very|really|too|such)?\s*(?:great|good|fine|okay|ok|amazing|awesome|the best|nice|cute|sweet)$/i.test(
      value,
    )
  )
    return [];
  return [
    {
      subject: who,
      slot: `said:${slotKey(value)}`,
      value,
      polarity: 1,
      exclusive: false,
      rule: 'relation.statement',
      content: (s) => `${s} ${thirdPerson(value, subject)}`,
      tags: ['relation'],
    },
  ];
}
