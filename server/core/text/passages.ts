// Long turns are read by passage (docs/memory.md#search): an assistant's answer of a few thousand
// characters says many things, and the one a question asks about is a few sentences of it (or
// one code block). Ranking scores the best passage of each turn, so a long turn is neither
// favoured for holding every word somewhere nor penalised for its length, and the context quotes
// that passage instead of the turn's first characters. The turn stays one row: passages are
// spans of its text, found when a search first reads the turn and kept in memory by turn id.
import { indexTokens } from './text.ts';

/** A turn up to this many characters is one passage. */
export const PASSAGE_MIN_CHARS = 800;
/** A passage gathers sentences up to this many characters (one longer sentence or code block stays whole). */
const PASSAGE_CHARS = 400;
/** BM25's k1 and b, with passages measured against a typical short turn. */
const K1 = 1.2;
const B = 0.75;
const AVERAGE_TOKENS = 30;

export type Passage = { start: number; end: number };
/** A turn's passages with their words stemmed, as the ranker scores them. */
export type StemmedPassage = Passage & { stems: string[] };

const FENCE = /```[\s\S]*?(?:```|$)/g;
/** Sentence ends, line breaks and markdown structure: where prose may be cut. */
const BREAK = /(?<=[.!?:])\s+|\n+/g;
/** A markdown heading opens a passage of its own. */
const HEADING = /^#{1,6}\s/;

/** Sentence spans of a stretch of prose, offsets into the whole text, blank ones skipped. */
function sentences(text: string, from: number, to: number, out: Passage[]) {
  const part = text.slice(from, to);
  let start = 0;
  const push = (end: number) => {
    const raw = part.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body) out.push({ start: from + start + lead, end: from + start + lead + body.length });
  };
  for (const m of part.matchAll(BREAK)) {
    push(m.index);
    start = m.index + m[0].length;
  }
  push(part.length);
}

/** The passages of a text: the whole of a short one; else runs of sentences, each code block whole. */
export function passagesOf(text: string): Passage[] {
  if (text.length <= PASSAGE_MIN_CHARS) return [{ start: 0, end: text.length }];
  const units: (Passage & { code?: boolean })[] = [];
  let at = 0;
  for (const m of text.matchAll(FENCE)) {
    sentences(text, at, m.index, units);
    units.push({ start: m.index, end: m.index + m[0].length, code: true });
    at = m.index + m[0].length;
  }
  sentences(text, at, text.length, units);
  const out: Passage[] = [];
  let open: Passage | null = null;
  for (const unit of units) {
    if (unit.code) {
      if (open) out.push(open);
      out.push({ start: unit.start, end: unit.end });
      open = null;
    } else if (open && unit.end - open.start <= PASSAGE_CHARS && !HEADING.test(text.slice(unit.start, unit.end)))
      open.end = unit.end;
    else {
      if (open) out.push(open);
      open = { start: unit.start, end: unit.end };
    }
  }
  if (open) out.push(open);
  return out.length ? out : [{ start: 0, end: text.length }];
}

export type PassageCache = Map<number, { text: string; passages: StemmedPassage[] }>;
const CACHE_LIMIT = 5000;
const passageCaches = new WeakMap<object, PassageCache>();
/** A store's cache of long turns' stemmed passages. */
export function passageCache(store: object): PassageCache {
  let cache = passageCaches.get(store);
  if (!cache) passageCaches.set(store, (cache = new Map()));
  return cache;
}

/** A long turn's passages, stemmed once per turn (text never changes; checked anyway). */
export function cachedPassages(
  cache: PassageCache,
  id: number,
  text: string,
  stem: (word: string) => string,
): StemmedPassage[] {
  const hit = cache.get(id);
  if (hit && hit.text === text) return hit.passages;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  const passages = passagesOf(text).map((p) => ({ ...p, stems: indexTokens(text.slice(p.start, p.end)).map(stem) }));
  cache.set(id, { text, passages });
  return passages;
}

/** BM25 of one passage's stems for the query's stems and their IDF. */
export function passageBm25(stems: string[], terms: string[], idf: number[]): number {
  if (stems.length === 0) return 0;
  const tf = new Map<string, number>();
  for (const s of stems) tf.set(s, (tf.get(s) ?? 0) + 1);
  const norm = K1 * (1 - B + (B * stems.length) / AVERAGE_TOKENS);
  let score = 0;
  for (let i = 0; i < terms.length; i++) {
    const f = tf.get(terms[i]!);
    if (f) score += (idf[i]! * f * (K1 + 1)) / (f + norm);
  }
  return score;
}

export type BestPassage = { score: number; passage: Passage; stems: string[]; of: number };

/** The passage that scores best (the first of equals), and how many the turn has. */
export function bestPassage(passages: StemmedPassage[], terms: string[], idf: number[]): BestPassage {
  let best: BestPassage = { score: -1, passage: passages[0]!, stems: passages[0]!.stems, of: passages.length };
  for (const p of passages) {
    const score = passageBm25(p.stems, terms, idf);
    if (score > best.score) best = { score, passage: p, stems: p.stems, of: passages.length };
  }
  return best;
}

/**
 * What the context quotes of a turn: a short turn whole; a long one by the passage that matched
 * (its first when none did), marked as cut.
 */
export function quoteOf(text: string, passage?: string): string {
  if (text.length <= PASSAGE_MIN_CHARS) return text;
  const first = passagesOf(text)[0]!;
  const part = passage ?? text.slice(first.start, first.end);
  return `${text.startsWith(part) ? '' : '… '}${part}${text.endsWith(part) ? '' : ' …'}`;
}
