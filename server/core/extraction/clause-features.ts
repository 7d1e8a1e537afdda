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

/**
 * What the model reads of the whole turn, once per turn: its words, whether it asks something, and
 * the share of its words that are the speaker's "I", "me", "my" (a turn about the speaker tells
 * something; a reply about the other or the world seldom does).
 */
export type TurnShape = { words: number; asks: boolean; selfShare: number };
const SELF = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b(?!')/gi;
export function turnShape(prose: string): TurnShape {
  const n = words(prose);
  return { words: n, asks: prose.includes('?'), selfShare: (prose.match(SELF)?.length ?? 0) / Math.max(1, n) };
}

/**
 * Facts the rules read with slots of their own (health, diet, name, age, home, work, birthday,
 * favourites, an activity the speaker finds a way to relax, what started or stopped, a relative's
 * name): never second-guessed.
 */
export const TRUSTED_RULE =
  /^(?:health|diet|identity\.(?:name|age)|time\.|place\.|work\.|state\.|preference\.(?:favorite|way)|relation\.(?:name|is)$)/;

const FIRST_PERSON_START = /^(?:[\w'-]+,?\s+){0,3}(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our|me and)\b/;
const NAME_INSIDE = /\s(?!I\b|I'm\b|I've\b|I'll\b|I'd\b)[A-Z][a-z]+/;
const PAST_ACTION =
  /\b(?:i|we)\s+(?:\w+\s+)?(?:went|got|made|took|had|saw|met|ran|won|bought|began|found|joined|started|visited|finished|\w{3,}ed)\b/;
const LASTING =
  /\b(?:i|we)(?:'m|'ve|\s+am|\s+have|\s+are)?\s+(?:\w+\s+)?(?:love|like|enjoy|have|has|been|work|live|own|volunteer|plan|planning)\b/;

/** Word lists read from the clause's words (one pass over them, no pattern per list). */
const LEXICON: Record<string, string> = {
  listener: "you your you're you've you'll yourself ya",
  future: "gonna will 'll planning",
  reaction: 'wow cool awesome amazing great nice sweet glad happy fun so',
  opinion: 'think maybe probably guess feel believe seem seems hope wish sound sounds',
  modal: 'can could should must might may',
  negation: "not never no can't don't didn't won't isn't wasn't haven't couldn't wouldn't",
  people:
    'kid kids children husband wife family friend friends mom dad mother father sister brother son daughter partner parent parents grandma grandpa',
  things:
    'class group trip job school book team project event concert race shelter festival course store business career degree camp camping painting pottery dog cat pet car house home',
};
const LISTS = Object.keys(LEXICON);
const LIST_OF = new Map<string, number[]>();
for (const [i, list] of LISTS.entries())
  for (const word of LEXICON[list]!.split(' ')) LIST_OF.set(word, [...(LIST_OF.get(word) ?? []), i]);
const GENERIC_OPENING = new Set("it that this they there it's that's there's things life everyone people".split(' '));

function words(text: string): number {
  let n = 0;
  for (const part of text.split(/\s+/)) if (part) n++;
  return n;
}
const on = (test: boolean) => (test ? 1 : 0);

/** The clause's words in lower case, in order. */
export const clauseTokens = (raw: string) => raw.toLowerCase().match(/[a-z0-9']+/g) ?? [];

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
  'turn about the speaker (share)',
] as const;

/** The features of one reading; the patterns above read the clause in lower case (one lowering, no case-blind matching). */
export function clauseFeatures(r: ClauseReading, tokens = clauseTokens(r.raw)): number[] {
  const raw = r.raw.toLowerCase();
  const length = tokens.length;
  const lists = new Array<number>(LISTS.length).fill(0);
  for (const t of tokens) for (const i of LIST_OF.get(t) ?? []) lists[i] = 1;
  const [listener, future, reaction, opinion, modal, negation, people, things] = lists as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const whole = r.rule === 'statement.clause';
  const statement = r.rule === 'statement.first_person';
  return [
    on(whole),
    on(statement),
    on(!whole && !statement),
    on(r.subject !== r.speaker),
    on(FIRST_PERSON_START.test(raw)),
    listener,
    on(NAME_INSIDE.test(r.raw)),
    on(r.dated),
    on(/\d/.test(r.raw)),
    Math.log1p(length) / 3,
    on(PAST_ACTION.test(raw)),
    on(LASTING.test(raw)),
    future,
    reaction,
    opinion,
    modal,
    negation,
    people,
    things,
    on(GENERIC_OPENING.has(tokens[0] ?? '')),
    on(r.index === 0),
    on(r.index === r.count - 1),
    Math.log1p(r.count) / 2,
    on(r.content.startsWith(`${r.subject} said `)),
    Math.log1p(r.turn.words) / 4,
    on(r.turn.asks),
    length / Math.max(1, r.turn.words),
    Math.min(1, r.turn.selfShare * 5),
  ];
}

/** The clause's words the model weighs: three letters or more, each once. */
export const clauseWords = (tokens: string[]) => new Set(tokens.filter((t) => t.length > 2 && /[a-z]$/.test(t)));

type Model = { bias: number; weights: readonly number[]; words: Readonly<Record<string, number>> };

/** The model's probability that the clause's fact is one an annotator would write down. */
export function clauseScore(features: number[], words: Iterable<string>, model: Model = CLAUSE_MODEL): number {
  let z = model.bias;
  for (let i = 0; i < features.length; i++) z += (model.weights[i] ?? 0) * features[i]!;
  for (const w of words) if (Object.hasOwn(model.words, w)) z += model.words[w]!;
  return 1 / (1 + Math.exp(-z));
}

/**
 * Whether the clause could be kept whatever its fact's sentence says (the sentence read at its
 * most favourable): when not, the sentence need not be written at all.
 */
export function mayKeepClause(r: Omit<ClauseReading, 'content'>, model = CLAUSE_MODEL): boolean {
  const reported = model.weights[FEATURE_NAMES.indexOf('reported ("said")')] ?? 0;
  return keepsClause({ ...r, content: reported > 0 ? `${r.subject} said ` : '' }, model);
}

/** Whether the fact read from a clause is kept: trusted rules always, the rest when the model says so. */
export function keepsClause(r: ClauseReading, model = CLAUSE_MODEL): boolean {
  if (TRUSTED_RULE.test(r.rule)) return true;
  const threshold = r.rule === 'statement.clause' ? model.wholeThreshold : model.threshold;
  const tokens = clauseTokens(r.raw);
  return clauseScore(clauseFeatures(r, tokens), clauseWords(tokens), model) >= threshold;
}
