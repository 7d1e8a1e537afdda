// Pseudo-relevance feedback (RM3-style): words that recur in the best first-pass turns and are
// rare in the whole history join the query for a second pass. It reaches answers phrased with
// other words than the question ("destress" -> the turns about "stress relief" and "dance").
import { prepared, type Store } from '../store.ts';
import { contentTerms } from './query.ts';
import type { TurnInfo } from './turn-ranker.ts';

const DF_CAP = 2000;

export function feedbackTerms(store: Store, top: TurnInfo[], exclude: Set<string>, count: number): string[] {
  const seen = new Map<string, number>();
  for (const turn of top) for (const term of contentTerms(turn.text)) if (!exclude.has(term) && term.length > 2 && !/^\d+$/.test(term)) seen.set(term, (seen.get(term) ?? 0) + 1);
  const recurring = [...seen].filter(([, n]) => n >= 2);
  if (recurring.length === 0) return [];
  const total = (prepared(store, 'search.turnCount', () => store.sqlite.prepare('select max(id) as n from turns')).get() as { n: number | null }).n ?? 1;
  const df = prepared(store, 'search.df', () => store.sqlite.prepare(`select count(*) as n from (select 1 from turns_fts where turns_fts match ? limit ${DF_CAP})`));
  return recurring
    .map(([term, n]) => ({ term, weight: n * Math.log(1 + total / (1 + (df.get(`"${term}"`) as { n: number }).n)) }))
    .sort((a, b) => b.weight - a.weight)
    .slice(0, count)
    .map((t) => t.term);
}
