// The `compromise` provider: people, places and organisations from a local NLP tagger (our
// stand-in for spaCy). It costs 2-5 ms per turn (p99 10-90 ms), too slow for addTurn's budget,
// so it runs in the accurate strategy only: the durable job after a turn, and enrichment.
import type nlpType from 'compromise';
import { displayName, EntityType, type NerEntity, type NerProvider } from '../types.ts';

type Nlp = typeof nlpType;
let loading: Promise<Nlp> | undefined;

/**
 * compromise is loaded on first use: importing it costs over a second (its lexicon), which
 * every CLI command would otherwise pay at start-up, used or not.
 */
export function loadCompromise(): Promise<Nlp> {
  loading ??= import('compromise').then((module) => module.default);
  return loading;
}

type Match = { text: string; offset?: { start: number; length: number } };

// Below the regex and known-entity matchers: it guesses from word shapes and a lexicon.
const CONFIDENCE = 0.6;

/** Where the match sits in `text`: compromise's offset when it agrees with the text, else a search. */
function locate(text: string, match: Match, from: number): { start: number; end: number } | null {
  const surface = match.text.trim();
  if (match.offset) {
    const { start, length } = match.offset;
    if (text.slice(start, start + length).trim() === surface) {
      const lead = text.slice(start, start + length).indexOf(surface);
      return { start: start + lead, end: start + lead + surface.length };
    }
  }
  const index = text.indexOf(surface, from);
  return index < 0 ? null : { start: index, end: index + surface.length };
}

/** Shrinks a span to the name inside it ("Mel!" -> "Mel", "Alice's" keeps its span, named "Alice"). */
function trimmed(text: string, start: number, end: number) {
  while (start < end && /[\s"'“”‘’()[\]{},.;:!?*_~-]/.test(text[start]!)) start++;
  while (end > start && /[\s"“”()[\]{},.;:!?*_~-]/.test(text[end - 1]!)) end--;
  return { start, end };
}

/** compromise's people, places and organisations in one text, as it reports them (offsets into that text). */
export type CompromiseMatches = [people: Match[], places: Match[], organizations: Match[]];
const GROUP_TYPES = [EntityType.Person, EntityType.Location, EntityType.Organization] as const;

/** The matches of one parse; only text and offset are kept (they cross a thread as they are). */
export function compromiseMatches(nlp: Nlp, text: string): CompromiseMatches {
  const doc = nlp(text);
  const keep = (matches: Match[]) =>
    matches.map(({ text, offset }) => ({ text, offset: offset && { start: offset.start, length: offset.length } }));
  return [
    keep(doc.people().json({ offset: true })),
    keep(doc.places().json({ offset: true })),
    keep(doc.organizations().json({ offset: true })),
  ];
}

/**
 * Texts joined for one parse. A blank line is a hard boundary for compromise's sentence
 * splitter, so each text is tagged as it would be alone (the same entities on all 2,760 LoCoMo
 * turns) in about 40 % less time than one parse each: the cost per parse is shared.
 */
export const JOIN = '\n\n';
export const joinTexts = (texts: readonly string[]) => texts.join(JOIN);

/** Characters per joined parse: past that, a parse costs as much per text as alone, and its garbage grows. */
const PARSE_CHARS = 20_000;

/** `texts` in runs to parse together, in order, each under PARSE_CHARS (a longer text alone). */
export function parseGroups(texts: readonly string[]): string[][] {
  const groups: string[][] = [];
  let size = Infinity;
  for (const text of texts) {
    if (size + text.length > PARSE_CHARS) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(text);
    size += text.length + JOIN.length;
  }
  return groups;
}

/** Splits the matches of a joined parse back into each text's, with offsets into that text. */
export function splitMatches(texts: readonly string[], joined: CompromiseMatches): CompromiseMatches[] {
  const starts: number[] = [];
  let at = 0;
  for (const text of texts) {
    starts.push(at);
    at += text.length + JOIN.length;
  }
  const split = texts.map((): CompromiseMatches => [[], [], []]);
  joined.forEach((matches, group) => {
    for (const match of matches) {
      if (!match.offset) continue; // asked for with offsets: one without cannot be placed
      // The last text starting at or before the match.
      let i = starts.length - 1;
      while (i > 0 && starts[i]! > match.offset.start) i--;
      const start = match.offset.start - starts[i]!;
      if (start + match.offset.length > texts[i]!.length + 1) continue; // spans two texts: not a name of either
      split[i]![group]!.push({ text: match.text, offset: { start, length: match.offset.length } });
    }
  });
  return split;
}

/** Entities from compromise's matches in `text` (see compromiseMatches). */
export function entitiesFromMatches(text: string, groups: CompromiseMatches): NerEntity[] {
  const found: NerEntity[] = [];
  groups.forEach((matches, group) => {
    const type = GROUP_TYPES[group]!;
    let from = 0;
    for (const match of matches) {
      const located = locate(text, match, from);
      if (!located) continue;
      from = located.end;
      const span = trimmed(text, located.start, located.end);
      // "sister Maria", "my friend Anna": the name is the capitalised part, not the relation before it.
      const lead = /^(?:\p{Ll}[\p{L}'’-]*\s+)+(?=\p{Lu})/u.exec(text.slice(span.start, span.end));
      const start = span.start + (lead?.[0].length ?? 0);
      const end = span.end;
      const surface = text.slice(start, end);
      const name = displayName(surface, type);
      // Proper nouns only: the tagger also calls "mom" or "guys" people.
      if (name.length < 2 || !/\p{Lu}/u.test(name) || surface.startsWith('@') || surface.startsWith('#')) continue;
      found.push({ text: surface, name, type, start, end, confidence: CONFIDENCE, provider: 'compromise' });
    }
  });
  return found;
}

/** Entities compromise finds in `text`, given the loaded library (see loadCompromise). */
export const compromiseEntities = (nlp: Nlp, text: string): NerEntity[] =>
  entitiesFromMatches(text, compromiseMatches(nlp, text));

/** The same for many texts, parsed together (see joinTexts and parseGroups). */
export function compromiseEntitiesMany(nlp: Nlp, texts: readonly string[]): NerEntity[][] {
  return parseGroups(texts).flatMap((group) => {
    const split = splitMatches(group, compromiseMatches(nlp, joinTexts(group)));
    return group.map((text, i) => entitiesFromMatches(text, split[i]!));
  });
}

/** In this thread; the server runs it in a thread of its own instead (services/ner-thread.ts). */
export const compromiseProvider: NerProvider = {
  name: 'compromise',
  extract: async (text) => compromiseEntities(await loadCompromise(), text),
  extractMany: async (texts) => compromiseEntitiesMany(await loadCompromise(), texts),
};
