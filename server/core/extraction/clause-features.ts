// Which clauses become memories: a small logistic model over cheap features of a clause and the
// fact read from it (docs/extraction.md#which-clauses-become-memories). The weights are fitted on
// LoCoMo's per-turn observations by bench/fit-clauses.ts into clause-weights.ts. A handful of
// regular expressions per clause: microseconds on the hot path.
import { CLAUSE_MODEL } from './clause-weights.ts';

/** What the model reads: the clause as the turn says it, and the fact a rule (or the whole clause) makes of it. */
export type ClauseReading = {
  /** The clause as split from the turn. */
  raw: string;
  /** The rule that read it ("statement.clause" when no rule did and the clause is kept whole). */
  rule: string;
  /** The fact's sentence. */
  content: string;
  /** The speaker, whom a first-person clause is about. */
  speaker: string;
  /** Whom the fact is about (a relative's facts are not the speaker's). */
  subject: string;
  /** The clause's place among the turn's clauses. */
  index: number;
  count: number;
  /** Whether the clause names a time ("yesterday", "last year"). */
  dated: boolean;
  /** The whole turn's words, and whether it asks something: read once per turn (turnShape). */
  turn: TurnShape;
};

export type TurnShape = { words: number; asks: boolean };
/** What the model reads of the whole turn, once per turn. */
export const turnShape = (prose: string): TurnShape => ({ words: words(prose), asks: prose.includes('?') });

/**
 * Facts the rules read with slots of their own (health, diet, name, age, home, work, birthday,
 * favourites, what started or stopped, a relative's name): never second-guessed.
 */
export const TRUSTED_RULE =
  /^(?:health|diet|identity\.(?:name|age)|time\.|place\.|work\.|state\.|preference\.favorite|relation\.(?:name|is)$)/;

const FIRST_PERSON_START = /^(?:[\w'-]+,?\s+){0,3}(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our|me and)\b/i;
const LISTENER = /\b(?:you|your|you're|you've|you'll|yourself|ya)\b/i;
const NAME_INSIDE = /\s(?!I\b|I'm\b|I've\b|I'll\b|I'd\b)[A-Z][a-z]+/;
const PAST_ACTION =
  /\b(?:i|we)\s+(?:\w+\s+)?(?:went|got|made|took|had|saw|met|ran|won|bought|began|found|joined|started|visited|finished|\w{3,}ed)\b/i;
const LASTING =
  /\b(?:i|we)(?:'m|'ve|\s+am|\s+have|\s+are)?\s+(?:\w+\s+)?(?:love|like|enjoy|have|has|been|work|live|own|volunteer|plan|planning)\b/i;
const FUTURE = /\b(?:going to|gonna|will|'ll|plan(?:ning)? to|thinking (?:of|about))\b/i;
const REACTION =
  /\b(?:wow|cool|awesome|amazing|great|nice|sweet|glad|happy|fun|so (?:\w+)|love (?:that|it|this|how))\b|!/i;
const OPINION = /\b(?:think|maybe|probably|guess|feel|believe|seems?|hope|wish|must be|sounds?)\b/i;
const MODAL = /\b(?:can|could|should|must|might|may)\b/i;
const NEGATION = /\b(?:not|never|no)\b|n't\b/i;
const PEOPLE =
  /\b(?:kids?|children|husband|wife|family|friends?|mom|dad|mother|father|sister|brother|son|daughter|partner|parents?|grandma|grandpa)\b/i;
const THINGS =
  /\b(?:class|group|trip|job|school|book|team|project|event|concert|race|shelter|festival|course|store|business|career|degree|camp(?:ing)?|painting|pottery|dog|cat|pet|car|house|home)\b/i;
const GENERIC = /^(?:it|that|this|they|there|it's|that's|this is|there's|things|life|everyone|people)\b/i;

function words(text: string): number {
  let n = 0;
  for (const part of text.split(/\s+/)) if (part) n++;
  return n;
}
const on = (test: boolean) => (test ? 1 : 0);

/** Feature names in the order clauseFeatures returns them (the fitted weights follow this order). */
export const FEATURE_NAMES = [
  'whole clause',
  'first-person statement',
  'rule of its own',
  'about someone else',
  'first-person start',
  'to the listener',
  'a name inside',
  'a time named',
  'a number',
  'words (log)',
  'past action',
  'lasting verb',
  'future',
  'reaction',
  'opinion',
  'modal',
  'negation',
  'people',
  'things',
  'generic opening',
  'first clause',
  'last clause',
  'clauses in the turn (log)',
  'reported ("said")',
  'turn words (log)',
  'turn asks',
  'share of the turn',
] as const;

export function clauseFeatures(r: ClauseReading): number[] {
  const whole = r.rule === 'statement.clause';
  const statement = r.rule === 'statement.first_person';
  return [
    on(whole),
    on(statement),
    on(!whole && !statement),
    on(r.subject !== r.speaker),
    on(FIRST_PERSON_START.test(r.raw)),
    on(LISTENER.test(r.raw)),
    on(NAME_INSIDE.test(r.raw)),
    on(r.dated),
    on(/\d/.test(r.raw)),
    Math.log1p(words(r.raw)) / 3,
    on(PAST_ACTION.test(r.raw)),
    on(LASTING.test(r.raw)),
    on(FUTURE.test(r.raw)),
    on(REACTION.test(r.raw)),
    on(OPINION.test(r.raw)),
    on(MODAL.test(r.raw)),
    on(NEGATION.test(r.raw)),
    on(PEOPLE.test(r.raw)),
    on(THINGS.test(r.raw)),
    on(GENERIC.test(r.raw)),
    on(r.index === 0),
    on(r.index === r.count - 1),
    Math.log1p(r.count) / 2,
    on(r.content.startsWith(`${r.subject} said `)),
    Math.log1p(r.turn.words) / 4,
    on(r.turn.asks),
    words(r.raw) / Math.max(1, r.turn.words),
  ];
}

/** The clause's words the model weighs: lower case, three letters or more, each once. */
export const clauseWords = (raw: string) => [
  ...new Set((raw.toLowerCase().match(/[a-z][a-z']+[a-z]/g) ?? []).filter((w) => w.length > 2)),
];

type Model = { bias: number; weights: readonly number[]; words: Readonly<Record<string, number>> };

/** The model's probability that the clause's fact is one an annotator would write down. */
export function clauseScore(features: number[], words: string[], model: Model = CLAUSE_MODEL): number {
  let z = model.bias;
  for (let i = 0; i < features.length; i++) z += (model.weights[i] ?? 0) * features[i]!;
  for (const w of words) if (Object.hasOwn(model.words, w)) z += model.words[w]!;
  return 1 / (1 + Math.exp(-z));
}

/** Whether the fact read from a clause is kept: trusted rules always, the rest when the model says so. */
export function keepsClause(r: ClauseReading, model = CLAUSE_MODEL): boolean {
  if (TRUSTED_RULE.test(r.rule)) return true;
  const threshold = r.rule === 'statement.clause' ? model.wholeThreshold : model.threshold;
  return clauseScore(clauseFeatures(r), clauseWords(r.raw), model) >= threshold;
}
