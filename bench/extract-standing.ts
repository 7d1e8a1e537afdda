// The standing-memory part of the extraction benchmark: each phrasing of the labelled set
// (test/fixtures/standing-phrasings.ts: instructions, preferences and profile facts, and near
// misses) goes in through addTurn, heuristic mode, as a user of its own; precision and recall of
// the kinds it saved against the labels, by style (LoCoMo-like chat, BEAM-like assistant work).
import { STANDING_PHRASINGS, type Labelled } from '../test/fixtures/standing-phrasings.ts';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { createRuntime } from '../server/services/runtime.ts';

export type StandingFigures = {
  n: number;
  precision: number;
  recall: number;
  byStyle: Record<string, { n: number; precision: number; recall: number }>;
  wrong: { text: string; label: Labelled['label']; got: string[] }[];
};

type Tally = { tp: number; fp: number; fn: number; n: number };
const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);

export async function standingFigures(set: Labelled[] = STANDING_PHRASINGS): Promise<StandingFigures> {
  const store = await openStore({ path: ':memory:', env: {}, config: { extractor: { mode: 'heuristic' } } });
  const runtime = await createRuntime(store, {});
  const tallies = new Map<string, Tally>();
  const wrong: StandingFigures['wrong'] = [];
  try {
    for (const [i, p] of set.entries()) {
      const { extracted } = await ingestTurn(
        runtime,
        { userId: `labelled-${i}`, agentId: null },
        { sessionId: 'labelled', role: 'user', text: p.text },
      );
      const kinds = new Set<string>(extracted.filter((e) => e.memory.kind !== 'fact').map((e) => e.memory.kind));
      for (const key of ['all', p.style]) {
        const t = tallies.get(key) ?? { tp: 0, fp: 0, fn: 0, n: 0 };
        t.n++;
        if (p.label && kinds.has(p.label)) t.tp++;
        else if (p.label) t.fn++;
        // A near miss taken for an instruction or preference, or a phrasing taken for another kind.
        if (
          (!p.label && (kinds.has('instruction') || kinds.has('preference'))) ||
          (p.label && !kinds.has(p.label) && kinds.size > 0)
        )
          t.fp++;
        tallies.set(key, t);
      }
      const right = p.label ? kinds.has(p.label) : !kinds.has('instruction') && !kinds.has('preference');
      if (!right) wrong.push({ text: p.text, label: p.label, got: [...kinds] });
    }
  } finally {
    await closeStore(store);
  }
  const figures = (t: Tally) => ({ n: t.n, precision: ratio(t.tp, t.tp + t.fp), recall: ratio(t.tp, t.tp + t.fn) });
  const all = figures(tallies.get('all')!);
  const byStyle = Object.fromEntries([...tallies].filter(([k]) => k !== 'all').map(([k, t]) => [k, figures(t)]));
  return { ...all, byStyle, wrong };
}
