// The fuzzy level of fact dedupe: the active fact most alike a new one by token overlap
// (Jaccard >= extractor.dedupe_threshold), found among the newest facts sharing a probe of its
// words. The candidates' read is a statement of its own (findFuzzyDuplicate), or a part of the
// new fact's other reads (memories.ts's slotFactsAndDuplicate), one round trip on a server.
import { perDialect } from '../kernel/dialect-statements.ts';
import { writableClause, writableSql, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import { getMemory, type MemoryRow } from '../memory/memories.ts';
import { hasApostrophe, indexTokens, normalizeText, tokens } from '../text/text.ts';
import { isStopword } from '../text/query.ts';
import { textIndexOf } from '../text-index/text-index.ts';
import type { TextIndex } from '../kernel/store.ts';
import { TINY_USER_ROWS } from '../text-index/bm25.ts';
import { tableRows } from '../text-index/term-stats.ts';

const FUZZY_CANDIDATES = 20;
/**
 * The candidates: the newest matches of the probe (`source`, from the text index), joined to their
 * filters, for each column list and source text (the join and the same-subject test are the backend's).
 */
const fuzzyText = perDialect<string>((statements, key) => {
  const cut = key.indexOf('\0');
  const [columns, source] = [key.slice(0, cut), key.slice(cut + 1)];
  const { join, sameSubject } = statements.extraction.fuzzy;
  return `select ${columns}
  from (${source}) f
  ${join} memories m on m.id = f.id
  where ${writableSql('m')} and m.status = 'active' and m.kind = 'fact' and coalesce(m.polarity, 1) = ?
    and (cast(? as text) is null or m.subject is null or ${sameSubject})
    and length(m.content_key) - length(replace(m.content_key, ' ', '')) + 1 >= ?`;
});

/** An absolute date as extraction writes it, in a normalised key: "on 7 may 2023", "in october 2026", "around 2019". */
const DATE_KEY =
  /\b(?:(?:in the week of|on the weekend of|on|in|around|since|until|by)\s+)?(?:(?:\d{1,2}\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+)?(?:19|20)\d{2}\b/g;
const YEAR = /(?:19|20)\d\d/;
/** The dates in a normalised key, as one string to compare (null: none). */
export function datesIn(key: string): string | null {
  if (!YEAR.test(key)) return null; // most facts name no year: no need to look further
  const found = key.match(DATE_KEY);
  return found
    ? found.map((d) => d.replace(/^(?:in the week of|on the weekend of|on|in|around|since|until|by)\s+/, '')).join('|')
    : null;
}

/**
 * FTS terms that any duplicate must contain at least one of. A fact B with Jaccard(A, B) >= t
 * holds at least t of A's distinct tokens, so it misses at most (1 - t)·|A| of them: any
 * floor((1 - t)·|A|) + 1 tokens of A include one of B's. Content words before function words
 * and the fact's subject (named in every fact about it), longest first, stand in for the rarest
 * (counting document frequencies costs more than the probe). Words the index cannot find (the
 * joined form of "O'Brien") go last.
 */
function duplicateProbe(content: string, distinct: string[], threshold: number, common: Set<string>): string[] {
  const needed = Math.floor((1 - threshold) * distinct.length) + 1;
  const findable = hasApostrophe(content) ? new Set(indexTokens(content)) : null;
  const cost = (word: string) => (findable && !findable.has(word) ? 2 : isStopword(word) || common.has(word) ? 1 : 0);
  const probe = [...distinct]
    .sort((a, b) => cost(a) - cost(b) || b.length - a.length || (a < b ? -1 : 1))
    .slice(0, needed);
  return [...new Set(indexTokens(probe.join(' ')))].slice(0, 64);
}

/**
 * A user with this few memories has all of their active facts compared (read by the user's own
 * index): an FTS5 probe walks the doclists of every user's rows holding its words, which in a
 * file of many users costs more than reading one small user's facts.
 */
const NEWEST_FACTS = `select id from memories where user_id = ? and kind = 'fact' and status = 'active' order by created_at desc, id desc limit ${TINY_USER_ROWS}`;
const fewFacts = async (store: Store, space: Space, index: TextIndex) =>
  index.kind === 'fts5' && (await tableRows(store, space, 'memories')) <= TINY_USER_ROWS;

/** A new fact's fuzzy-duplicate read, ready to run alone or as part of another statement. */
export type FuzzyProbe = {
  /** The read, selecting `columns` of the candidates (memories as `m`). */
  select(columns: string): string;
  params: SqlParam[];
  mine: Set<string>;
  myDate: string | null;
  threshold: number;
  polarity: number | null;
};

/** The read of `content`'s candidates, or null when there is nothing to compare (no words, no text index). */
export async function fuzzyProbe(
  store: Store,
  space: Space,
  content: string,
  polarity: number | null,
  subject?: string | null,
): Promise<FuzzyProbe | null> {
  const index = textIndexOf(store);
  if (index.kind === 'like') return null;
  const threshold = store.config.extractor.dedupe_threshold;
  // Dates a fact was told with ("on 7 May 2023") are compared apart: the same words on two
  // different dates are two events, and a date on one side only does not make them two facts.
  const key = normalizeText(content);
  const myDate = datesIn(key);
  const mine = new Set(
    (myDate ? key.replace(DATE_KEY, ' ').replace(/\s+/g, ' ').trim() : key).split(' ').filter((w) => w !== ''),
  );
  if (mine.size === 0) return null;
  const probe = duplicateProbe(content, [...mine], threshold, new Set(subject ? tokens(subject) : []));
  const source = (await fewFacts(store, space, index))
    ? { sql: NEWEST_FACTS, params: [space.userId] }
    : index.matching(store, space, { table: 'memories', words: probe, join: 'any', limit: FUZZY_CANDIDATES });
  if (!source) return null;
  const select = (columns: string) => fuzzyText(store.dialect.statements, `${columns}\0${source.sql}`);
  // Of the newest matches, the read drops those the checks in closestOf would skip: the other
  // polarity, and keys with fewer words than t·|A| (a key has no more distinct tokens than words).
  const params = [
    ...source.params,
    ...writableClause(space, 'm').params,
    polarity ?? 1,
    subject ?? null,
    subject ?? null,
    Math.ceil(threshold * mine.size),
  ];
  return { select, params, mine, myDate, threshold, polarity };
}

/** Of the candidates read, the id of the one most alike (at least the threshold), if any. */
export function closestOf(
  probe: FuzzyProbe,
  candidates: Iterable<readonly [id: number, contentKey: string, polarity: number | null]>,
): number | undefined {
  const { mine, myDate, threshold } = probe;
  let best: { id: number; overlap: number } | undefined;
  for (const [id, contentKey, theirPolarity] of candidates) {
    // Same-slot facts were settled before (merge or conflict); a negation never merges into an assertion.
    if ((theirPolarity ?? 1) !== (probe.polarity ?? 1)) continue;
    const theirDate = datesIn(contentKey);
    if (myDate && theirDate && myDate !== theirDate) continue;
    // Their distinct tokens and how many of them are mine, without a Set per candidate (keys are short).
    const words = (theirDate ? contentKey.replace(DATE_KEY, ' ').replace(/\s+/g, ' ').trim() : contentKey).split(' ');
    let size = 0;
    let shared = 0;
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      if (word === '' || (i > 0 && words.lastIndexOf(word, i - 1) !== -1)) continue;
      size++;
      if (mine.has(word)) shared++;
    }
    // Jaccard >= t needs the sizes within a factor t of each other.
    if (size < threshold * mine.size || mine.size < threshold * size) continue;
    const overlap = shared / (mine.size + size - shared);
    if (overlap >= threshold && (!best || overlap > best.overlap)) best = { id, overlap };
  }
  return best?.id;
}

/**
 * The most similar active fact by token overlap, if it reaches the dedupe threshold. Candidates
 * are the newest matches of the probe (FTS5 walks rowids backwards without scoring), so the cost
 * is bounded at any store size; a duplicate is most likely a recent fact anyway. A fact about
 * someone never merges into one about someone else, however alike the words ("Caroline went
 * hiking with her sister" is not "Melanie went hiking with her sister").
 */
export async function findFuzzyDuplicate(
  store: Store,
  space: Space,
  content: string,
  polarity: number | null,
  subject?: string | null,
): Promise<MemoryRow | undefined> {
  const probe = await fuzzyProbe(store, space, content, polarity, subject);
  if (!probe) return undefined;
  // Rows as arrays [id, content_key, polarity], cheaper to build than objects.
  const candidates = (await store.sql.values(probe.select('m.id, m.content_key, m.polarity'), probe.params)) as [
    number,
    string,
    number | null,
  ][];
  const id = closestOf(probe, candidates);
  return id === undefined ? undefined : getMemory(store, id);
}
