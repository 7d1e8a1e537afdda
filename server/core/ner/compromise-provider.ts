// The `compromise` provider: people, places and organisations from a local NLP tagger (our
// stand-in for spaCy). It costs 2-5 ms per turn (p99 10-90 ms), too slow for addTurn's budget,
// so it runs in the accurate strategy only: the durable job after a turn, and enrichment.
import type nlpType from 'compromise';
import { displayName, EntityType, type NerEntity, type NerProvider } from './types.ts';

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

/** Entities compromise finds in `text`, given the loaded library (see loadCompromise). */
export function compromiseEntities(nlp: Nlp, text: string): NerEntity[] {
  const doc = nlp(text);
  const groups: [EntityType, Match[]][] = [
    [EntityType.Person, doc.people().json({ offset: true }) as Match[]],
    [EntityType.Location, doc.places().json({ offset: true }) as Match[]],
    [EntityType.Organization, doc.organizations().json({ offset: true }) as Match[]],
  ];
  const found: NerEntity[] = [];
  for (const [type, matches] of groups) {
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
  }
  return found;
}

export const compromiseProvider: NerProvider = { name: 'compromise', extract: async (text) => compromiseEntities(await loadCompromise(), text) };
