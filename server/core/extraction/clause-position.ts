// Where a rule's "I" stands in its clause. A rule reads "I <verb> <rest>" as the speaker's fact;
// that holds for the clause's own subject, not for an "I" inside a relative clause ("These
// figurines I bought yesterday remind me…": the object is before the "I"), a condition ("for
// when I have kids": nothing is had yet) or a quotation ("the sentence 'I have experience…'").
// Each test reads the few words before the "I": no pattern runs over the whole clause twice.

/** Words that end a noun phrase's lead-in and so cannot be the head of a relative clause before "I". */
const NOT_HEADS = new Set(
  "and or but so because when if since after before while as then than now yet still also just really actually even though although until unless once whenever where why how who whom whose which that's what's it's there's here's is was are were be been am do did does said says told think thought know knew guess hope mean wish feel felt believe realized realised remember forgot see saw heard say tell ago today tonight yesterday tomorrow week weeks weekend month months year years morning night evening afternoon day days time times moment end summer winter spring fall autumn monday tuesday wednesday thursday friday saturday sunday first finally recently lately fact yeah yes oh well okay ok lol haha wow plus".split(
    ' ',
  ),
);
const RELATIVE_WORDS = new Set(['that', 'which', 'where']);
/** Heads that stand alone before a relative "I": "something I love", "what I like to hear", "all I want". */
const PRONOUN_HEAD = /\b(?:something|anything|everything|nothing|what|whatever|all)\s+(?:that\s+)?$/i;
/** A determiner, then at most four words of a noun phrase, then (maybe "that"/"which") the "I". */
const NOUN_PHRASE_BEFORE =
  /\b(?:the|a|an|this|these|those|that|my|our|his|her|their|some|another|any|every|each)\s+((?:[a-z][\w'-]*\s+){0,3}[a-z][\w'-]*)\s+(?:(?:that|which|where)\s+)?$/i;

/** The few words before a position: enough for a noun phrase, linear in nothing but this window. */
const before = (clause: string, index: number) => clause.slice(Math.max(0, index - 80), index);

/** Whether the "I" at `index` opens a relative clause: "the screenplay I sent in", "something I love", "the line where I'm…". */
export function inRelativeClause(clause: string, index: number): boolean {
  const lead = before(clause, index);
  if (PRONOUN_HEAD.test(lead) || /\b(?:which|whom)\s+$/i.test(lead)) return true;
  const phrase = NOUN_PHRASE_BEFORE.exec(lead)?.[1];
  if (!phrase) return false;
  const words = phrase.toLowerCase().split(/\s+/);
  if (words.length > 1 && RELATIVE_WORDS.has(words.at(-1)!)) words.pop();
  // "my dad and I", "the day after I": a word of the phrase that is no noun's means it is not one.
  return !words.some((w) => NOT_HEADS.has(w) || /(?:ed|ly)$/.test(w));
}

/**
 * Whether the "I" at `index` is said under a condition: "if I have", "for when I have kids", "once
 * I own". `present`: the rule reads a present tense, so "when I have" is a condition too ("when I
 * moved" stays a past event).
 */
export function inCondition(clause: string, index: number, present: boolean): boolean {
  const lead = before(clause, index);
  return CONDITION.test(lead) || (present && /\bwhen\s+$/i.test(lead));
}
const CONDITION = /\b(?:if|unless|in case|whether|once|until|till|whenever)\s+$/i;

/** Whether `index` falls inside a double-quoted span of the clause (an odd number of quotes before it). */
export function inQuotation(clause: string, index: number): boolean {
  let quotes = 0;
  for (let i = 0; i < index; i++) if (clause[i] === '"' || clause[i] === '“' || clause[i] === '”') quotes++;
  return quotes % 2 === 1;
}
